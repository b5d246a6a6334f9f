#include "support/test_support.h"

#include <doctest/doctest.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <mutex>
#include <random>
#include <sstream>

extern char** environ;

namespace imagelint::testing {

namespace fs = std::filesystem;

fs::path SourceDir() { return IMAGELINT_SOURCE_DIR; }
fs::path BinaryDir() { return IMAGELINT_BINARY_DIR; }
fs::path ImagelintBinary() { return IMAGELINT_BINARY; }

TempDir::TempDir() {
  std::random_device device;
  fs::path base = fs::temp_directory_path();
  for (int attempt = 0; attempt < 100; ++attempt) {
    fs::path candidate = base / ("imagelint-test-" + std::to_string(getpid()) + "-" + std::to_string(device()));
    std::error_code ec;
    if (fs::create_directory(candidate, ec)) {
      path_ = candidate;
      return;
    }
  }
  FAIL("cannot create a temporary directory");
}

TempDir::~TempDir() {
  std::error_code ec;
  if (!std::getenv("IMAGELINT_KEEP_TEMP")) fs::remove_all(path_, ec);
}

bool ExternalRequired() {
  const char* ci = std::getenv("CI");
  const char* required = std::getenv("IMAGELINT_REQUIRE_EXTERNAL");
  return (ci && std::string(ci) == "true") || (required && std::string(required) == "1");
}

namespace {
// What NeedExternal skipped in this process, for ExitStatusAfterRun.
std::mutex skips_mutex;
std::vector<std::string> skipped_reasons;
}  // namespace

bool NeedExternal(const std::string& what, bool available, const std::string& why_needed) {
  if (available) return true;
  std::string reason = what + " is not available (" + why_needed + ")";
  if (ExternalRequired()) {
    FAIL_CHECK("required in CI but missing: " << reason);
  } else {
    MESSAGE("SKIPPED: " << reason);
    std::lock_guard<std::mutex> lock(skips_mutex);
    skipped_reasons.push_back(reason);
  }
  return false;
}

int ExitStatusAfterRun(int result) {
  std::lock_guard<std::mutex> lock(skips_mutex);
  if (result != 0 || skipped_reasons.empty()) return result;
  std::fprintf(stderr, "%zu check(s) SKIPPED, so ctest counts this test as skipped (CI=true makes them fail):\n",
               skipped_reasons.size());
  for (const std::string& reason : skipped_reasons) std::fprintf(stderr, "  %s\n", reason.c_str());
  return kSkipExitCode;
}

bool HaveProgram(const std::string& program) {
  if (program.find('/') != std::string::npos) return access(program.c_str(), X_OK) == 0;
  const char* path = std::getenv("PATH");
  if (!path) return false;
  std::stringstream dirs(path);
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    if (!dir.empty() && access((dir + "/" + program).c_str(), X_OK) == 0) return true;
  }
  return false;
}

CommandResult RunCommand(const std::vector<std::string>& argv, const std::string& stdin_text,
                         int timeout_seconds, const std::vector<std::string>& extra_env) {
  CommandResult result;
  int in_pipe[2], out_pipe[2], err_pipe[2];
  if (pipe2(in_pipe, O_CLOEXEC) || pipe2(out_pipe, O_CLOEXEC) || pipe2(err_pipe, O_CLOEXEC)) {
    result.err = "pipe failed";
    return result;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in_pipe[0], 0);
  posix_spawn_file_actions_adddup2(&actions, out_pipe[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err_pipe[1], 2);

  std::vector<std::string> env_storage;
  for (char** e = environ; *e; ++e) env_storage.emplace_back(*e);
  for (const auto& entry : extra_env) {
    std::string key = entry.substr(0, entry.find('='));
    std::erase_if(env_storage, [&](const std::string& s) { return s.rfind(key + "=", 0) == 0; });
    env_storage.push_back(entry);
  }
  std::vector<char*> envp;
  for (auto& s : env_storage) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<char*> args;
  std::vector<std::string> argv_copy = argv;
  for (auto& a : argv_copy) args.push_back(a.data());
  args.push_back(nullptr);

  pid_t pid = 0;
  int rc = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  close(in_pipe[0]);
  close(out_pipe[1]);
  close(err_pipe[1]);
  if (rc != 0) {
    close(in_pipe[1]);
    close(out_pipe[0]);
    close(err_pipe[0]);
    result.err = std::string("spawn failed: ") + std::strerror(rc);
    return result;
  }
  // Feed stdin (small inputs only) and drain both outputs with poll.
  size_t written = 0;
  fcntl(in_pipe[1], F_SETFL, O_NONBLOCK);
  bool in_open = true;
  if (stdin_text.empty()) {
    close(in_pipe[1]);
    in_open = false;
  }
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_seconds);
  bool out_open = true, err_open = true;
  char buffer[65536];
  while (out_open || err_open) {
    std::vector<pollfd> fds;
    if (out_open) fds.push_back({out_pipe[0], POLLIN, 0});
    if (err_open) fds.push_back({err_pipe[0], POLLIN, 0});
    if (in_open) fds.push_back({in_pipe[1], POLLOUT, 0});
    int remaining = static_cast<int>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                         deadline - std::chrono::steady_clock::now())
                                         .count());
    if (remaining <= 0) {
      kill(pid, SIGKILL);
      result.err += "\n[test harness: killed after timeout]";
      break;
    }
    if (poll(fds.data(), fds.size(), remaining) < 0 && errno != EINTR) break;
    for (auto& p : fds) {
      if (!p.revents) continue;
      if (p.fd == in_pipe[1]) {
        ssize_t n = write(in_pipe[1], stdin_text.data() + written, stdin_text.size() - written);
        if (n > 0) written += n;
        if (n < 0 || written == stdin_text.size()) {
          close(in_pipe[1]);
          in_open = false;
        }
        continue;
      }
      ssize_t n = read(p.fd, buffer, sizeof buffer);
      if (n <= 0) {
        close(p.fd);
        (p.fd == out_pipe[0] ? out_open : err_open) = false;
      } else {
        (p.fd == out_pipe[0] ? result.out : result.err).append(buffer, n);
      }
    }
  }
  if (in_open) close(in_pipe[1]);
  if (out_open) close(out_pipe[0]);
  if (err_open) close(err_pipe[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

CommandResult RunImagelint(const std::vector<std::string>& args, const std::string& stdin_text,
                           const std::vector<std::string>& extra_env) {
  std::vector<std::string> argv{ImagelintBinary().string()};
  argv.insert(argv.end(), args.begin(), args.end());
  // Dockerfile tests expect the knowledge tables' answers: no base image is
  // looked up in a Docker engine or on the network unless a test asks for it
  // (IMAGELINT_BASE_FROM in extra_env, or --base-from, which wins).
  std::vector<std::string> env{"IMAGELINT_BASE_FROM=knowledge"};
  env.insert(env.end(), extra_env.begin(), extra_env.end());
  return RunCommand(argv, stdin_text, 300, env);
}

std::string ReadFileText(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void WriteFileText(const fs::path& path, const std::string& text) {
  if (path.has_parent_path()) fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

std::vector<uint8_t> ReadFileBytes(const fs::path& path) {
  std::string text = ReadFileText(path);
  return {text.begin(), text.end()};
}

void WriteFileBytes(const fs::path& path, const std::vector<uint8_t>& bytes) {
  WriteFileText(path, std::string(bytes.begin(), bytes.end()));
}

void CheckGolden(const std::string& relative_path, const std::string& actual) {
  fs::path golden = SourceDir() / "tests" / relative_path;
  const char* update = std::getenv("IMAGELINT_UPDATE_GOLDEN");
  if (update && std::string(update) == "1") {
    WriteFileText(golden, actual);
    MESSAGE("updated golden file " << golden.string());
    return;
  }
  REQUIRE_MESSAGE(fs::exists(golden), "missing golden file " << golden.string()
                                                              << " (run with IMAGELINT_UPDATE_GOLDEN=1)");
  std::string expected = ReadFileText(golden);
  CHECK_MESSAGE(expected == actual, "output differs from " << golden.string() << "\n--- actual ---\n" << actual);
}

}  // namespace imagelint::testing
