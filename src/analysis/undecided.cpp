// "Cannot tell": a rule whose condition needs a fact that is unknown. The
// rule engine's trace names the expressions it could not evaluate
// ("cuda.runtimes", "pool.brand", "r.version"); this turns them into what a
// user can act on: which fact of which thing is unknown ("the CUDA runtime of
// the base image `registry.corp/ml/base:2024.06`"), where the Dockerfile
// explains why (facts' dockerfile.unknown[]), and how to decide it.
#include "common/json.h"
#include "analysis/undecided.h"

#include <algorithm>
#include <array>
#include <optional>

#include "common/text.h"

namespace imagelint::analysis::internal {

using nlohmann::json;

namespace {

// What a fact path means to a user. `subject` is a noun phrase; `owner` says
// whose fact it is (the image, or a base image it comes from; the pool).
enum class Owner { kImage, kPool };
struct FactTerm {
  std::string_view path;     // exact path, or a prefix ending in '.'
  std::string_view subject;  // "the CUDA runtime (libcudart)"
  Owner owner;
  std::string_view hint;     // how to decide it; {pool} is the pool's name
};

// Longest match first is not needed: entries are matched in order, exact
// paths before the prefixes that contain them.
constexpr std::array kTerms = {
    FactTerm{"cuda.runtimes", "the CUDA runtime (libcudart)", Owner::kImage, ""},
    FactTerm{"cuda.drivers", "the libcuda copies (compat, stub or bundled driver libraries)", Owner::kImage, ""},
    FactTerm{"cuda.requirements", "the CUDA requirement (NVIDIA_REQUIRE_CUDA, CUDA_VERSION)", Owner::kImage, ""},
    FactTerm{"cuda.loader.ld_library_path", "the LD_LIBRARY_PATH", Owner::kImage, ""},
    FactTerm{"cuda.loader.ld_so_conf", "the /etc/ld.so.conf.d directories", Owner::kImage, ""},
    FactTerm{"cuda.loader", "the dynamic loader configuration", Owner::kImage, ""},
    FactTerm{"cuda.", "the CUDA files", Owner::kImage, ""},
    FactTerm{"binaries", "the GPU code (SASS/PTX) of the binaries", Owner::kImage, ""},
    FactTerm{"frameworks", "the GPU frameworks (torch, jax, tensorflow, cupy)", Owner::kImage, ""},
    FactTerm{"image.architecture", "the platform", Owner::kImage, ""},
    FactTerm{"image.os", "the platform", Owner::kImage, ""},
    FactTerm{"image.env", "the environment", Owner::kImage, ""},
    FactTerm{"image.", "the image configuration", Owner::kImage, ""},
    FactTerm{"pool.brand", "the GPU brand", Owner::kPool, "set `brand:` or a known `gpu:` for pool {pool} in the fleet file"},
    FactTerm{"pool.compute_capability", "the GPU compute capability", Owner::kPool,
             "set `compute_capability:` or a known `gpu:` for pool {pool} in the fleet file"},
    FactTerm{"pool.gpu", "the GPU model", Owner::kPool, "set `gpu:` for pool {pool} in the fleet file"},
    FactTerm{"pool.datacenter", "whether the GPUs are data-center parts", Owner::kPool,
             "set `datacenter:` or a known `gpu:` for pool {pool} in the fleet file"},
    FactTerm{"pool.architecture", "the GPU architecture", Owner::kPool,
             "set a known `gpu:` or `compute_capability:` for pool {pool} in the fleet file"},
    FactTerm{"pool.driver", "the driver version", Owner::kPool, "set `driver:` for pool {pool} in the fleet file"},
    FactTerm{"pool.container_toolkit", "the container toolkit version", Owner::kPool,
             "set `container_toolkit:` for pool {pool} in the fleet file"},
    FactTerm{"pool.runtime", "the container launch path (runtime)", Owner::kPool,
             "set `runtime:` for pool {pool} in the fleet file"},
    FactTerm{"pool.", "a property", Owner::kPool, "complete pool {pool} in the fleet file"},
};

// Fields of the facts' list entries (cuda.runtimes[], cuda.drivers[],
// binaries[], frameworks[]) that a rule can find unknown.
struct FieldTerm {
  std::string_view list;     // "cuda.runtimes"
  std::string_view field;    // "version"
  std::string_view subject;  // "the CUDA version"
};
constexpr std::array kFields = {
    FieldTerm{"cuda.runtimes", "version", "the CUDA version"},
    FieldTerm{"cuda.runtimes", "soname", "the SONAME"},
    FieldTerm{"cuda.drivers", "version", "the driver version"},
    FieldTerm{"cuda.drivers", "kind", "the kind (compat, stub or bundled)"},
    FieldTerm{"binaries", "sass", "the GPU architectures (SASS)"},
    FieldTerm{"binaries", "ptx", "the PTX"},
    FieldTerm{"binaries", "needed", "the needed libraries"},
    FieldTerm{"frameworks", "cuda", "the CUDA variant"},
    FieldTerm{"frameworks", "version", "the version"},
};

constexpr std::array<std::string_view, 7> kTopLevel = {"facts", "image", "env", "cuda", "binaries", "frameworks", "pool"};

int Int(const json& j, const char* key) {
  if (!j.is_object()) return 0;
  auto it = j.find(key);
  if (it == j.end() || !it->is_number_integer()) return 0;
  int64_t value = it->get<int64_t>();
  return value > 0 && value < (1 << 30) ? static_cast<int>(value) : 0;
}

const json* Find(const json& root, std::string_view dotted) {
  const json* at = &root;
  for (const auto& part : SplitOn(dotted, '.')) {
    if (!at->is_object()) return nullptr;
    auto it = at->find(part);
    if (it == at->end()) return nullptr;
    at = &*it;
  }
  return at;
}

// "cuda.runtimes[0].version" / "r.version" -> root "r", rest "version".
std::pair<std::string, std::string> SplitRoot(const std::string& path) {
  size_t end = path.find_first_of(".[");
  if (end == std::string::npos) return {path, ""};
  std::string rest = path.substr(end);
  // Drop index brackets: only names matter for the terms.
  std::string clean;
  for (size_t i = 0; i < rest.size(); ++i) {
    if (rest[i] == '[') {
      size_t close = rest.find(']', i);
      if (close == std::string::npos) break;
      i = close;
      continue;
    }
    clean += rest[i];
  }
  while (!clean.empty() && clean[0] == '.') clean.erase(0, 1);
  return {path.substr(0, end), clean};
}

// The name of a list entry, for a sentence: its path, or "torch 2.1".
std::string EntryName(const json& entry) {
  std::string path = StringField(entry, "path");
  if (!path.empty()) return "`" + path + "`";
  std::string name = StringField(entry, "name");
  std::string version = StringField(entry, "version");
  if (!name.empty()) return "`" + name + (version.empty() ? "" : " " + version) + "`";
  return "";
}

// The base image a Dockerfile starts from, when imagelint does not know its
// contents (its CUDA facts come from nowhere): "the base image `x:1`".
std::string UnknownBase(const json& facts) {
  const json* base = Find(facts, "image.base");
  if (!base || !base->is_object()) return "";
  bool known = base->contains("known") && (*base)["known"].is_boolean() && (*base)["known"].get<bool>();
  if (known || StringField(*base, "ref").empty()) return "";
  return "the base image `" + StringField(*base, "ref") + "`";
}

// The Dockerfile's own account of a gap: dockerfile.unknown[] entries for
// this fact (or the base image behind it).
const json* DockerfileGap(const json& facts, const std::string& fact, bool from_base) {
  const json* gaps = Find(facts, "dockerfile.unknown");
  if (!gaps || !gaps->is_array()) return nullptr;
  const json* base_gap = nullptr;
  const json* framework_gap = nullptr;
  for (const auto& gap : *gaps) {
    std::string named = StringField(gap, "fact");
    if (named.empty()) continue;
    if (named == fact || StartsWith(fact, named + ".") || StartsWith(named, fact + ".")) return &gap;
    if (named == "base-image" && !base_gap) base_gap = &gap;
    // An install that was not read may bring a framework, and with it a CUDA runtime.
    if (named == "frameworks" && StartsWith(fact, "cuda.runtimes") && !framework_gap) framework_gap = &gap;
  }
  if (from_base && base_gap) return base_gap;
  return framework_gap;
}

struct Described {
  std::string fact;     // the path, normalised ("cuda.runtimes", "pool.brand")
  std::string subject;  // "the CUDA runtime (libcudart)"
  std::string owner;    // "the base image `x`", "pool `a100`", "`/usr/lib/libcudart.so.12`"
  std::string hint;
  int dockerfile_line = 0;
  std::string reason;   // the Dockerfile analyzer's words
};

std::optional<Described> DescribeTopLevel(const std::string& path, const json& facts, const std::string& pool) {
  std::string fact = StartsWith(path, "facts.") ? path.substr(6) : path;
  if (StartsWith(fact, "env.")) fact = "image.env." + fact.substr(4);
  if (fact == "env") fact = "image.env";
  for (const auto& term : kTerms) {
    bool prefix = !term.path.empty() && term.path.back() == '.';
    bool match = prefix ? StartsWith(fact, term.path) : (fact == term.path || StartsWith(fact, std::string(term.path) + "."));
    if (!match) continue;
    Described out;
    out.fact = fact;
    out.subject = std::string(term.subject);
    if (StartsWith(fact, "image.env.")) out.subject = "the " + fact.substr(10) + " variable";
    if (term.owner == Owner::kPool) {
      out.owner = "pool `" + pool + "`";
      std::string hint(term.hint);
      size_t at = hint.find("{pool}");
      if (at != std::string::npos) hint.replace(at, 6, "`" + pool + "`");
      out.hint = hint;
      return out;
    }
    std::string base = UnknownBase(facts);
    bool from_base = !base.empty() && !StartsWith(fact, "image.architecture") && !StartsWith(fact, "image.os");
    out.owner = from_base ? base : "the image";
    if (const json* gap = DockerfileGap(facts, fact, from_base)) {
      out.dockerfile_line = Int(*gap, "dockerfile_line");
      out.reason = StringField(*gap, "reason");
      out.hint = StringField(*gap, "decide");  // what would decide it, in the analyzer's words
    }
    if (from_base && out.hint.empty())
      out.hint = "scan the built image instead of the Dockerfile (docker save IMAGE -o image.tar)";
    return out;
  }
  return std::nullopt;
}

// A bound name ("r.version", "b.sass"): the entry of a facts list whose
// field is unknown. `element` is the rule's foreach element when it has one.
std::optional<Described> DescribeEntryField(const std::string& field, const json& facts, const json* element) {
  for (const auto& term : kFields) {
    if (term.field != field) continue;
    const json* list = Find(facts, term.list);
    std::vector<const json*> candidates;
    if (element) {
      candidates.push_back(element);
    } else if (list && list->is_array()) {
      for (const auto& entry : *list) candidates.push_back(&entry);
    }
    for (const json* entry : candidates) {
      if (!entry->is_object()) continue;
      auto it = entry->find(std::string(field));
      if (it != entry->end() && !it->is_null()) continue;
      // The entry belongs to this list (a foreach element is checked against it too).
      if (element && list && list->is_array() && std::find(list->begin(), list->end(), *entry) == list->end()) continue;
      std::string name = EntryName(*entry);
      if (name.empty()) continue;
      Described out;
      out.fact = std::string(term.list) + "[]." + std::string(field);
      out.subject = std::string(term.subject);
      out.owner = name;
      out.dockerfile_line = Int(*entry, "dockerfile_line");
      return out;
    }
  }
  return std::nullopt;
}

std::string JoinAnd(const std::vector<std::string>& parts) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) out += i + 1 == parts.size() ? " and " : ", ";
    out += parts[i];
  }
  return out;
}

}  // namespace

Undecided DescribeUndecided(const std::vector<std::string>& missing, const json& facts, const std::string& pool,
                            const std::string& foreach_name, const json* element) {
  std::vector<Described> described;
  auto add = [&](Described d) {
    for (const auto& seen : described) {
      if (seen.subject == d.subject && seen.owner == d.owner) return;
    }
    described.push_back(std::move(d));
  };
  for (const auto& path : missing) {
    auto [root, rest] = SplitRoot(path);
    bool top = std::find(kTopLevel.begin(), kTopLevel.end(), root) != kTopLevel.end();
    if (top) {
      std::string normal = rest.empty() ? root : root + "." + rest;
      if (auto d = DescribeTopLevel(normal, facts, pool)) add(std::move(*d));
      continue;
    }
    // A `let` name or a bound variable: only its field says what is missing.
    std::string field = rest.substr(0, rest.find('.'));
    if (field.empty()) continue;
    const json* own = !foreach_name.empty() && root == foreach_name ? element : nullptr;
    if (auto d = DescribeEntryField(field, facts, own)) add(std::move(*d));
  }

  Undecided out;
  // One sentence per owner: "the CUDA runtime and the GPU frameworks of the
  // base image `x` are unknown".
  std::vector<std::string> owners;
  for (const auto& d : described) {
    if (std::find(owners.begin(), owners.end(), d.owner) == owners.end()) owners.push_back(d.owner);
  }
  std::vector<std::string> sentences;
  for (const auto& owner : owners) {
    std::vector<std::string> subjects;
    for (const auto& d : described) {
      if (d.owner == owner) subjects.push_back(d.subject);
    }
    sentences.push_back(JoinAnd(subjects) + " of " + owner + (subjects.size() == 1 ? " is" : " are") + " unknown");
  }
  for (const auto& d : described) {
    MissingFact entry;
    entry.fact = d.fact;
    entry.subject = d.subject;
    entry.owner = d.owner;
    entry.text = d.subject + " of " + d.owner + " is unknown";
    if (d.dockerfile_line > 0) entry.dockerfile_line = d.dockerfile_line;
    if (!d.reason.empty()) entry.reason = d.reason;
    if (!d.hint.empty()) entry.hint = d.hint;
    out.missing.push_back(std::move(entry));
    if (!d.hint.empty() && std::find(out.hints.begin(), out.hints.end(), d.hint) == out.hints.end())
      out.hints.push_back(d.hint);
    if (d.dockerfile_line > 0) {
      const bool seen = std::any_of(out.evidence.begin(), out.evidence.end(),
                                    [&](const Evidence& item) { return item.dockerfile_line == d.dockerfile_line; });
      if (!seen) {
        Evidence item;
        item.detail = d.reason.empty() ? d.subject + " of " + d.owner + " is unknown" : d.reason;
        item.dockerfile_line = d.dockerfile_line;
        out.evidence.push_back(std::move(item));
      }
    }
  }
  out.text = sentences.empty() ? "a fact it needs is unknown" : JoinAnd(sentences);
  if (sentences.empty() && !missing.empty()) {
    std::string raw;
    for (const auto& path : missing) raw += (raw.empty() ? "" : ", ") + path;
    out.text += " (" + raw + ")";
  }
  return out;
}

}  // namespace imagelint::analysis::internal
