// The local Docker engine, read the way trivy reads it: the Engine API
// (https://docs.docker.com/reference/api/engine/) over the daemon's unix
// socket, $DOCKER_HOST or /var/run/docker.sock. Two calls are used:
// GET /images/{name}/json (inspect: config, platform, layer diff IDs) and
// GET /images/{name}/get (the export stream, a docker-save tarball) whose
// layer members are scanned as they pass, without a temporary file.
//
//   auto engine = engine::EngineClient::FromDockerHost(context.docker_host);
//   auto source = engine::OpenEngineImage(*engine, "app:dev", open_options);
//   // nullopt: the engine has no such image; an Error: no engine, or a broken answer
#pragma once

#include <memory>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "imagelint/result.h"
#include "imagelint/source.h"
#include "imagelint/stream.h"

namespace imagelint::engine {

// Where /var/run/docker.sock is when $DOCKER_HOST is unset (Docker's default).
inline constexpr const char* kDefaultDockerSocket = "/var/run/docker.sock";

class EngineClient {
 public:
  // `docker_host` as in $DOCKER_HOST: "" (the default socket) or
  // "unix:///path/docker.sock". Other schemes (tcp://, ssh://) are an error
  // naming them: only the local socket is read.
  static Result<EngineClient> FromDockerHost(const std::string& docker_host);

  // Whether the socket exists at all (no engine: nothing to ask, at once).
  bool SocketExists() const;
  const std::string& socket_path() const { return socket_; }
  // Bounds every request: connecting, and any wait for the next byte.
  void SetTimeoutMs(long timeout_ms) { timeout_ms_ = timeout_ms; }

  // GET /images/{name}/json: the inspect document, nullopt on 404.
  Result<std::optional<nlohmann::json>> InspectImage(const std::string& name) const;
  // GET /images/{name}/history: newest first.
  Result<nlohmann::json> ImageHistory(const std::string& name) const;
  // GET /images/{name}/get: the docker-save tar stream of the image.
  Result<std::unique_ptr<ByteStream>> ExportImage(const std::string& name) const;

 private:
  Result<std::unique_ptr<ByteStream>> Get(const std::string& path, long* status) const;
  std::string socket_;
  long timeout_ms_ = 30000;
};

// The image `name` of the engine as an ImageSource: metadata from inspect
// and history, layers streamed from the export (one pass when read in
// stream order, which SequentialLayerOrder asks for). nullopt when the
// engine has no image of that name. Errors: engine unreachable, malformed
// answers, a layer missing from the export.
Result<std::optional<std::unique_ptr<ImageSource>>> OpenEngineImage(const EngineClient& client, const std::string& name,
                                                                    const OpenOptions& options);

}  // namespace imagelint::engine
