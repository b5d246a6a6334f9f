// The output of the commands that are not scans: rule lists, cache usage and
// fleet imports.
#include <algorithm>

#include "common/bytes_text.h"
#include "imagelint/pipeline.h"
#include "imagelint/report.h"

namespace imagelint::report {

using nlohmann::json;

namespace {

std::string FitWithDots(const std::string& text, size_t width) {
  if (text.size() <= width) return text;
  return text.substr(0, width - 3) + "...";
}

std::string PadTo(const std::string& text, size_t width) {
  return text.size() >= width ? text : text + std::string(width - text.size(), ' ');
}

std::string SeverityOrOff(const rules::RuleInfo& info) {
  return info.enabled ? std::string(rules::SeverityName(info.severity)) : "off";
}

json UsageJson(const CacheUsage& usage) {
  return {{"layers", usage.layers},
          {"layer_bytes", usage.layer_bytes},
          {"verified_blobs", usage.memo_entries},
          {"verified_blob_bytes", usage.memo_bytes},
          {"stale_temporaries", usage.stale_temporaries},
          {"total_bytes", usage.TotalBytes()}};
}

std::string UsageText(const CacheUsage& usage) {
  return std::to_string(usage.layers) + " layers (" + FormatSize(usage.layer_bytes) + "), " +
         std::to_string(usage.memo_entries) + " verified-blob stamps (" + FormatSize(usage.memo_bytes) +
         "), total " + FormatSize(usage.TotalBytes());
}

Status TextOrJson(Format format, const char* what) {
  if (format == Format::kText || format == Format::kJson) return OkStatus();
  return MakeError("--format", std::string(what) + " is written as text or json, not " + std::string(FormatName(format)));
}

}  // namespace

Result<std::string> RenderRuleList(const std::vector<rules::RuleInfo>& infos, Format format) {
  std::string out;
  if (format == Format::kJson) {
    json list = json::array();
    for (const auto& info : infos) {
      json row = rules::RuleInfoToJson(info);
      row["file"] = info.file;
      list.push_back(std::move(row));
    }
    return WriteJson(list, 2) + "\n";
  }
  if (format == Format::kMarkdown) {
    out = "| Rule | Name | Severity | Scope | Summary |\n|---|---|---|---|---|\n";
    for (const auto& info : infos) {
      std::string title = info.title;
      std::replace(title.begin(), title.end(), '|', '/');
      out += "| [" + info.id + "](" + (info.docs.empty() ? "docs/rules/" + info.id + ".md" : info.docs) + ") | " +
             info.name + " | " + SeverityOrOff(info) + " | " + std::string(rules::ScopeName(info.scope)) + " | " +
             title + " |\n";
    }
    return out;
  }
  if (format != Format::kText)
    return MakeError("--format", "rules are listed as text, json or markdown, not " + std::string(FormatName(format)));
  size_t id_width = 5;
  for (const auto& info : infos) id_width = std::max(id_width, info.id.size());
  out = PadTo("ID", id_width) + "  SEVERITY  SCOPE  SUMMARY\n";
  for (const auto& info : infos) {
    std::string line = PadTo(info.id, id_width) + "  " + PadTo(SeverityOrOff(info), 8) + "  " +
                       PadTo(std::string(rules::ScopeName(info.scope)), 5) + "  ";
    std::string title = info.title.empty() ? info.name : info.title;
    out += line + FitWithDots(title, line.size() < 80 ? 80 - line.size() : 20) + "\n";
  }
  out += "\n" + std::to_string(infos.size()) + " rules; `imagelint explain RULE` shows a rule's documentation.\n";
  return out;
}

Result<std::string> RenderCacheUsage(const std::string& directory, const CacheUsage& usage, Format format) {
  IMAGELINT_TRY(TextOrJson(format, "cache usage"));
  if (format == Format::kJson) {
    json out = UsageJson(usage);
    out["directory"] = directory;
    return WriteJson(out, 2) + "\n";
  }
  return directory + ": " + UsageText(usage) + "\n";
}

Result<std::string> RenderCachePrune(const std::string& directory, const PruneResult& pruned, Format format) {
  IMAGELINT_TRY(TextOrJson(format, "a cache prune"));
  if (format == Format::kJson) {
    json out = {{"directory", directory},
                {"before", UsageJson(pruned.before)},
                {"after", UsageJson(pruned.after)},
                {"removed",
                 {{"layers", pruned.layers_removed},
                  {"verified_blobs", pruned.memo_entries_removed},
                  {"temporaries", pruned.temporaries_removed}}}};
    return WriteJson(out, 2) + "\n";
  }
  return directory + ": removed " + std::to_string(pruned.layers_removed) + " layers, " +
         std::to_string(pruned.memo_entries_removed) + " verified-blob stamps, " +
         std::to_string(pruned.temporaries_removed) + " stale temporary files\n" + "  before: " +
         UsageText(pruned.before) + "\n" + "  after:  " + UsageText(pruned.after) + "\n";
}

std::string FleetImportSummary(const fleet_import::ImportResult& r) {
  const char* unit = r.kind == fleet_import::InputKind::kKubernetesNodes ? "node" : "host";
  return "imported " + std::to_string(r.pools.size()) + " pool" + (r.pools.size() == 1 ? "" : "s") + " from " +
         std::to_string(r.hosts_seen) + " " + unit + (r.hosts_seen == 1 ? "" : "s") + " of " + r.source + "; " +
         std::to_string(r.skipped.size()) + " without GPU information skipped";
}

}  // namespace imagelint::report
