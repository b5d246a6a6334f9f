// What several reporters share beyond field access: root causes (one block
// per cause, not a copy per pool), image names for stable identities,
// shortened requirement lists, undecided findings in user terms.
#include <algorithm>
#include <fstream>
#include <map>
#include <set>

#include "common/text.h"
#include "imagelint/analysis.h"
#include "util.h"

namespace imagelint::report::internal {

namespace {

// The evidence as an identity: paths and details, without layer numbers or
// lines (the same cause in another image or build keeps its key).
std::string EvidenceKey(const Finding& finding) {
  std::vector<std::string> parts;
  for (const auto& item : finding.evidence) {
    std::string path = TextOr(item.path);
    parts.push_back(path.empty() ? "detail:" + TextOr(item.detail) : "path:" + path);
  }
  std::sort(parts.begin(), parts.end());
  std::string key;
  for (const auto& part : parts) key += part + "\n";
  return key;
}

std::string CauseKey(const Finding& finding) {
  if (Undecided(finding)) {
    // The same gap (the Dockerfile's reason, else the missing facts) behind
    // several rules is one cause.
    auto reasons = MissingReasons(finding);
    if (reasons.empty()) reasons = MissingTexts(finding);
    std::sort(reasons.begin(), reasons.end());
    std::string key = "undecided\n";
    for (const auto& reason : reasons) key += reason + "\n";
    return key;
  }
  const std::string predicted = finding.predicted_error ? PredictedText(*finding.predicted_error) : "";
  return Kind(finding) + "\n" + finding.rule + "\n" + predicted + "\n" + EvidenceKey(finding);
}

bool IsClauseChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
         c == '-' || c == '*';
}

// "brand=tesla,driver>=470,driver<471" / "cuda>=12.4" / "arch=sm_80": one
// or more comma-joined KEY OP VALUE terms (libnvidia-container's grammar).
bool IsClause(std::string_view token) {
  if (token.empty() || token.size() > 200) return false;
  for (const auto& term : SplitOn(token, ',')) {
    size_t i = 0;
    while (i < term.size() && ((term[i] >= 'a' && term[i] <= 'z') || term[i] == '_')) ++i;
    if (i == 0 || i == term.size()) return false;
    size_t op = i;
    while (i < term.size() && (term[i] == '>' || term[i] == '<' || term[i] == '=' || term[i] == '!')) ++i;
    if (i == op || i - op > 2 || i == term.size()) return false;
    for (; i < term.size(); ++i) {
      if (!IsClauseChar(term[i])) return false;
    }
  }
  return true;
}

}  // namespace

std::string FleetAssumptions(const Report& report) {
  if (!report.fleet) return "";
  auto defaulted = [](const analysis::ReportPool& pool, const char* field) {
    return pool.defaulted && std::find(pool.defaulted->begin(), pool.defaulted->end(), field) != pool.defaulted->end();
  };
  // A few names, then how many more: a fleet may have hundreds of pools.
  auto names = [](const std::vector<std::string>& pools) {
    constexpr size_t kShown = 4;
    std::vector<std::string> shown(pools.begin(), pools.begin() + std::min(pools.size(), kShown));
    std::string out = Joined(shown);
    if (pools.size() > kShown) out += " and " + std::to_string(pools.size() - kShown) + " more";
    return out;
  };
  std::vector<std::string> no_toolkit, no_runtime;
  std::set<std::string> toolkits;
  for (const auto& pool : report.fleet->pools) {
    if (defaulted(pool, "container_toolkit")) {
      no_toolkit.push_back(pool.name);
      toolkits.insert(pool.container_toolkit.value_or("?"));
    }
    if (defaulted(pool, "runtime")) no_runtime.push_back(pool.name);
  }
  std::vector<std::string> parts;
  if (!no_toolkit.empty())
    parts.push_back("container toolkit " + Joined(std::vector<std::string>(toolkits.begin(), toolkits.end())) +
                    ", the newest known, where the fleet names none (" + names(no_toolkit) + ")");
  if (!no_runtime.empty())
    parts.push_back("every launch path its toolkit offers for each pool that names no runtime (" + names(no_runtime) +
                    "): verdicts the paths disagree on are undecided");
  if (parts.empty()) return "";
  return Joined(parts, "; ") + ". Set `container_toolkit:` and `runtime:` in the fleet file to judge one.";
}

std::string Kind(const Finding& finding) {
  if (Undecided(finding)) return "undecided";
  return std::string(rules::SeverityName(SeverityOf(finding)));
}

int Order(const Finding& finding) {
  if (Undecided(finding)) return 2;
  Severity severity = SeverityOf(finding);
  return severity == Severity::kError ? 3 : severity == Severity::kWarning ? 1 : 0;
}

int64_t Counts::Cells() const {
  int64_t cells = 0;
  for (const auto& [status, n] : verdicts) cells += n;
  return cells;
}

namespace {

Counts NoCounts() {
  Counts counts;
  for (const char* kind : {"error", "undecided", "warning", "note"}) counts.findings[kind] = counts.causes[kind] = 0;
  for (const char* status : {"pass", "warn", "fail", "undecided"}) counts.verdicts[status] = 0;
  return counts;
}

}  // namespace

Counts CountImage(const ImageReport& image) {
  Counts counts = NoCounts();
  for (const auto& finding : image.findings) ++counts.findings[Kind(finding)];
  for (const auto& cause : RootCauses(image)) ++counts.causes[cause.kind];
  for (const auto& verdict : image.verdicts) {
    std::string status = StatusText(verdict.status);
    if (counts.verdicts.count(status)) ++counts.verdicts[status];
  }
  return counts;
}

Counts CountReport(const Report& report) {
  Counts total = NoCounts();
  for (const auto& image : report.images) {
    Counts one = CountImage(image);
    for (const auto& [kind, n] : one.findings) total.findings[kind] += n;
    for (const auto& [kind, n] : one.causes) total.causes[kind] += n;
    for (const auto& [status, n] : one.verdicts) total.verdicts[status] += n;
  }
  return total;
}

std::vector<RootCause> RootCauses(const ImageReport& image) {
  std::vector<RootCause> causes;
  std::map<std::string, size_t> by_key;
  std::vector<std::set<std::string>> pools_seen;  // per cause: a fleet of thousands of pools stays linear
  std::map<std::string, size_t> pool_rank;        // fleet order, as the verdicts list it
  for (const auto& verdict : image.verdicts) pool_rank.try_emplace(verdict.pool, pool_rank.size());
  for (const auto& finding : image.findings) {
    std::string key = CauseKey(finding);
    auto it = by_key.find(key);
    if (it == by_key.end()) {
      it = by_key.emplace(key, causes.size()).first;
      causes.push_back(RootCause{{}, {}, {}, Kind(finding)});
      pools_seen.emplace_back();
    }
    RootCause& cause = causes[it->second];
    std::set<std::string>& seen = pools_seen[it->second];
    cause.findings.push_back(&finding);
    const std::string& rule = finding.rule;
    if (std::find(cause.rules.begin(), cause.rules.end(), rule) == cause.rules.end()) cause.rules.push_back(rule);
    for (const auto& pool : finding.pools) {
      if (seen.insert(pool).second) cause.pools.push_back(pool);
    }
  }
  for (auto& cause : causes) {
    auto rank = [&](const std::string& pool) {
      auto at = pool_rank.find(pool);
      return at == pool_rank.end() ? pool_rank.size() : at->second;
    };
    std::stable_sort(cause.pools.begin(), cause.pools.end(),
                     [&](const std::string& a, const std::string& b) { return rank(a) < rank(b); });
  }
  std::stable_sort(causes.begin(), causes.end(), [](const RootCause& a, const RootCause& b) {
    return Order(*a.findings.front()) > Order(*b.findings.front());
  });
  return causes;
}

std::string BaselineState(const RootCause& cause) {
  std::string state;
  for (const Finding* finding : cause.findings) {
    std::string one = TextOr(finding->baseline_state);
    if (one == "new") return one;
    if (!one.empty()) state = one;
  }
  return state;
}

std::string ImageName(const std::string& ref) {
  std::string name = ref;
  while (StartsWith(name, "./")) name = name.substr(2);
  size_t at = name.find('@');
  if (at != std::string::npos) name = name.substr(0, at);
  size_t colon = name.rfind(':');
  size_t slash = name.rfind('/');
  if (colon != std::string::npos && (slash == std::string::npos || colon > slash)) name = name.substr(0, colon);
  return name;
}

std::string ShortenRequirements(const std::string& text, const std::string& deciding) {
  constexpr size_t kMinRun = 4;  // shorter lists read fine as they are
  // Split on single spaces, remembering each token's decorations.
  std::vector<std::string> tokens = SplitOn(text, ' ');
  struct Token {
    std::string prefix, core, suffix;
    bool clause = false;
  };
  std::vector<Token> parsed;
  for (const auto& raw : tokens) {
    Token t;
    std::string core = raw;
    size_t equals = core.find('=');
    // "NVIDIA_REQUIRE_CUDA=cuda>=12.4": the variable name is a prefix.
    if (equals != std::string::npos && equals > 0 && core.substr(0, equals).find_first_of("<>!") == std::string::npos &&
        IsClause(core.substr(equals + 1)) && !IsClause(core)) {
      t.prefix = core.substr(0, equals + 1);
      core = core.substr(equals + 1);
    }
    while (!core.empty() && (core[0] == '"' || core[0] == '\'' || core[0] == '(')) {
      t.prefix += core[0];
      core.erase(0, 1);
    }
    while (!core.empty() && (core.back() == '"' || core.back() == '\'' || core.back() == ')' || core.back() == ',' ||
                             core.back() == ';' || core.back() == '.')) {
      t.suffix = core.back() + t.suffix;
      core.pop_back();
    }
    t.clause = IsClause(core);
    t.core = core;
    parsed.push_back(std::move(t));
  }
  std::string out;
  auto append = [&](const std::string& word) {
    if (!out.empty()) out += ' ';
    out += word;
  };
  for (size_t i = 0; i < parsed.size();) {
    size_t end = i;
    // A run: clause tokens; only its first may carry a prefix, only its last a suffix.
    while (end < parsed.size() && parsed[end].clause && (end == i || parsed[end].prefix.empty()) &&
           (end == i || parsed[end - 1].suffix.empty()))
      ++end;
    if (end - i < kMinRun) {
      size_t stop = std::max(end, i + 1);
      for (size_t k = i; k < stop; ++k) append(parsed[k].prefix + parsed[k].core + parsed[k].suffix);
      i = stop;
      continue;
    }
    std::vector<size_t> keep = {i};
    for (size_t k = i + 1; k < end && keep.size() < 3; ++k) {
      if (deciding.find(parsed[k].core) != std::string::npos) keep.push_back(k);
    }
    std::string shown;
    for (size_t k : keep) shown += (shown.empty() ? "" : " ") + parsed[k].core;
    size_t more = (end - i) - keep.size();
    append(parsed[i].prefix + shown + " … " + std::to_string(more) + " more clause" + (more == 1 ? "" : "s") +
           parsed[end - 1].suffix);
    i = end;
  }
  return out;
}

std::vector<std::string> MissingTexts(const Finding& finding) {
  std::vector<std::string> out;
  if (!finding.missing) return out;
  for (const auto& item : *finding.missing) {
    const std::string& text = item.text;
    if (!text.empty() && std::find(out.begin(), out.end(), text) == out.end()) out.push_back(text);
  }
  return out;
}

std::vector<std::string> MissingSentences(const std::vector<const Finding*>& findings) {
  std::vector<std::pair<std::string, std::vector<std::string>>> owners;  // owner -> subjects
  std::vector<std::string> loose;  // entries without subject/owner (older reports)
  for (const Finding* finding : findings) {
    if (!finding->missing) continue;
    for (const auto& item : *finding->missing) {
      const std::string& owner = item.owner;
      const std::string& subject = item.subject;
      if (owner.empty() || subject.empty()) {
        const std::string& text = item.text;
        if (!text.empty() && std::find(loose.begin(), loose.end(), text) == loose.end()) loose.push_back(text);
        continue;
      }
      auto it = std::find_if(owners.begin(), owners.end(), [&](const auto& entry) { return entry.first == owner; });
      if (it == owners.end()) {
        owners.emplace_back(owner, std::vector<std::string>{});
        it = owners.end() - 1;
      }
      if (std::find(it->second.begin(), it->second.end(), subject) == it->second.end()) it->second.push_back(subject);
    }
  }
  std::vector<std::string> out;
  for (const auto& [owner, subjects] : owners) {
    std::string text;
    for (size_t i = 0; i < subjects.size(); ++i)
      text += (i == 0 ? "" : i + 1 == subjects.size() ? " and " : ", ") + subjects[i];
    out.push_back(text + " of " + owner + (subjects.size() == 1 ? " is" : " are") + " unknown");
  }
  out.insert(out.end(), loose.begin(), loose.end());
  return out;
}

std::vector<std::string> MissingReasons(const Finding& finding) {
  std::vector<std::string> out;
  if (!finding.missing) return out;
  for (const auto& item : *finding.missing) {
    std::string reason = TextOr(item.reason);
    if (reason.empty()) continue;
    if (item.dockerfile_line) reason += " [Dockerfile:" + std::to_string(*item.dockerfile_line) + "]";
    if (std::find(out.begin(), out.end(), reason) == out.end()) out.push_back(reason);
  }
  return out;
}

std::string RuleDocs(const std::string& docs_dir, const std::string& rule_id) {
  if (docs_dir.empty() || rule_id.empty() || rule_id.find('/') != std::string::npos || rule_id.find("..") != std::string::npos)
    return "";
  std::ifstream file(docs_dir + "/rules/" + rule_id + ".md", std::ios::binary);
  if (!file) return "";
  constexpr size_t kLimit = 64 * 1024;
  std::string markdown(kLimit, '\0');
  file.read(markdown.data(), static_cast<std::streamsize>(kLimit));
  markdown.resize(static_cast<size_t>(file.gcount()));
  return markdown;
}

}  // namespace imagelint::report::internal
