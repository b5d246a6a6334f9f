// Test fixtures for registry tests, loopback only: Debian's docker-registry
// started on a free port with a config written here, images pushed with
// skopeo, a tiny token server (for the registry's `silly` Bearer auth) and a
// fault-injecting HTTP proxy between imagelint and the registry.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "support/image_builder.h"
#include "support/test_support.h"

namespace imagelint::testing {

int FreeLoopbackPort();

// Whether the registry tests can run here (docker-registry, skopeo).
bool HaveRegistryTools();

struct SeenRequest {
  std::string method;
  std::string target;                         // "/v2/test/img/manifests/latest"
  std::map<std::string, std::string> headers; // lowercase names
};

// A loopback HTTP/1.1 server: one request per connection, handled by
// `handler`, which writes the whole response (or a broken one) to `fd`.
class LoopbackServer {
 public:
  using Handler = std::function<void(int fd, const SeenRequest& request)>;
  explicit LoopbackServer(Handler handler);
  ~LoopbackServer();
  LoopbackServer(const LoopbackServer&) = delete;
  LoopbackServer& operator=(const LoopbackServer&) = delete;
  int port() const { return port_; }
  std::vector<SeenRequest> Requests() const;

 private:
  void Serve();
  Handler handler_;
  int listen_fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
  mutable std::mutex mutex_;
  std::vector<SeenRequest> requests_;
  std::vector<std::thread> workers_;
};

// Writes all of `bytes` to a socket (best effort).
void WriteAllTo(int fd, const std::string& bytes);
// Closes a socket with a TCP reset (SO_LINGER 0).
void ResetConnection(int fd);

// Token endpoint answering {"token": token} (or 401 when `refuse`).
class TokenServer {
 public:
  explicit TokenServer(std::string token, bool refuse = false);
  int port() const { return server_.port(); }
  std::string realm() const { return "http://127.0.0.1:" + std::to_string(port()) + "/token"; }
  std::vector<SeenRequest> Requests() const { return server_.Requests(); }

 private:
  std::string token_;
  bool refuse_;
  LoopbackServer server_;
};

enum class RegistryAuth { kNone, kSilly, kHtpasswd };

// A certificate authority and a server certificate it signed, made with the
// openssl command line for tests of TLS verification.
struct TestTlsFiles {
  std::filesystem::path ca_cert;      // PEM, the CA to trust
  std::filesystem::path server_cert;  // PEM, for `server_name` and 127.0.0.1
  std::filesystem::path server_key;
};
// Writes a fresh CA and server certificate under `dir`. Throws on failure.
TestTlsFiles MakeTestTls(const std::filesystem::path& dir, const std::string& server_name);

class LocalRegistry {
 public:
  // Starts docker-registry on a free loopback port; `realm` for kSilly,
  // user/password for kHtpasswd; HTTPS with `tls` when given. Throws
  // std::runtime_error on failure.
  LocalRegistry(RegistryAuth auth = RegistryAuth::kNone, const std::string& realm = "",
                const std::string& user = "", const std::string& password = "",
                const TestTlsFiles* tls = nullptr);
  ~LocalRegistry();
  int port() const { return port_; }
  std::string host() const { return "127.0.0.1:" + std::to_string(port_); }
  const std::filesystem::path& storage() const { return storage_; }
  // skopeo copy of an OCI layout (`all`: the whole index) to host()/repo_tag.
  // Returns skopeo's result.
  CommandResult Push(const std::filesystem::path& layout, const std::string& repo_tag, bool all = false);
  // Removes a blob's data from the registry's storage.
  void DeleteBlob(const std::string& digest);

 private:
  TempDir dir_;
  std::filesystem::path storage_;
  int port_ = 0;
  pid_t pid_ = -1;
  std::string creds_;
  bool silly_ = false;
};

enum class Fault { kNone, kReset, kStatus500, kStatus429, kTruncate, kCorrupt, kRedirect };

// An HTTP proxy to `upstream_port` that applies faults to matching requests.
class FaultProxy {
 public:
  struct Rule {
    std::string target_contains;  // e.g. "/blobs/sha256:"
    Fault fault = Fault::kNone;
    int times = 1;                // how many matching requests get the fault (-1 = all)
    std::string method = "GET";
  };
  FaultProxy(int upstream_port, std::vector<Rule> rules);
  int port() const { return server_->port(); }
  std::string host() const { return "127.0.0.1:" + std::to_string(port()); }
  std::vector<SeenRequest> Requests() const { return server_->Requests(); }
  int faults_applied() const { return applied_.load(); }

 private:
  void Handle(int fd, const SeenRequest& request);
  int upstream_port_;
  std::mutex mutex_;
  std::vector<Rule> rules_;
  std::atomic<int> applied_{0};
  std::unique_ptr<LoopbackServer> server_;
};

// A small test image with a big incompressible file so that blob faults land
// in the middle of real data.
TestImage SampleImage(const std::string& marker, size_t big_bytes = 300 * 1024);

}  // namespace imagelint::testing
