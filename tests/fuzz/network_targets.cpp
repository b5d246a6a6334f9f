// Fuzz targets over what a server sends back: the shared cache's Redis
// replies (RESP2, through the client a real store uses) and the Docker
// engine's JSON answers (inspect, history, the legacy manifest.json of an
// export), as the engine client reads them.
#include <algorithm>

#include "cache/resp_client.h"
#include "common/json.h"
#include "fuzz/support.h"
#include "fuzz/targets.h"

namespace imagelint::fuzz {
namespace {

// The server's bytes, handed out in chunks whose sizes the input's first
// byte picks (a reply split anywhere must parse the same).
class InputTransport final : public redis::Transport {
 public:
  InputTransport(std::string_view bytes, size_t chunk) : bytes_(bytes), chunk_(chunk) {}
  Status Send(std::span<const uint8_t>) override { return OkStatus(); }
  Result<size_t> Receive(std::span<uint8_t> buffer) override {
    if (at_ >= bytes_.size()) return MakeError("", "connection closed");
    const size_t n = std::min({buffer.size(), chunk_, bytes_.size() - at_});
    std::copy_n(bytes_.data() + at_, n, buffer.data());
    at_ += n;
    return n;
  }
  void SetTimeout(std::chrono::milliseconds) override {}

 private:
  std::string_view bytes_;
  size_t chunk_;
  size_t at_ = 0;
};

}  // namespace

int FuzzRespReply(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  InputTransport transport(AsText(data + 1, size - 1), size_t{1} + data[0] % 64);
  redis::RespClient client(transport);
  // As the store asks: a value of at most 64 KiB here, statuses of 4 KiB.
  for (int i = 0; i < 64; ++i) {
    auto reply = client.Call({"GETRANGE", "imagelint:layer:x", "0", "65536"}, i % 2 ? 65537 : 4096);
    if (!reply.ok()) break;
  }
  return 0;
}

int FuzzEngineAnswers(const uint8_t* data, size_t size) {
  // The parts: an inspect answer, a history answer, an export's manifest.json.
  auto parts = SplitParts(data, size, 3);
  for (size_t i = 0; i < parts.size(); ++i) {
    auto json = ParseJson(parts[i], "docker engine");
    if (!json.ok()) continue;
    (void)DumpJson(*json);
    if (json->is_object()) {
      JsonFields fields(*json, "docker engine");
      (void)fields.String("Id");
      (void)fields.String("Architecture");
      (void)fields.String("Os");
      (void)fields.Object("RootFS");
      if (auto config = fields.Object("Config"); config.ok() && *config) {
        JsonFields inner(**config, "docker engine", "Config");
        (void)StringArray(inner.Find("Env"), "docker engine", "Config.Env");
      }
    } else if (json->is_array()) {
      for (const auto& item : *json) (void)StringField(item, "CreatedBy");
      if (!json->empty()) (void)ArrayField(json->front(), "Layers");
    }
  }
  return 0;
}

}  // namespace imagelint::fuzz
