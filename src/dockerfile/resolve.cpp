// Unpinned and range-pinned torch, as pip resolves it against what the
// tables know. pip takes the highest version that every specifier allows
// among all the indexes and pages of the command
// (https://pip.pypa.io/en/stable/topics/dependency-resolution/); PEP 440
// gives the specifier grammar (https://peps.python.org/pep-0440/#version-specifiers).
// The tables know release series ("2.1"), so a series matches when one of its
// releases could: its first (X.Y.0) or a late one (X.Y.99).
#include "dockerfile/resolve.h"

#include <algorithm>
#include <cctype>

#include "common/text.h"
#include "common/version.h"
#include "dockerfile/pip.h"
#include "dockerfile/util.h"

namespace imagelint::dockerfile {
namespace {

std::vector<std::string> Components(std::string_view version) {
  std::vector<std::string> out;
  for (std::string& part : SplitOn(version, '.')) out.push_back(std::move(part));
  return out;
}

// One clause against one concrete version; nullopt for an operator not read.
std::optional<bool> ClauseHolds(std::string_view candidate, std::string_view clause) {
  size_t op_end = 0;
  while (op_end < clause.size() && std::string_view("=!<>~").find(clause[op_end]) != std::string_view::npos) ++op_end;
  std::string op(clause.substr(0, op_end));
  std::string version(clause.substr(op_end));
  if (size_t plus = version.find('+'); plus != std::string::npos) version.resize(plus);  // local labels
  if (version.empty()) return std::nullopt;
  bool wildcard = EndsWith(version, ".*");
  if (wildcard) version.resize(version.size() - 2);
  int order = CompareNaturalVersions(candidate, version);
  if (op == "==" || op == "!=") {
    bool equal = order == 0;
    if (wildcard) {
      auto want = Components(version), have = Components(candidate);
      equal = have.size() >= want.size();
      for (size_t i = 0; equal && i < want.size(); ++i) equal = CompareNaturalVersions(have[i], want[i]) == 0;
    }
    return op == "==" ? equal : !equal;
  }
  if (wildcard) return std::nullopt;
  if (op == ">=") return order >= 0;
  if (op == "<=") return order <= 0;
  if (op == ">") return order > 0;
  if (op == "<") return order < 0;
  if (op == "~=") {  // ~=X.Y.Z: >=X.Y.Z and ==X.Y.*
    auto parts = Components(version);
    if (parts.size() < 2 || order < 0) return parts.size() < 2 ? std::nullopt : std::optional<bool>(false);
    parts.pop_back();
    std::string prefix;
    for (const std::string& part : parts) prefix += (prefix.empty() ? "" : ".") + part;
    return ClauseHolds(candidate, "==" + prefix + ".*");
  }
  return std::nullopt;  // ===, or text that is no operator
}

std::optional<bool> Holds(std::string_view candidate, std::string_view specifiers) {
  for (const std::string& raw : SplitOn(specifiers, ',')) {
    std::string clause = Trim(raw);
    if (clause.empty()) continue;
    auto holds = ClauseHolds(candidate, clause);
    if (!holds || !*holds) return holds;
  }
  return true;
}

std::string VariantOf(std::string_view cuda) {
  std::string out = "cu" + std::string(cuda);
  out.erase(std::remove(out.begin(), out.end(), '.'), out.end());
  return out;
}

// The newest series of `candidates` (release, row) that satisfies the specifiers.
template <typename Row>
const Row* Newest(const std::vector<std::pair<std::string, const Row*>>& candidates, std::string_view specifiers,
                  bool* unreadable) {
  const Row* best = nullptr;
  std::string best_release;
  for (const auto& [release, row] : candidates) {
    auto ok = SeriesSatisfies(release, specifiers);
    if (!ok) {
      *unreadable = true;
      return nullptr;
    }
    if (*ok && (!best || CompareNaturalVersions(release, best_release) > 0)) {
      best = row;
      best_release = release;
    }
  }
  return best;
}

}  // namespace

std::optional<bool> SeriesSatisfies(std::string_view release, std::string_view specifiers) {
  auto first = Holds(std::string(release) + ".0", specifiers);
  if (!first) return std::nullopt;
  if (*first) return true;
  return Holds(std::string(release) + ".99", specifiers);
}

std::string TorchTablesDate(const Knowledge& knowledge) {
  std::string newest;
  for (const auto& row : knowledge.Table("pytorch"))
    if (row.contains("released") && row["released"].is_string() && row["released"].get<std::string>() > newest)
      newest = row["released"].get<std::string>();
  return newest;
}

std::optional<ResolvedTorch> NewestTorch(const Knowledge& knowledge, const PackageKnowledge& packages,
                                         std::string_view variant, std::string_view extra_variant, bool pypi,
                                         std::string_view specifiers, std::string_view python) {
  bool unreadable = false;
  auto installable = [&](const std::string& series) {
    if (python.empty()) return true;
    const PypiRelease* row = packages.FindPypiRelease("torch", series);
    return !row || row->python_min.empty() || CompareNaturalVersions(python, row->python_min) >= 0;
  };
  auto from_index = [&](std::string_view wanted) -> std::optional<ResolvedTorch> {
    std::vector<std::pair<std::string, const nlohmann::json*>> rows;
    for (const auto& row : knowledge.Table("pytorch"))
      if (row["variant"] == wanted && installable(row["torch"].get<std::string>()))
        rows.emplace_back(row["torch"].get<std::string>(), &row);
    const nlohmann::json* best = Newest(rows, specifiers, &unreadable);
    if (!best) return std::nullopt;
    ResolvedTorch out{(*best)["torch"].get<std::string>(), std::string(wanted), CudaFromVariant(wanted),
                      "the " + std::string(wanted) + " index", (*best).value("source", ""), ""};
    if (best->contains("unconfirmed")) out.unconfirmed = "the torch builds of " + std::string(wanted);
    return out;
  };
  auto from_pypi = [&]() -> std::optional<ResolvedTorch> {
    std::vector<std::pair<std::string, const PypiRelease*>> rows;
    for (const PypiRelease& row : packages.pypi_releases)
      if (row.package == "torch" && !row.cuda.empty() && installable(row.release)) rows.emplace_back(row.release, &row);
    const PypiRelease* best = Newest(rows, specifiers, &unreadable);
    if (!best) return std::nullopt;
    ResolvedTorch out{best->release, VariantOf(best->cuda), best->cuda, "PyPI default of torch " + best->release,
                      best->source, ""};
    if (!best->unconfirmed.empty()) out.unconfirmed = "PyPI default CUDA of torch " + best->release;
    return out;
  };
  std::optional<ResolvedTorch> chosen;
  if (!variant.empty()) {
    chosen = from_index(variant);
  } else {
    std::optional<ResolvedTorch> extra = extra_variant.empty() ? std::nullopt : from_index(extra_variant);
    std::optional<ResolvedTorch> main = pypi ? from_pypi() : std::nullopt;
    chosen = main;
    // The same series on both: the +cuXYZ local version sorts higher (PEP 440).
    if (extra && (!main || CompareNaturalVersions(extra->release, main->release) >= 0)) chosen = extra;
  }
  if (unreadable) return std::nullopt;
  return chosen;
}

}  // namespace imagelint::dockerfile
