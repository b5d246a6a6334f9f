#include "support/redis_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <sstream>
#include <thread>

namespace imagelint::testing {

namespace fs = std::filesystem;

namespace {

constexpr auto kRedisStartTimeout = std::chrono::seconds(20);

// A port nobody listens on right now (the kernel's choice); the server may
// still lose a race for it, so Start tries a few.
int FreePort() {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return 0;
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  int port = 0;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0)
    port = ntohs(address.sin_port);
  ::close(fd);
  return port;
}

// redis-cli's answer without its line end (tests/support does not link src/common).
std::string Line(const std::string& text) {
  size_t end = text.find_last_not_of("\r\n ");
  return end == std::string::npos ? "" : text.substr(0, end + 1);
}

bool RedisAlive(int pid) {
  int status = 0;
  return ::waitpid(pid, &status, WNOHANG) == 0;
}

}  // namespace

std::unique_ptr<RedisServer> RedisServer::Start(std::string* why, const std::string& password) {
  return Create(why, password, false);
}

std::unique_ptr<RedisServer> RedisServer::StartTls(std::string* why, const std::string& password) {
  return Create(why, password, true);
}

std::unique_ptr<RedisServer> RedisServer::Create(std::string* why, const std::string& password, bool tls) {
  if (!HaveProgram("redis-server") || !HaveProgram("redis-cli")) {
    *why = "Debian's redis-server (and redis-tools' redis-cli) is not installed";
    return nullptr;
  }
  for (int attempt = 0; attempt < 3; ++attempt) {
    auto server = std::unique_ptr<RedisServer>(new RedisServer());
    server->password_ = password;
    if (server->Launch(why, tls)) return server;
  }
  return nullptr;
}

bool RedisServer::Launch(std::string* why, bool tls) {
  port_ = FreePort();
  if (port_ == 0) {
    *why = "no free loopback port";
    return false;
  }
  dir_ = BinaryDir() / "tests" / "redis" / (std::to_string(::getpid()) + "-" + std::to_string(port_));
  fs::create_directories(dir_);
  std::vector<std::string> args = {"redis-server", "--dir",      dir_.string(), "--save", "", "--appendonly", "no",
                                   "--daemonize",  "no",         "--logfile",   (dir_ / "redis.log").string(),
                                   "--protected-mode", "no"};
  if (tls) {
    pki_ = MakeTestPki(dir_ / "pki", why);
    if (!pki_) return false;
    args.insert(args.end(), {"--bind", "127.0.0.1", "127.0.0.2", "--port", "0", "--tls-port", std::to_string(port_),
                             "--tls-cert-file", pki_->server_cert.string(), "--tls-key-file",
                             pki_->server_key.string(), "--tls-ca-cert-file", pki_->ca.string()});
  } else {
    args.insert(args.end(), {"--bind", "127.0.0.1", "--port", std::to_string(port_)});
  }
  if (!password_.empty()) {
    args.push_back("--requirepass");
    args.push_back(password_);
  }
  pid_t parent = ::getpid();
  pid_t pid = ::fork();
  if (pid < 0) {
    *why = "fork failed";
    return false;
  }
  if (pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);
    int null = ::open("/dev/null", O_RDWR | O_CLOEXEC);
    if (null < 0) ::_exit(127);
    ::dup2(null, 0);
    ::dup2(null, 1);
    ::dup2(null, 2);
    std::vector<char*> argv;
    for (auto& arg : args) argv.push_back(arg.data());
    argv.push_back(nullptr);
    ::execvp(argv[0], argv.data());
    ::_exit(127);
  }
  pid_ = pid;
  const auto started = std::chrono::steady_clock::now();
  while (std::chrono::steady_clock::now() - started < kRedisStartTimeout) {
    if (!RedisAlive(pid_)) {
      pid_ = -1;
      *why = "redis-server exited while starting; its log:\n" + ReadFileText(dir_ / "redis.log");
      return false;
    }
    if (Line(Cli({"PING"}).out) == "PONG") return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  *why = "redis-server did not answer PING within 20 s; its log:\n" + ReadFileText(dir_ / "redis.log");
  Kill();
  return false;
}

std::vector<std::string> RedisServer::CliBase() const {
  std::vector<std::string> argv = {"redis-cli", "-h", "127.0.0.1", "-p", std::to_string(port_)};
  if (pki_) {
    argv.insert(argv.end(), {"--tls", "--cacert", pki_->ca.string(), "--cert", pki_->client_cert.string(), "--key",
                             pki_->client_key.string()});
  }
  return argv;
}

CommandResult RedisServer::Cli(const std::vector<std::string>& args) const {
  std::vector<std::string> argv = CliBase();
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<std::string> env;
  if (!password_.empty()) env.push_back("REDISCLI_AUTH=" + password_);
  return RunCommand(argv, "", 20, env);
}

bool RedisServer::SetRaw(const std::string& key, const std::string& value) const {
  // redis-cli -x takes the last argument from standard input, byte for byte.
  std::vector<std::string> argv = CliBase();
  argv.insert(argv.end(), {"-x", "SET", key});
  std::vector<std::string> env;
  if (!password_.empty()) env.push_back("REDISCLI_AUTH=" + password_);
  auto result = RunCommand(argv, value, 20, env);
  return result.exit_code == 0 && Line(result.out) == "OK";
}

std::vector<std::string> RedisServer::Keys(const std::string& pattern) const {
  std::vector<std::string> keys;
  std::istringstream lines(Cli({"--raw", "KEYS", pattern}).out);
  for (std::string line; std::getline(lines, line);) {
    if (!Line(line).empty()) keys.push_back(Line(line));
  }
  return keys;
}

void RedisServer::Kill() {
  if (pid_ > 0) {
    ::kill(pid_, SIGCONT);
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }
}

void RedisServer::Pause() {
  if (pid_ > 0) ::kill(pid_, SIGSTOP);
}

void RedisServer::Resume() {
  if (pid_ > 0) ::kill(pid_, SIGCONT);
}

RedisServer::~RedisServer() {
  Kill();
  std::error_code ec;
  fs::remove_all(dir_, ec);
}

}  // namespace imagelint::testing
