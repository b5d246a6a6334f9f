#include "support/docker_engine.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <memory>
#include <mutex>
#include <thread>

namespace imagelint::testing {

namespace fs = std::filesystem;

namespace {

constexpr auto kStartTimeout = std::chrono::seconds(60);
constexpr auto kStopTimeout = std::chrono::seconds(20);
// Unix socket paths hold at most 107 bytes; dockerd puts containerd's
// sockets a few levels below its exec root.
constexpr size_t kMaxRunDirBytes = 48;

std::string FindProgram(const std::vector<std::string>& candidates) {
  for (const std::string& candidate : candidates) {
    if (candidate.find('/') != std::string::npos ? ::access(candidate.c_str(), X_OK) == 0 : HaveProgram(candidate))
      return candidate;
  }
  return "";
}

std::string Tail(const std::string& text, size_t bytes) {
  return text.size() <= bytes ? text : "…" + text.substr(text.size() - bytes);
}

bool Alive(int pid) {
  int status = 0;
  return ::waitpid(pid, &status, WNOHANG) == 0;
}

}  // namespace

DockerEngine* DockerEngine::Shared(std::string* why) {
  static std::mutex mutex;
  static std::unique_ptr<DockerEngine> engine;
  static bool tried = false;
  static std::string failure;
  std::lock_guard<std::mutex> lock(mutex);
  if (!tried) {
    tried = true;
    auto candidate = std::unique_ptr<DockerEngine>(new DockerEngine());
    if (candidate->Start(&failure)) engine = std::move(candidate);
  }
  if (!engine && why) *why = failure;
  return engine.get();
}

bool DockerEngine::Start(std::string* why) {
  if (::geteuid() != 0) {
    *why = "dockerd runs as root (tests run as uid " + std::to_string(::geteuid()) + ")";
    return false;
  }
  std::string dockerd = FindProgram({"/usr/sbin/dockerd", "dockerd"});
  // The docker.io client that comes with that daemon, before any other on PATH.
  docker_ = FindProgram({"/usr/bin/docker", "docker"});
  if (dockerd.empty() || docker_.empty()) {
    *why = "Debian's docker.io (dockerd and docker) is not installed";
    return false;
  }
  const std::string id = std::to_string(::getpid());
  root_ = BinaryDir() / "tests" / "docker-engine" / id;
  run_ = BinaryDir() / "tests" / "docker-engine" / id / "run";
  if (run_.string().size() > kMaxRunDirBytes) run_ = fs::temp_directory_path() / ("imagelint-dockerd-" + id);
  std::error_code ec;
  fs::remove_all(root_, ec);
  fs::remove_all(run_, ec);
  fs::create_directories(root_ / "data");
  fs::create_directories(run_);
  fs::create_directories(root_ / "client");
  config_dir_ = (root_ / "client").string();
  socket_ = run_ / "docker.sock";
  log_ = root_ / "dockerd.log";
  WriteFileText(root_ / "daemon.json", "{}\n");  // never the host's /etc/docker/daemon.json

  std::vector<std::string> args = {dockerd,
                                   "--config-file=" + (root_ / "daemon.json").string(),
                                   "--data-root=" + (root_ / "data").string(),
                                   "--exec-root=" + (run_ / "exec").string(),
                                   "--pidfile=" + (run_ / "dockerd.pid").string(),
                                   "--host=unix://" + socket_.string(),
                                   "--storage-driver=vfs",
                                   "--iptables=false",
                                   "--ip-masq=false",
                                   "--bridge=none",
                                   "--log-level=info"};
  const auto started = std::chrono::steady_clock::now();
  pid_t parent = ::getpid();
  pid_t pid = ::fork();
  if (pid < 0) {
    *why = "fork failed";
    return false;
  }
  if (pid == 0) {
    // The daemon dies with the test process, whatever way that ends.
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (::getppid() != parent) ::_exit(127);
    int log = ::open(log_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    int null = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (log < 0 || null < 0) ::_exit(127);
    ::dup2(null, 0);
    ::dup2(log, 1);
    ::dup2(log, 2);
    std::vector<char*> argv;
    for (auto& arg : args) argv.push_back(arg.data());
    argv.push_back(nullptr);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  pid_ = pid;
  while (std::chrono::steady_clock::now() - started < kStartTimeout) {
    if (!Alive(pid_)) {
      pid_ = -1;
      *why = "dockerd exited while starting; its log:\n" + Tail(Log(), 3000);
      return false;
    }
    if (fs::exists(socket_) && Docker({"version", "--format", "{{.Server.Version}}"}, "", 10).exit_code == 0) {
      start_time_ = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started);
      return true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  *why = "dockerd did not answer within 60 s; its log:\n" + Tail(Log(), 3000);
  Stop();
  return false;
}

CommandResult DockerEngine::Docker(const std::vector<std::string>& args, const std::string& stdin_text,
                                   int timeout_seconds) const {
  std::vector<std::string> argv = {docker_, "--host", Host()};
  argv.insert(argv.end(), args.begin(), args.end());
  return RunCommand(argv, stdin_text, timeout_seconds,
                    {"DOCKER_CONFIG=" + config_dir_, "DOCKER_BUILDKIT=0", "DOCKER_HOST=" + Host()});
}

std::string DockerEngine::Log() const { return ReadFileText(log_); }

void DockerEngine::Stop() {
  if (pid_ > 0) {
    ::kill(pid_, SIGTERM);
    auto deadline = std::chrono::steady_clock::now() + kStopTimeout;
    while (Alive(pid_) && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    if (Alive(pid_)) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
    pid_ = -1;
  }
  std::error_code ec;
  // vfs layers are plain directories of root-owned files.
  fs::remove_all(root_, ec);
  fs::remove_all(run_, ec);
}

DockerEngine::~DockerEngine() { Stop(); }

}  // namespace imagelint::testing
