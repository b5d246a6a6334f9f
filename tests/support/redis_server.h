// A private Redis for tests: Debian's redis-server on 127.0.0.1, on a free
// port, its directory under the build tree, no persistence (--save "",
// --appendonly no), optionally with requirepass. Killed (SIGKILL) when the
// object dies or the test process does (PR_SET_PDEATHSIG). Every wait is
// bounded.
// StartTls: TLS only (port 0, tls-port N), on 127.0.0.1 and 127.0.0.2 (an
// address its certificate does not name), with a CA, server and client
// certificates made for it (support/test_pki.h); redis-server's default
// tls-auth-clients requires a client certificate.
//
//   std::string why;
//   auto redis = RedisServer::Start(&why);
//   if (!NeedExternal("redis-server", redis != nullptr, why)) return;
//   RunImagelint({"scan", "app.tar", "--cache-backend", redis->Url()});
//   redis->Cli({"DBSIZE"});
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "support/test_pki.h"
#include "support/test_support.h"

namespace imagelint::testing {

class RedisServer {
 public:
  // nullptr (with `why`) when redis-server is missing or does not answer.
  static std::unique_ptr<RedisServer> Start(std::string* why, const std::string& password = "");
  static std::unique_ptr<RedisServer> StartTls(std::string* why, const std::string& password = "");

  int port() const { return port_; }
  // redis://127.0.0.1:PORT, or rediss://HOST:PORT for a TLS server.
  std::string Url(const std::string& host = "127.0.0.1") const {
    return (pki_ ? "rediss://" : "redis://") + host + ":" + std::to_string(port_);
  }
  // The certificates of a TLS server (nullptr for a plain one).
  const TestPki* pki() const { return pki_ ? &*pki_ : nullptr; }
  // `redis-cli -p PORT ARGS` (the password through REDISCLI_AUTH; with TLS,
  // the CA and the client certificate).
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
  static std::unique_ptr<RedisServer> Create(std::string* why, const std::string& password, bool tls);
  bool Launch(std::string* why, bool tls);
  std::vector<std::string> CliBase() const;

  std::filesystem::path dir_;
  std::string password_;
  std::optional<TestPki> pki_;
  int port_ = 0;
  int pid_ = -1;
};

}  // namespace imagelint::testing
