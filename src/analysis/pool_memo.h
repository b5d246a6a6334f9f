// Results of the knowledge functions that depend only on an image's facts
// and a pool's hardware and software (libcuda, driver_compat, start_check,
// launch_path), remembered for the image being analysed. A fleet of
// thousands of pools names a few dozen distinct (GPU, driver, toolkit)
// combinations: each is worked out once, not once per pool and rule.
//
// Analyze opens a PoolMemoScope per image and names the facts values it
// binds (one per variant of the image); the bindings look results up while a
// scope is open on their thread. The key holds the facts' address, which is
// stable while the scope is open, and the pool without the fields that only
// name it (name, line, count, source, selector_labels), which no NVIDIA
// semantics reads. A call on any other facts value (one a rule computed, whose
// address a later one may reuse) is not remembered.
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "imagelint/fleet.h"
#include "imagelint/knowledge.h"
#include "imagelint/nvidia.h"
#include "imagelint/rules.h"

namespace imagelint::analysis {

// The pools of a run as the per-pool functions read them, shared by every
// image and every thread of the run (AnalyzeImages makes it before its
// threads start): each pool typed once, and what the NVIDIA semantics read of
// it besides its fields (its launch path, the requirement host and message
// style of the start check) worked out on first use, once per run instead of
// once per image. Entries are filled under a once_flag each.
class FleetPools {
 public:
  explicit FleetPools(size_t pools);
  FleetPools(const FleetPools&) = delete;
  FleetPools& operator=(const FleetPools&) = delete;

  // Pool `index` typed by `convert` (of its value, `pool`); null when
  // `convert` fails (the caller converts and reports it).
  template <class Convert>
  const Pool* Typed(size_t index, const nlohmann::json& pool, Convert convert) const {
    Entry& entry = *entries_[index];
    std::call_once(entry.typed_once, [&] {
      auto typed = convert(pool);
      if (typed.ok()) entry.typed = std::move(*typed);
    });
    return entry.typed ? &*entry.typed : nullptr;
  }
  // ResolveLaunchPath of the typed pool `index`; null when `knowledge` is
  // not the tables the first call used (then the caller works it out).
  const nvidia::LaunchPath* LaunchPathOf(size_t index, const Pool& pool, const Knowledge& knowledge) const;
  // ReadPoolInputs of the typed pool `index` on its launch path; null as above.
  const nvidia::PoolInputs* InputsOf(size_t index, const Pool& pool, const Knowledge& knowledge) const;

 private:
  struct Entry {
    std::once_flag typed_once, path_once, inputs_once;
    std::optional<Pool> typed;
    nvidia::LaunchPath path;
    nvidia::PoolInputs inputs;
  };
  bool SameKnowledge(const Knowledge& knowledge) const;
  std::vector<std::unique_ptr<Entry>> entries_;
  mutable std::once_flag knowledge_once_;
  mutable const Knowledge* knowledge_ = nullptr;
};

// Appends an exact, self-delimiting encoding of `value` to a memo key.
void AppendKeyValue(std::string& key, const nlohmann::json& value);

class PoolMemoScope {
 public:
  // `fleet`: the run's pools (TrustPool names them by index), or null.
  explicit PoolMemoScope(const FleetPools* fleet = nullptr);
  ~PoolMemoScope();
  PoolMemoScope(const PoolMemoScope&) = delete;
  PoolMemoScope& operator=(const PoolMemoScope&) = delete;

  // The memo open on this thread, or null.
  static PoolMemoScope* Active();
  // `facts` is bound for the whole scope: calls on it, and on the entries
  // of its `binaries`, may be remembered.
  void Trust(const nlohmann::json* facts);
  // Whether `binary` is an entry of the `binaries` of facts bound for the
  // whole scope (its address then names it while the scope is open).
  bool IsTrustedBinary(const nlohmann::json* binary) const;
  // The pool value at `pool` (bound for the whole scope) has this
  // PoolKey: worked out once per fleet, not on every call.
  // Pools with the same key share one short id in the keys of calls.
  // `index` is the pool's in the FleetPools of the scope.
  void TrustPool(const nlohmann::json* pool, const std::string* key, size_t index) {
    pool_ids_[pool] = PoolId{pool_key_ids_.try_emplace(*key, pool_key_ids_.size()).first->second, index};
  }
  // The pool's part of a key: its fields but those that only name it.
  static std::string PoolKey(const nlohmann::json& pool);
  // The key of `function` called with `args`, whose `facts_arg` (if any) is
  // identified by address and whose `pool_arg` loses its naming fields;
  // nullopt when the call must not be remembered.
  std::optional<std::string> Key(const std::string& function, const rules::Arguments& args,
                                 std::optional<size_t> facts_arg, size_t pool_arg) const;

  const rules::Value* Find(const std::string& key) const;
  // The value as kept (valid while the scope is open), or null when the
  // memo is full.
  const rules::Value* Put(std::string key, rules::Value value);
  // The libcuda a process loads, as SelectLibcuda returns it, and its JSON:
  // libcuda() and every driver_compat() call (one per runtime version) of
  // every pool whose SelectLibcuda inputs are alike share it.
  struct KeptSelection {
    nvidia::LibcudaSelection selection;
    rules::Value value;  // its JSON, as libcuda() hands it out
  };
  // The key of a selection from `facts` (null when they are not bound for
  // the whole scope) and the pool fields it is made from.
  std::optional<std::string> SelectionKey(const nlohmann::json& facts, const std::string& pool_inputs) const;
  const KeptSelection* FindSelection(const std::string& key) const;
  // As kept, or null when the memo is full.
  const KeptSelection* PutSelection(std::string key, KeptSelection&& selection);  // moved from only when kept
  // The selection of `facts` on the pool value at `pool`, both bound for the
  // whole scope, found by their addresses (no key made); null when not known.
  const KeptSelection* PoolSelection(const nlohmann::json* facts, const nlohmann::json* pool) const;
  // Remembers `kept` (a selection the scope keeps) for `facts` on `pool`
  // when both are bound for the whole scope; returns it.
  const KeptSelection& RememberPoolSelection(const nlohmann::json* facts, const nlohmann::json* pool,
                                             const KeptSelection* kept);
  // The typed pool of a pool value bound for the whole scope (TrustPool),
  // converted once by `convert` and kept; null for any other value, or
  // when `convert` fails (the caller converts and reports it).
  // (Kept by the scope's FleetPools, shared with the other images.)
  template <class Convert>
  const Pool* TypedPool(const nlohmann::json* pool, Convert convert) {
    auto id = pool_ids_.find(pool);
    if (id == pool_ids_.end()) return nullptr;
    if (fleet_) return fleet_->Typed(id->second.index, *pool, convert);
    if (auto it = typed_pools_.find(pool); it != typed_pools_.end()) return &it->second;
    auto typed = convert(*pool);
    if (!typed.ok()) return nullptr;
    return &typed_pools_.emplace(pool, std::move(*typed)).first->second;
  }
  // The launch path and start-check inputs of a pool value bound for the
  // whole scope, typed as `typed` (TypedPool), kept by the scope's
  // FleetPools; null for any other value (the caller works them out).
  const nvidia::LaunchPath* PoolLaunchPath(const nlohmann::json* pool, const Pool& typed,
                                           const Knowledge& knowledge) const;
  const nvidia::PoolInputs* PoolInputs(const nlohmann::json* pool, const Pool& typed, const Knowledge& knowledge) const;
  // What the NVIDIA semantics read of `facts` alone (nvidia::ReadImageInputs),
  // worked out once per scope; null when `facts` is not bound for the whole
  // scope (Trust).
  const nvidia::ImageInputs* ImageInputs(const nlohmann::json& facts, const Knowledge& knowledge);

 private:
  // Bounded: a hostile fleet of distinct pools stops being remembered here
  // and is worked out per call, as without the memo.
  static constexpr size_t kMaxEntries = 65536;
  std::unordered_map<std::string, rules::Value> results_;
  std::unordered_map<std::string, KeptSelection> selections_;
  struct PointerPairHash {
    size_t operator()(const std::pair<const nlohmann::json*, const nlohmann::json*>& pair) const {
      const std::hash<const void*> hash;
      return hash(pair.first) * 31 + hash(pair.second);
    }
  };
  std::unordered_map<std::pair<const nlohmann::json*, const nlohmann::json*>, const KeptSelection*, PointerPairHash>
      pool_selections_;
  std::unordered_set<const nlohmann::json*> trusted_;
  // The storage of each trusted facts' `binaries` array: first and last entry.
  std::vector<std::pair<const nlohmann::json*, const nlohmann::json*>> binaries_;
  std::unordered_map<std::string, size_t> pool_key_ids_;
  struct PoolId {
    size_t key;    // the short id of its PoolKey
    size_t index;  // in fleet_
  };
  std::unordered_map<const nlohmann::json*, PoolId> pool_ids_;
  std::unordered_map<const nlohmann::json*, Pool> typed_pools_;  // without a fleet_
  const FleetPools* fleet_ = nullptr;
  std::unordered_map<const nlohmann::json*, std::unique_ptr<nvidia::ImageInputs>> image_inputs_;
  PoolMemoScope* previous_ = nullptr;
};

}  // namespace imagelint::analysis
