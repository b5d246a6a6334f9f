// The Engine API client: HTTP/1.1 over the daemon's unix socket through the
// registry module's libcurl stream (CURLOPT_UNIX_SOCKET_PATH). The host part
// of the URL is ignored by the daemon; "localhost" is what the docker CLI sends.
#include <sys/stat.h>

#include "common/json.h"
#include "common/text.h"
#include "imagelint/engine.h"
#include "registry/http.h"

namespace imagelint::engine {
namespace {

constexpr uint64_t kMaxInspectBytes = 8u << 20;  // inspect and history documents

// Names go into the URL path; the daemon's router takes the rest of the path
// as the name, so '/' and ':' stay (and '@' of digests), everything else
// unusual is escaped.
std::string EscapeName(const std::string& name) { return PercentEncode(name, "/:@"); }

}  // namespace

Result<EngineClient> EngineClient::FromDockerHost(const std::string& docker_host) {
  EngineClient client;
  if (docker_host.empty()) {
    client.socket_ = kDefaultDockerSocket;
  } else if (StartsWith(docker_host, "unix://")) {
    client.socket_ = docker_host.substr(7);
  } else {
    return MakeError("DOCKER_HOST", "\"" + docker_host.substr(0, 200) +
                                        "\": only unix:// sockets are read (the local engine)");
  }
  if (client.socket_.empty()) return MakeError("DOCKER_HOST", "empty socket path");
  return client;
}

bool EngineClient::SocketExists() const {
  struct stat st;
  return ::stat(socket_.c_str(), &st) == 0 && S_ISSOCK(st.st_mode);
}

Result<std::unique_ptr<ByteStream>> EngineClient::Get(const std::string& path, long* status) const {
  if (!SocketExists()) return MakeError("docker engine", "no engine socket at " + socket_);
  registry::HttpConfig config;
  config.unix_socket_path = socket_;
  long seconds = std::max<long>(1, (timeout_ms_ + 999) / 1000);
  config.connect_timeout_seconds = seconds;
  config.idle_timeout_seconds = seconds;
  registry::HttpRequest request;
  request.url = "http://localhost" + path;
  request.display = "docker engine (" + socket_ + ") GET " + path;
  auto stream = registry::HttpStream::Open(request, config);
  if (!stream.ok()) return stream.error();
  *status = (*stream)->head().status;
  return std::unique_ptr<ByteStream>(std::move(*stream));
}

Result<std::optional<nlohmann::json>> EngineClient::InspectImage(const std::string& name) const {
  long status = 0;
  std::string path = "/images/" + EscapeName(name) + "/json";
  auto stream = Get(path, &status);
  if (!stream.ok()) return stream.error();
  auto bytes = ReadAll(**stream, kMaxInspectBytes);
  if (!bytes.ok()) return bytes.error();
  if (status == 404) return std::optional<nlohmann::json>();
  if (status != 200)
    return MakeError("docker engine", "inspect " + name.substr(0, 200) + ": HTTP " + std::to_string(status));
  auto json = ParseJson(std::span<const uint8_t>(*bytes), "docker engine: inspect " + name.substr(0, 200));
  if (!json.ok()) return json.error();
  if (!json->is_object()) return MakeError("docker engine", "inspect " + name.substr(0, 200) + ": not a JSON object");
  return std::optional<nlohmann::json>(std::move(*json));
}

Result<nlohmann::json> EngineClient::ImageHistory(const std::string& name) const {
  long status = 0;
  auto stream = Get("/images/" + EscapeName(name) + "/history", &status);
  if (!stream.ok()) return stream.error();
  auto bytes = ReadAll(**stream, kMaxInspectBytes);
  if (!bytes.ok()) return bytes.error();
  if (status != 200)
    return MakeError("docker engine", "history of " + name.substr(0, 200) + ": HTTP " + std::to_string(status));
  auto json = ParseJson(std::span<const uint8_t>(*bytes), "docker engine: history of " + name.substr(0, 200));
  if (!json.ok()) return json.error();
  if (!json->is_array()) return MakeError("docker engine", "history of " + name.substr(0, 200) + ": not a JSON array");
  return std::move(*json);
}

Result<std::unique_ptr<ByteStream>> EngineClient::ExportImage(const std::string& name) const {
  long status = 0;
  auto stream = Get("/images/" + EscapeName(name) + "/get", &status);
  if (!stream.ok()) return stream.error();
  if (status != 200)
    return MakeError("docker engine", "export of " + name.substr(0, 200) + ": HTTP " + std::to_string(status));
  return stream;
}

}  // namespace imagelint::engine
