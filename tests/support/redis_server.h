// A private Redis for tests: Debian's redis-server on 127.0.0.1, on a free
// port, its directory under the build tree, no persistence (--save "",
// --appendonly no), optionally with requirepass. Killed (SIGKILL) when the
// object dies or the test process does (PR_SET_PDEATHSIG). Every wait is
// bounded.
//
//   std::string why;
//   auto redis = RedisServer::Start(&why);
//   if (!NeedExternal("redis-server", redis != nullptr, why)) return;
//   RunImagelint({"scan", "app.tar", "--cache-backend", redis->Url()});
//   redis->Cli({"DBSIZE"});
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "support/test_support.h"

namespace imagelint::testing {

class RedisServer {
 public:
  // nullptr (with `why`) when redis-server is missing or does not answer.
  static std::unique_ptr<RedisServer> Start(std::string* why, const std::string& password = "");

  int port() const { return port_; }
  std::string Url() const { return "redis://127.0.0.1:" + std::to_string(port_); }
  // `redis-cli -p PORT ARGS` (the password through REDISCLI_AUTH).
  CommandResult Cli(const std::vector<std::string>& args) const;
  // Raw SET of a binary value (redis-cli cannot take arbitrary bytes as an argument).
  bool SetRaw(const std::string& key, const std::string& value) const;
  std::vector<std::string> Keys(const std::string& pattern) const;

  void Kill();    // SIGKILL and reap: the server is gone mid-whatever
  void Pause();   // SIGSTOP: a server that accepts nothing and answers nothing
  void Resume();  // SIGCONT

  RedisServer(const RedisServer&) = delete;
  RedisServer& operator=(const RedisServer&) = delete;
  ~RedisServer();

 private:
  RedisServer() = default;
  bool Launch(std::string* why);

  std::filesystem::path dir_;
  std::string password_;
  int port_ = 0;
  int pid_ = -1;
};

}  // namespace imagelint::testing
