// `imagelint explain RULE`: prints the rule's documentation page
// (docs/rules/<ID>.md), found by id or name.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "cli/command.h"
#include "config/cli_options.h"
#include "imagelint/report.h"
#include "imagelint/rules.h"

namespace imagelint::cli {
namespace {

namespace fs = std::filesystem;

struct ExplainArgs {
  config::CommandLineOptions options;
  std::string rule;
};

// The docs page: the installed/checkout docs directory first, then the
// rule's `docs` path relative to its rule file's directory and its parent
// (user rule files keep their pages beside them).
std::optional<std::string> FindDocsPage(const rules::RuleInfo& info) {
  std::vector<fs::path> candidates = {fs::path(report::DocsDir()) / "rules" / (info.id + ".md")};
  if (!info.docs.empty()) {
    fs::path docs(info.docs);
    if (docs.is_absolute()) {
      candidates.push_back(docs);
    } else if (!info.file.empty()) {
      fs::path dir = fs::path(info.file).parent_path();
      candidates.push_back(dir / docs);
      candidates.push_back(dir.parent_path() / docs);
    }
  }
  std::error_code ec;
  for (const auto& candidate : candidates) {
    if (fs::is_regular_file(candidate, ec)) return candidate.string();
  }
  return std::nullopt;
}

RunFunction SetupExplain(CLI::App& app) {
  auto args = std::make_shared<ExplainArgs>();
  app.add_option("RULE", args->rule, "rule id or name, e.g. IL003 or forward-compat-unsupported-gpu")->required();
  config::AddConfigFlags(app, args->options);
  app.footer("Example: imagelint explain IL003 | less");
  return [args]() -> int {
    auto settings = config::ResolveConfig(args->options);
    if (!settings.ok()) return ReportToolError(settings.error());
    auto rule_set = rules::LoadRuleSet(settings->config.rule_files);
    if (!rule_set.ok()) return ReportToolError(rule_set.error());
    std::string wanted = args->rule;
    for (char& c : wanted) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    const rules::RuleInfo* found = nullptr;
    auto infos = rule_set->List();
    for (const auto& info : infos) {
      if (info.id == args->rule || info.id == wanted || info.name == args->rule) found = &info;
    }
    if (!found)
      return ReportToolError(MakeError(args->rule, "no such rule; `imagelint rules` lists them"));
    auto page = FindDocsPage(*found);
    if (!page)
      return ReportToolError(MakeError(found->id, "no documentation page (expected docs/rules/" + found->id + ".md)"));
    std::ifstream in(*page, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    if (!in && !in.eof()) return ReportToolError(MakeError(*page, "cannot read"));
    std::cout << text.str();
    if (!text.str().empty() && text.str().back() != '\n') std::cout << "\n";
    return kExitOk;
  };
}

CommandRegistration registration({"explain", "print the documentation of a rule", SetupExplain, 70});

}  // namespace
}  // namespace imagelint::cli
