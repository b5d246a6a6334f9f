// `imagelint rules`: the rule set that would run (built-in rules, --rules
// files, severity overrides and disabled rules from the config and flags).

#include "cli/command.h"
#include "cli/options.h"
#include "imagelint/report.h"

namespace imagelint::cli {
namespace {

struct RulesArgs {
  config::CommandLineOptions options;
  std::string format = "text";
};

RunFunction SetupRules(CLI::App& app) {
  auto args = std::make_shared<RulesArgs>();
  AddConfigFlags(app, args->options);
  app.add_option("-f,--format", args->format, "text (default: id, severity, scope, one-line summary), json or markdown")
      ->check(CLI::IsMember({"text", "json", "markdown"}));
  app.footer("Example: imagelint rules --severity IL010=error --format markdown");
  return [args](const Environment& environment) -> int {
    auto config = CommandConfig(environment, args->options);
    if (!config.ok()) return ReportToolError(config.error());
    auto rules = ListRules(config->rule_files, config->overrides, environment.MakeContext());
    if (!rules.ok()) return ReportToolError(rules.error());
    auto format = report::ParseFormat(args->format);
    if (!format.ok()) return ReportToolError(format.error());
    return PrintText(report::RenderRuleList(*rules, *format));
  };
}

CommandRegistration rules_registration({"rules", "list the rules with their severity and a one-line summary", SetupRules, 60});

}  // namespace
}  // namespace imagelint::cli
