// A private Docker engine for tests: Debian's docker.io `dockerd`, run as
// root with vfs storage, no iptables and no bridge, listening on its own
// socket, its data root and exec root under the build directory. Nothing of
// the host's Docker is touched (no /var/run/docker.sock, no
// /etc/docker/daemon.json, no ~/.docker).
//
//   std::string why;
//   DockerEngine* engine = DockerEngine::Shared(&why);
//   if (!NeedExternal("docker engine", engine != nullptr, why)) return;
//   auto built = engine->Docker({"build", "--network", "none", "-t", "app:1", context});
//
// One engine per test process, started on first use and stopped (SIGTERM,
// then SIGKILL) at exit, or when the test process dies (PR_SET_PDEATHSIG).
// Every wait is bounded. When it cannot start, the reason carries the tail
// of its log. In CI (CI=true) callers fail instead of skipping, through
// NeedExternal, as for every external tool.
#pragma once

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "support/test_support.h"

namespace imagelint::testing {

class DockerEngine {
 public:
  // The process's engine, started on the first call; nullptr (with `why`)
  // when it cannot run here: not root, no dockerd or docker client, or the
  // daemon did not answer within the start timeout.
  static DockerEngine* Shared(std::string* why);

  // `docker ARGS` against this engine (the docker.io client beside dockerd).
  CommandResult Docker(const std::vector<std::string>& args, const std::string& stdin_text = "",
                       int timeout_seconds = 300) const;
  // "unix:///…/docker.sock", for tools given DOCKER_HOST.
  std::string Host() const { return "unix://" + socket_.string(); }
  // The daemon's log so far (for failure messages).
  std::string Log() const;
  // How long the start took (for the CI budget).
  std::chrono::milliseconds StartTime() const { return start_time_; }

  DockerEngine(const DockerEngine&) = delete;
  DockerEngine& operator=(const DockerEngine&) = delete;
  ~DockerEngine();

 private:
  DockerEngine() = default;
  bool Start(std::string* why);
  void Stop();

  std::filesystem::path root_;    // data root, logs, config
  std::filesystem::path run_;     // exec root, socket, pid file (short: unix socket paths are bounded)
  std::filesystem::path socket_;
  std::filesystem::path log_;
  std::string docker_;            // the client
  std::string config_dir_;        // DOCKER_CONFIG: an empty one
  int pid_ = -1;
  std::chrono::milliseconds start_time_{0};
};

}  // namespace imagelint::testing
