// Placement advice (`--format k8s`): a nodeAffinity that admits exactly the
// pools whose verdict is pass, over GPU Feature Discovery labels.
#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include "imagelint/fleet_import.h"
#include "imagelint/report.h"

namespace imagelint::report {
namespace {

constexpr size_t kMaxImages = 10000;
constexpr size_t kMaxMessage = 200;

std::string QuoteInMessage(std::string_view text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20 || c == 0x7f) {
      out += ' ';
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

std::string ShortLine(std::string_view text, size_t max = kMaxMessage) {
  std::string out;
  for (char c : text) {
    if (out.size() >= max) {
      out += "…";
      break;
    }
    out += (c == '\n' || c == '\r' || c == '\t') ? ' ' : c;
  }
  return out;
}

struct Selector {
  std::map<std::string, std::string> labels;
  bool derived = false;  // from a hand-written pool's gpu/driver, not from nodes
};

Selector SelectorFor(const Pool& pool) {
  Selector selector;
  if (!pool.selector_labels.empty()) {
    selector.labels = pool.selector_labels;
    return selector;
  }
  selector.derived = true;
  if (!pool.gpu.empty()) selector.labels["nvidia.com/gpu.product"] = fleet_import::SanitiseLabelValue(pool.gpu);
  if (!pool.driver.empty()) selector.labels["nvidia.com/cuda.driver-version.full"] = pool.driver;
  return selector;
}

// Whether a node of `other` could carry every label of `pass` with its value.
// A key `other` lacks counts as "could" only when `other`'s labels are
// derived (a hand-written pool: its nodes' labels are unknown); an imported
// pool's selector holds every candidate label its nodes carry.
bool CouldMatch(const Selector& pass, const Selector& other) {
  for (const auto& [key, value] : pass.labels) {
    auto it = other.labels.find(key);
    if (it == other.labels.end()) {
      if (!other.derived) return false;
      continue;
    }
    if (it->second != value) return false;
  }
  return true;
}

std::string Describe(const analysis::Verdict& verdict) {
  std::string text(analysis::OutcomeName(verdict.status));
  if (verdict.predicted_error) {
    const analysis::PredictedError& error = *verdict.predicted_error;
    text += ", predicted " + (error.name.empty() ? std::string("error") : error.name);
    if (error.code != 0) text += " (" + std::to_string(error.code) + ")";
  }
  if (!verdict.rules.empty()) {
    text += "; rules:";
    size_t shown = 0;
    for (const std::string& rule : verdict.rules) {
      if (++shown > 10) {
        text += " …";
        break;
      }
      text += " " + rule;
    }
  }
  return ShortLine(text, 400);
}

// First finding message that names this pool (or is image-wide) for one of
// the verdict's rules.
std::string FirstMessage(const analysis::ImageReport& image, const std::string& pool,
                         const analysis::Verdict& verdict) {
  const std::set<std::string> rules(verdict.rules.begin(), verdict.rules.end());
  for (const analysis::Finding& finding : image.findings) {
    if (!rules.empty() && !rules.count(finding.rule)) continue;
    const bool applies =
        finding.pools.empty() || std::find(finding.pools.begin(), finding.pools.end(), pool) != finding.pools.end();
    if (applies && !finding.message.empty()) return ShortLine(finding.message);
  }
  return {};
}

}  // namespace

Result<std::string> RenderPlacementAdvice(const analysis::Report& report, const imagelint::Fleet& fleet) {
  if (report.images.size() > kMaxImages) return MakeError("report", "too many images");
  if (fleet.pools.empty())
    return MakeError(fleet.source.empty() ? std::string("fleet") : fleet.source,
                     "--format k8s needs a fleet (--fleet FILE): placement is advice over pools");

  std::map<std::string, const Pool*> pools;
  for (const auto& pool : fleet.pools) pools[pool.name] = &pool;

  std::ostringstream out;
  bool first_document = true;
  for (const analysis::ImageReport& image : report.images) {
    const std::string ref = image.ref.empty() ? std::string("(image)") : image.ref;
    if (!first_document) out << "---\n";
    first_document = false;
    out << "# imagelint placement advice for " << ShortLine(ref);
    if (!image.digest.empty()) out << " (" << ShortLine(image.digest) << ")";
    out << "\n# Fleet: " << ShortLine(fleet.source.empty() ? "(unnamed)" : fleet.source) << "\n";

    std::map<std::string, const analysis::Verdict*> verdicts;
    for (const analysis::Verdict& verdict : image.verdicts) verdicts.try_emplace(verdict.pool, &verdict);

    std::vector<const Pool*> passing;
    std::vector<std::pair<const Pool*, std::string>> excluded;  // pool, reason
    for (const auto& pool : fleet.pools) {
      auto it = verdicts.find(pool.name);
      if (it == verdicts.end()) {
        excluded.emplace_back(&pool, "no verdict in the report");
        continue;
      }
      const analysis::Verdict& verdict = *it->second;
      if (verdict.status == analysis::Outcome::kPass) {
        passing.push_back(&pool);
      } else {
        std::string reason = Describe(verdict);
        std::string message = FirstMessage(image, pool.name, verdict);
        if (!message.empty()) reason += "\n#       " + message;
        excluded.emplace_back(&pool, reason);
      }
    }
    for (const auto& [name, verdict] : verdicts)
      if (!pools.count(name)) out << "# note: the report has a verdict for pool \"" << ShortLine(name) << "\", which the fleet lacks\n";

    // A passing pool whose labels cannot tell it from an excluded pool would
    // let pods onto the excluded pool's nodes: leave it out too.
    std::vector<std::pair<const Pool*, Selector>> terms;
    std::vector<std::pair<const Pool*, std::string>> unseparable;
    for (const Pool* pool : passing) {
      Selector selector = SelectorFor(*pool);
      std::string clash;
      if (selector.labels.empty()) clash = "it has no node labels to select it by";
      for (const auto& [other, reason] : excluded) {
        if (!clash.empty()) break;
        if (CouldMatch(selector, SelectorFor(*other)))
          clash = "its node labels do not tell it apart from excluded pool " + other->name;
      }
      if (clash.empty()) {
        terms.emplace_back(pool, std::move(selector));
      } else {
        unseparable.emplace_back(pool, clash);
      }
    }

    if (!terms.empty()) {
      out << "# Admits the pools whose verdict is pass:";
      for (const auto& [pool, selector] : terms) out << " " << pool->name;
      out << "\n";
    }
    if (!excluded.empty() || !unseparable.empty()) {
      out << "# Excludes:\n";
      for (const auto& [pool, reason] : excluded)
        out << "#   " << ShortLine(pool->name) << ": " << reason << "\n";
      for (const auto& [pool, reason] : unseparable)
        out << "#   " << ShortLine(pool->name) << ": pass, but left out because " << ShortLine(reason) << "\n";
    }
    if (terms.empty()) {
      // Pods that stay Pending say more than pods that crash on a GPU: the
      // term below matches no node (every node has a hostname label).
      out << "# No pool can be admitted: no placement keeps this image on hosts where it runs.\n"
             "# This affinity matches no node, so pods stay Pending instead of failing.\n"
             "affinity:\n"
             "  nodeAffinity:\n"
             "    requiredDuringSchedulingIgnoredDuringExecution:\n"
             "      nodeSelectorTerms:\n"
             "        - matchExpressions:\n"
             "            - key: \"kubernetes.io/hostname\"\n"
             "              operator: DoesNotExist\n";
      continue;
    }
    bool any_derived = false;
    for (const auto& [pool, selector] : terms) any_derived |= selector.derived;
    if (any_derived)
      out << "# Labels marked \"derived\" come from the fleet file's gpu and driver, not from nodes:\n"
             "# check them against `kubectl get nodes --show-labels`.\n";
    out << "# Goes under the pod template's spec:\n";
    out << "affinity:\n";
    out << "  nodeAffinity:\n";
    out << "    requiredDuringSchedulingIgnoredDuringExecution:\n";
    out << "      nodeSelectorTerms:\n";
    for (const auto& [pool, selector] : terms) {
      out << "        # pool " << ShortLine(pool->name);
      if (pool->count > 0) out << " (" << pool->count << (pool->count == 1 ? " host" : " hosts") << ")";
      if (selector.derived) out << ", derived";
      out << "\n";
      out << "        - matchExpressions:\n";
      for (const auto& [key, value] : selector.labels) {
        out << "            - key: " << QuoteInMessage(key) << "\n";
        out << "              operator: In\n";
        out << "              values: [" << QuoteInMessage(value) << "]\n";
      }
    }
  }
  return out.str();
}

}  // namespace imagelint::report
