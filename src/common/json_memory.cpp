#include "common/json_memory.h"

#include <vector>

namespace imagelint {

uint64_t EstimateJsonMemory(const nlohmann::json& value) {
  // The same charges as ParseJson's builder (common/json.cpp): 16 bytes a
  // node, containers and strings their bookkeeping on top, keys 64 + length.
  // A scalar (most values a rule builds: a bool, a version) needs no walk.
  switch (value.type()) {
    case nlohmann::json::value_t::object:
    case nlohmann::json::value_t::array:
    case nlohmann::json::value_t::binary:
      break;
    case nlohmann::json::value_t::string:
      return 16 + 32 + value.get_ref<const std::string&>().size();
    default:
      return 16;
  }
  uint64_t bytes = 0;
  std::vector<const nlohmann::json*> pending{&value};
  while (!pending.empty()) {
    const nlohmann::json* node = pending.back();
    pending.pop_back();
    bytes += 16;
    switch (node->type()) {
      case nlohmann::json::value_t::object:
        bytes += 48;
        for (auto it = node->begin(); it != node->end(); ++it) {
          bytes += 64 + it.key().size();
          pending.push_back(&it.value());
        }
        break;
      case nlohmann::json::value_t::array:
        bytes += 24;
        for (const auto& item : *node) pending.push_back(&item);
        break;
      case nlohmann::json::value_t::string:
        bytes += 32 + node->get_ref<const std::string&>().size();
        break;
      case nlohmann::json::value_t::binary:
        bytes += 48 + node->get_binary().size();
        break;
      default:
        break;
    }
  }
  return bytes;
}

}  // namespace imagelint
