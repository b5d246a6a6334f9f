#include "analysis/pool_memo.h"

#include <functional>
#include <vector>

namespace imagelint::analysis {
namespace {
thread_local PoolMemoScope* active_memo = nullptr;

// An address in a key: its bytes, fixed width (keys are never printed).
void AppendAddress(std::string& key, const void* address) {
  key.append(reinterpret_cast<const char*>(&address), sizeof address);
}
}  // namespace

// An exact encoding of `value`: a string as 's', its length and its bytes
// (the common argument: a runtime version, an architecture); anything else
// as its CBOR (cheaper than escaped JSON text) behind its length. The two
// forms cannot be mistaken for each other: a CBOR one starts with a digit.
void AppendKeyValue(std::string& key, const nlohmann::json& value) {
  if (value.is_string()) {
    const std::string& text = value.get_ref<const std::string&>();
    key += 's';
    key += std::to_string(text.size());
    key += ':';
    key += text;
    return;
  }
  const std::vector<uint8_t> encoded = nlohmann::json::to_cbor(value);
  key += std::to_string(encoded.size());
  key += ':';
  key.append(encoded.begin(), encoded.end());
}

FleetPools::FleetPools(size_t pools) {
  entries_.reserve(pools);
  for (size_t i = 0; i < pools; ++i) entries_.push_back(std::make_unique<Entry>());
}

bool FleetPools::SameKnowledge(const Knowledge& knowledge) const {
  std::call_once(knowledge_once_, [&] { knowledge_ = &knowledge; });
  return knowledge_ == &knowledge;
}

const nvidia::LaunchPath* FleetPools::LaunchPathOf(size_t index, const Pool& pool, const Knowledge& knowledge) const {
  if (!SameKnowledge(knowledge)) return nullptr;
  Entry& entry = *entries_[index];
  std::call_once(entry.path_once, [&] { entry.path = nvidia::ResolveLaunchPath(pool, knowledge); });
  return &entry.path;
}

const nvidia::PoolInputs* FleetPools::InputsOf(size_t index, const Pool& pool, const Knowledge& knowledge) const {
  const nvidia::LaunchPath* path = LaunchPathOf(index, pool, knowledge);
  if (!path) return nullptr;
  Entry& entry = *entries_[index];
  std::call_once(entry.inputs_once, [&] { entry.inputs = nvidia::ReadPoolInputs(pool, *path, knowledge); });
  return &entry.inputs;
}

PoolMemoScope::PoolMemoScope(const FleetPools* fleet) : fleet_(fleet), previous_(active_memo) { active_memo = this; }
PoolMemoScope::~PoolMemoScope() { active_memo = previous_; }

PoolMemoScope* PoolMemoScope::Active() { return active_memo; }

void PoolMemoScope::Trust(const nlohmann::json* facts) {
  trusted_.insert(facts);
  if (!facts->is_object()) return;
  auto list = facts->find("binaries");
  if (list != facts->end() && list->is_array() && !list->empty()) binaries_.emplace_back(&list->front(), &list->back());
}

bool PoolMemoScope::IsTrustedBinary(const nlohmann::json* binary) const {
  std::less<const nlohmann::json*> before;  // a total order over unrelated pointers
  for (const auto& [first, last] : binaries_)
    if (!before(binary, first) && !before(last, binary)) return true;
  return false;
}

std::optional<std::string> PoolMemoScope::Key(const std::string& function, const rules::Arguments& args,
                                              std::optional<size_t> facts_arg, size_t pool_arg) const {
  if (pool_arg >= args.size() || !args[pool_arg].json.is_object()) return std::nullopt;
  if (facts_arg && (*facts_arg >= args.size() || !trusted_.count(&args[*facts_arg].json))) return std::nullopt;
  std::string key;
  key.reserve(64);
  key += function;
  for (size_t i = 0; i < args.size(); ++i) {
    key += '\x1f';
    if (facts_arg && i == *facts_arg) {
      AppendAddress(key, &args[i].json);
    } else if (i == pool_arg) {
      if (auto known = pool_ids_.find(&args[i].json); known != pool_ids_.end()) {
        key += '#';
        key.append(reinterpret_cast<const char*>(&known->second.key), sizeof known->second.key);
      } else {
        key += 'P';
        key += PoolKey(args[i].json);
      }
    } else if (args[i].unknown) {
      key += '?';
    } else {
      AppendKeyValue(key, args[i].json);
    }
  }
  return key;
}

std::string PoolMemoScope::PoolKey(const nlohmann::json& pool) {
  std::string key;
  if (!pool.is_object()) return key;
  for (const auto& [field, value] : pool.items()) {
    if (field == "name" || field == "line" || field == "count" || field == "source" || field == "selector_labels")
      continue;
    key += std::to_string(field.size());
    key += ':';
    key += field;
    AppendKeyValue(key, value);
  }
  return key;
}

const nvidia::LaunchPath* PoolMemoScope::PoolLaunchPath(const nlohmann::json* pool, const Pool& typed,
                                                         const Knowledge& knowledge) const {
  auto id = pool_ids_.find(pool);
  if (id == pool_ids_.end() || !fleet_) return nullptr;
  return fleet_->LaunchPathOf(id->second.index, typed, knowledge);
}

const nvidia::PoolInputs* PoolMemoScope::PoolInputs(const nlohmann::json* pool, const Pool& typed,
                                                    const Knowledge& knowledge) const {
  auto id = pool_ids_.find(pool);
  if (id == pool_ids_.end() || !fleet_) return nullptr;
  return fleet_->InputsOf(id->second.index, typed, knowledge);
}

const nvidia::ImageInputs* PoolMemoScope::ImageInputs(const nlohmann::json& facts, const Knowledge& knowledge) {
  if (!trusted_.count(&facts)) return nullptr;
  std::unique_ptr<nvidia::ImageInputs>& kept = image_inputs_[&facts];
  if (!kept) kept = std::make_unique<nvidia::ImageInputs>(nvidia::ReadImageInputs(facts, knowledge));
  return kept.get();
}

const rules::Value* PoolMemoScope::Find(const std::string& key) const {
  auto it = results_.find(key);
  return it == results_.end() ? nullptr : &it->second;
}

const rules::Value* PoolMemoScope::Put(std::string key, rules::Value value) {
  if (results_.size() >= kMaxEntries) return nullptr;
  return &results_.emplace(std::move(key), std::move(value)).first->second;
}

std::optional<std::string> PoolMemoScope::SelectionKey(const nlohmann::json& facts,
                                                       const std::string& pool_inputs) const {
  if (!trusted_.count(&facts)) return std::nullopt;
  std::string key;
  key.reserve(sizeof(const void*) + pool_inputs.size());
  AppendAddress(key, &facts);
  key += pool_inputs;
  return key;
}

const PoolMemoScope::KeptSelection* PoolMemoScope::FindSelection(const std::string& key) const {
  auto it = selections_.find(key);
  return it == selections_.end() ? nullptr : &it->second;
}

const PoolMemoScope::KeptSelection* PoolMemoScope::PutSelection(std::string key, KeptSelection&& selection) {
  if (selections_.size() >= kMaxEntries) return nullptr;
  return &selections_.emplace(std::move(key), std::move(selection)).first->second;
}

const PoolMemoScope::KeptSelection* PoolMemoScope::PoolSelection(const nlohmann::json* facts,
                                                                 const nlohmann::json* pool) const {
  auto it = pool_selections_.find({facts, pool});
  return it == pool_selections_.end() ? nullptr : it->second;
}

const PoolMemoScope::KeptSelection& PoolMemoScope::RememberPoolSelection(const nlohmann::json* facts,
                                                                         const nlohmann::json* pool,
                                                                         const KeptSelection* kept) {
  // Addresses name values only while they are bound for the whole scope.
  if (trusted_.count(facts) && pool_ids_.count(pool) && pool_selections_.size() < kMaxEntries)
    pool_selections_.emplace(std::make_pair(facts, pool), kept);
  return *kept;
}

}  // namespace imagelint::analysis
