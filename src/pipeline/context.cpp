// The host's side of the library (Context) and the value parsers of flags.
#include "imagelint/read_image.h"
#include "imagelint/knowledge.h"
#include "imagelint/pipeline.h"

namespace imagelint {

Context Context::ForDataDirectory(const std::filesystem::path& data_dir) {
  Context context;
  context.rules_dir = rules::BuiltinRulesDir(data_dir);
  context.knowledge_dir = Knowledge::DefaultDirectory(data_dir);
  context.docs_dir = data_dir / "docs";
  return context;
}

std::string FormatSize(uint64_t bytes) { return HumanBytes(bytes); }

Result<int64_t> ParseDuration(const std::string& text) {
  size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
  if (digits == 0 || digits > 9) return MakeError("", "expected a duration such as 30d, 12h, 90m or 45s");
  int64_t value = std::stoll(text.substr(0, digits));
  std::string unit = text.substr(digits);
  if (unit.empty() || unit == "s") return value;
  if (unit == "m") return value * 60;
  if (unit == "h") return value * 3600;
  if (unit == "d") return value * 86400;
  return MakeError("", "unknown unit \"" + unit + "\" (use s, m, h or d)");
}

}  // namespace imagelint
