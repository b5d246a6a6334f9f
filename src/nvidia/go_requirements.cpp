// The nvidia-container-toolkit Go evaluator (CSV/Tegra mode:
// internal/requirements/constraints/{factory,binary,logical,property}.go) and
// the runtime's reading of NVIDIA_VISIBLE_DEVICES / NVIDIA_DRIVER_CAPABILITIES
// (cmd/nvidia-container-runtime-hook/container_config.go; upstream tests
// TestGetDriverCapabilities and TestGetDevicesFromEnvvar), source S8:
// https://github.com/NVIDIA/nvidia-container-toolkit
#include <algorithm>
#include <cctype>
#include <set>

#include "common/text.h"
#include "imagelint/nvidia.h"
#include "internal.h"

namespace imagelint::nvidia {
namespace {

using nlohmann::json;

struct GoFactor {
  std::string property, op, value;
  std::string Text() const { return property + op + value; }
};
using GoTerm = std::vector<GoFactor>;  // AND
using GoExpr = std::vector<GoTerm>;    // OR

// golang.org/x/mod/semver.IsValid("v" + value) for the core part: 1 to 3
// numeric components without leading zeros, optional -prerelease/+build.
// Deliberately not common/version.h: the toolkit rejects what semver rejects
// ("11.06", four components), and the prediction must reject it too.
bool ValidSemver(const std::string& value, std::vector<uint64_t>* parts = nullptr) {
  std::string core = value.substr(0, value.find_first_of("-+"));
  if (core.size() != value.size()) {
    std::string rest = value.substr(core.size() + 1);
    if (rest.empty()) return false;
  }
  auto pieces = SplitOn(core, '.');
  if (pieces.empty() || pieces.size() > 3) return false;
  std::vector<uint64_t> numbers;
  for (const auto& piece : pieces) {
    if (piece.empty() || piece.size() > 18) return false;
    if (piece.size() > 1 && piece[0] == '0') return false;
    for (char c : piece)
      if (!std::isdigit(static_cast<unsigned char>(c))) return false;
    numbers.push_back(std::stoull(piece));
  }
  while (numbers.size() < 3) numbers.push_back(0);
  if (parts) *parts = numbers;
  return true;
}

const std::set<std::string> kGoProperties = {"cuda", "arch", "driver", "brand"};

// parseConstraint: nullopt factor + ok = skipped; error = invalid.
Result<std::optional<GoFactor>> ParseFactor(std::string_view text) {
  std::string factor = Trim(text);
  if (factor.empty()) return std::optional<GoFactor>();
  for (const char* op : {"!=", "<=", ">=", "=", "<", ">"}) {
    size_t at = factor.find(op);
    if (at == std::string::npos) continue;
    GoFactor f{Trim(factor.substr(0, at)), op, Trim(factor.substr(at + std::string(op).size()))};
    if (!kGoProperties.count(f.property)) return std::optional<GoFactor>();  // "Skipping unsupported constraint"
    if ((f.property == "cuda" || f.property == "arch" || f.property == "driver") && !ValidSemver(f.value))
      return MakeError("", "invalid constraint value: " + f.value + " is not a valid version");
    return std::optional<GoFactor>(f);
  }
  return MakeError("", "invalid constraint: " + factor);
}

Result<GoExpr> ParseGo(std::string_view requirement) {
  GoExpr expr;
  for (const auto& term : SplitOn(requirement, ' ')) {
    GoTerm factors;
    for (const auto& factor : SplitOn(term, ',')) {
      auto parsed = ParseFactor(factor);
      if (!parsed.ok()) return parsed.error();
      if (*parsed) factors.push_back(**parsed);
    }
    if (!factors.empty()) expr.push_back(factors);
  }
  return expr;
}

std::string Render(const GoExpr& expr) {
  auto term_text = [](const GoTerm& term) {
    if (term.size() == 1) return term[0].Text();
    std::string out = "AND(";
    for (size_t i = 0; i < term.size(); ++i) out += (i ? ", " : "") + term[i].Text();
    return out + ")";
  };
  if (expr.empty()) return "";
  if (expr.size() == 1) return term_text(expr[0]);
  std::string out = "OR(";
  for (size_t i = 0; i < expr.size(); ++i) out += (i ? ", " : "") + term_text(expr[i]);
  return out + ")";
}

bool AssertFactor(const GoFactor& f, const GoRequirementHost& host, std::string& why) {
  if (f.property == "brand") {
    const std::string have;  // never set in CSV mode
    int c = have.compare(f.value);
    bool ok = f.op == "=" ? c == 0 : f.op == "!=" ? c != 0 : f.op == "<" ? c < 0 : f.op == "<=" ? c <= 0 : f.op == ">" ? c > 0 : c >= 0;
    if (!ok) why = "unsatisfied condition: " + f.Text() + " (brand=)";
    return ok;
  }
  std::string have = f.property == "cuda" ? host.cuda : f.property == "arch" ? host.arch : "";
  std::vector<uint64_t> a, b;
  if (have.empty() || !ValidSemver(have, &a) || !ValidSemver(f.value, &b)) {
    why = "failed to evaluate " + f.Text() + ": " + f.property + " is not set";
    return false;
  }
  int c = a < b ? -1 : (a > b ? 1 : 0);
  bool ok = f.op == "=" ? c == 0 : f.op == "!=" ? c != 0 : f.op == "<" ? c < 0 : f.op == "<=" ? c <= 0 : f.op == ">" ? c > 0 : c >= 0;
  if (!ok) why = "unsatisfied condition: " + f.Text() + " (" + f.property + "=" + have + ")";
  return ok;
}

}  // namespace

Result<std::string> ParseRequirementGo(std::string_view requirement) {
  auto expr = ParseGo(requirement);
  if (!expr.ok()) return expr.error();
  return Render(*expr);
}

RequirementResult EvaluateRequirementGo(std::string_view requirement, const GoRequirementHost& host) {
  RequirementResult result;
  auto expr = ParseGo(requirement);
  if (!expr.ok()) {
    result.satisfied = false;
    result.invalid = true;
    result.requirement = std::string(requirement);
    result.message = "requirements not met: " + expr.error().message;
    return result;
  }
  if (expr->empty()) return result;  // nil constraint: nothing to check
  std::string why;
  for (const GoTerm& term : *expr) {
    bool all = true;
    for (const GoFactor& f : term)
      if (!AssertFactor(f, host, why)) {
        all = false;
        break;
      }
    if (all) return result;
  }
  result.satisfied = false;
  result.requirement = std::string(requirement);
  if (expr->size() == 1) {
    result.message = "requirements not met: " + why;
  } else {
    std::string joined;
    for (const GoTerm& term : *expr) {
      std::string t;
      for (const GoFactor& f : term) t += (t.empty() ? "" : "&&") + f.Text();
      joined += (joined.empty() ? "" : "||") + t;
    }
    result.message = "requirements not met: " + joined + " not met";
  }
  return result;
}

namespace {
std::map<std::string, std::string> Env(const json& env) {
  json facts = {{"env", env}};
  return internal::ImageEnv(facts);
}
}  // namespace

std::optional<std::vector<std::string>> VisibleDevices(const nlohmann::json& env_json) {
  auto env = Env(env_json);
  auto it = env.find("NVIDIA_VISIBLE_DEVICES");
  bool legacy = env.count("CUDA_VERSION") && !env["CUDA_VERSION"].empty() &&
                (!env.count("NVIDIA_REQUIRE_CUDA") || env["NVIDIA_REQUIRE_CUDA"].empty());
  if (it == env.end()) {
    if (legacy) return std::vector<std::string>{"all"};
    return std::nullopt;
  }
  if (it->second.empty() || it->second == "void") return std::nullopt;
  if (it->second == "none") return std::vector<std::string>{""};
  std::vector<std::string> out;
  for (const auto& item : SplitOn(it->second, ',')) {
    std::string trimmed = Trim(item);
    if (trimmed == "all") return std::vector<std::string>{"all"};
    if (!trimmed.empty()) out.push_back(trimmed);
  }
  return out;
}

Result<std::vector<std::string>> DriverCapabilities(const nlohmann::json& env_json,
                                                    const std::vector<std::string>& supported) {
  auto env = Env(env_json);
  std::vector<std::string> sorted_supported = supported;
  std::sort(sorted_supported.begin(), sorted_supported.end());
  bool legacy = env.count("CUDA_VERSION") && !env["CUDA_VERSION"].empty() &&
                (!env.count("NVIDIA_REQUIRE_CUDA") || env["NVIDIA_REQUIRE_CUDA"].empty());
  auto it = env.find("NVIDIA_DRIVER_CAPABILITIES");
  if (it == env.end() && legacy) return sorted_supported;
  std::vector<std::string> wanted;
  bool explicit_value = it != env.end() && !it->second.empty();
  if (!explicit_value) {
    wanted = {"compute", "utility"};
  } else {
    for (const auto& item : SplitOn(it->second, ',')) {
      std::string trimmed = Trim(item);
      if (trimmed == "all") return sorted_supported;
      if (!trimmed.empty()) wanted.push_back(trimmed);
    }
  }
  std::vector<std::string> out;
  for (const auto& cap : wanted) {
    bool ok = std::find(supported.begin(), supported.end(), cap) != supported.end();
    if (!ok && explicit_value)
      return MakeError("NVIDIA_DRIVER_CAPABILITIES", "unsupported capabilities found in '" + it->second + "'");
    if (ok && std::find(out.begin(), out.end(), cap) == out.end()) out.push_back(cap);
  }
  if (!explicit_value && out.empty())
    return MakeError("NVIDIA_DRIVER_CAPABILITIES", "unsupported capabilities found in 'compute,utility'");
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace imagelint::nvidia
