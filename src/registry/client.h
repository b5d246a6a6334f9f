// A client for one repository of one registry: scheme probing, auth
// (Bearer token flow, Basic), redirects, retries with backoff.
#pragma once

#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "imagelint/registry.h"
#include "registry/http.h"

namespace imagelint::registry {

class Client {
 public:
  Client(Reference ref, RegistryOptions options);

  const Reference& ref() const { return ref_; }
  const RegistryOptions& options() const { return options_; }

  // GET (or HEAD) <base>/v2/<repository>/<path_suffix> with retries, auth and
  // redirects. Returns the stream positioned at the body of a 2xx answer;
  // 4xx answers become errors naming the reference. `what` describes the
  // object for messages ("manifest latest", "blob sha256:...").
  Result<std::unique_ptr<HttpStream>> Get(const std::string& path_suffix, const std::vector<std::string>& headers,
                                          uint64_t range_start, const std::string& what);

  // Reads a small document (manifest, config), at most `limit` bytes.
  struct Document {
    std::vector<uint8_t> bytes;
    std::string content_type;    // without parameters
    std::string docker_digest;   // Docker-Content-Digest header, if any
    std::string link;            // Link header (pagination of tag lists), if any
  };
  Result<Document> GetDocument(const std::string& path_suffix, const std::vector<std::string>& headers,
                               uint64_t limit, const std::string& what);

  // POST or PUT `body` to <base>/v2/<repository>/<target>, or to `target`
  // itself when it is an absolute URL or a path from the registry's root (an
  // upload's Location), with the client's authorization; a 401 challenge is
  // answered (with the scope it names: pushes need "pull,push") and the
  // request sent once more. Redirects are not followed. Returns the head of a
  // 2xx answer; any other answer is an error naming `what`.
  Result<HttpHead> Send(const std::string& method, const std::string& target, const std::vector<std::string>& headers,
                        const std::string& body, const std::string& what);

  // Sleeps before attempt `attempt` (1-based retries).
  void Backoff(int attempt, const std::string& retry_after) const;

 private:
  Status EnsureBase();
  // Handles a 401 challenge: fetches a token or prepares Basic. Fails when
  // nothing more can be tried.
  Status Authenticate(const HttpHead& head, const std::string& what);
  Result<std::string> FetchToken(const std::string& realm, const std::string& service, const std::string& scope);
  std::string Authorization();
  HttpConfig Config(bool verify) const;
  Error StatusError(long status, const std::string& body, const std::string& what) const;
  Result<std::optional<Credentials>> Creds();

  Reference ref_;
  RegistryOptions options_;
  bool insecure_ = false;

  std::mutex mutex_;  // guards everything below (layers download in parallel)
  std::string base_;  // "https://host:port" once probed
  std::string authorization_;  // current Authorization value ("Bearer ..." / "Basic ...")
  bool credentials_loaded_ = false;
  std::optional<Credentials> credentials_;
};

}  // namespace imagelint::registry
