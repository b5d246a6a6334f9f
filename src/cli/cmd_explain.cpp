// `imagelint explain RULE`: prints the rule's documentation page
// (docs/rules/<ID>.md), found by id or name.
#include <iostream>

#include "cli/command.h"
#include "cli/options.h"

namespace imagelint::cli {
namespace {

struct ExplainArgs {
  config::CommandLineOptions options;
  std::string rule;
};

RunFunction SetupExplain(CLI::App& app) {
  auto args = std::make_shared<ExplainArgs>();
  app.add_option("RULE", args->rule, "rule id or name, e.g. IL003 or forward-compat-unsupported-gpu")->required();
  AddConfigFlags(app, args->options);
  app.footer("Example: imagelint explain IL003 | less");
  return [args](const Environment& environment) -> int {
    auto config = CommandConfig(environment, args->options);
    if (!config.ok()) return ReportToolError(config.error());
    auto docs = ExplainRule(args->rule, config->rule_files, environment.MakeContext());
    if (!docs.ok()) return ReportToolError(docs.error());
    std::cout << docs->text;
    if (!docs->text.empty() && docs->text.back() != '\n') std::cout << "\n";
    return kExitOk;
  };
}

CommandRegistration explain_registration({"explain", "print the documentation of a rule", SetupExplain, 70});

}  // namespace
}  // namespace imagelint::cli
