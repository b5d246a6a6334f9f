// `imagelint rules`: the rule set that would run (built-in rules, --rules
// files, severity overrides and disabled rules from the config and flags).
#include <iostream>

#include "cli/command.h"
#include "config/cli_options.h"
#include "imagelint/report.h"
#include "imagelint/rules.h"

namespace imagelint::cli {
namespace {

struct RulesArgs {
  config::CommandLineOptions options;
  std::string format = "text";
};

std::string Fit(const std::string& text, size_t width) {
  if (text.size() <= width) return text;
  return text.substr(0, width - 3) + "...";
}

std::string Pad(const std::string& text, size_t width) {
  return text.size() >= width ? text : text + std::string(width - text.size(), ' ');
}

RunFunction SetupRules(CLI::App& app) {
  auto args = std::make_shared<RulesArgs>();
  config::AddConfigFlags(app, args->options);
  app.add_option("--format", args->format, "text (default: id, severity, scope, one-line summary), json or markdown")
      ->check(CLI::IsMember({"text", "json", "markdown"}));
  app.footer("Example: imagelint rules --severity IL010=error --format markdown");
  return [args]() -> int {
    auto settings = config::ResolveConfig(args->options);
    if (!settings.ok()) return ReportToolError(settings.error());
    auto rule_set = rules::LoadRuleSet(settings->config.rule_files);
    if (!rule_set.ok()) return ReportToolError(rule_set.error());
    auto status = rule_set->ApplyOverrides(settings->config.overrides);
    if (!status.ok()) return ReportToolError(status.error());
    auto infos = rule_set->List();
    if (args->format == "json") {
      nlohmann::json list = nlohmann::json::array();
      for (const auto& info : infos) {
        list.push_back({{"id", info.id},
                        {"name", info.name},
                        {"title", info.title},
                        {"summary", info.summary},
                        {"severity", std::string(report::SeverityLabel(info.severity))},
                        {"scope", info.scope == rules::Scope::kImage ? "image" : "pool"},
                        {"enabled", info.enabled},
                        {"docs", info.docs},
                        {"file", info.file}});
      }
      std::cout << list.dump(2) << "\n";
      return kExitOk;
    }
    if (args->format == "markdown") {
      std::cout << "| Rule | Name | Severity | Scope | Summary |\n|---|---|---|---|---|\n";
      for (const auto& info : infos) {
        std::string severity = info.enabled ? std::string(report::SeverityLabel(info.severity)) : "off";
        std::string title = info.title;
        for (char& c : title) {
          if (c == '|') c = '/';
        }
        std::cout << "| [" << info.id << "](" << (info.docs.empty() ? "docs/rules/" + info.id + ".md" : info.docs)
                  << ") | " << info.name << " | " << severity << " | "
                  << (info.scope == rules::Scope::kImage ? "image" : "pool") << " | " << title << " |\n";
      }
      return kExitOk;
    }
    size_t id_width = 5;
    for (const auto& info : infos) id_width = std::max(id_width, info.id.size());
    std::cout << Pad("ID", id_width) << "  SEVERITY  SCOPE  SUMMARY\n";
    for (const auto& info : infos) {
      std::string severity = info.enabled ? std::string(report::SeverityLabel(info.severity)) : "off";
      std::string line = Pad(info.id, id_width) + "  " + Pad(severity, 8) + "  " +
                         Pad(info.scope == rules::Scope::kImage ? "image" : "pool", 5) + "  ";
      std::string title = info.title.empty() ? info.name : info.title;
      std::cout << line << Fit(title, line.size() < 80 ? 80 - line.size() : 20) << "\n";
    }
    std::cout << "\n" << infos.size() << " rules; `imagelint explain RULE` shows a rule's documentation.\n";
    return kExitOk;
  };
}

CommandRegistration registration({"rules", "list the rules with their severity and a one-line summary", SetupRules, 60});

}  // namespace
}  // namespace imagelint::cli
