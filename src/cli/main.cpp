// The imagelint command line: parse options, call the library, map errors to
// exit codes. Nothing else lives here; see command.h for the subcommands.
#include <malloc.h>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <iostream>

#include "cli/arguments.h"
#include "common/bytes_text.h"
#include "cli/command.h"
#include "cli/help.h"
#include "cli/version.h"

namespace imagelint::cli {

std::vector<CommandSpec>& CommandTable() {
  static std::vector<CommandSpec> table;
  return table;
}

int ReportToolError(const Error& error) {
  // One line, whatever names the message quotes (a line feed in a name must
  // not start a line such as "::error::" in a CI log).
  std::cerr << "imagelint: " << DisplayText(error.ToString()) << "\n";
  return kExitToolError;
}

int PrintText(const Result<std::string>& text) {
  if (!text.ok()) return ReportToolError(text.error());
  std::cout << *text;
  return kExitOk;
}

namespace {

int Main(int argc, char** argv) {
  const Environment environment = Environment::FromProcess(argc > 0 ? argv[0] : nullptr);
  CLI::App app{
      "imagelint: will this CUDA container image run on our GPU fleet?\n"
      "Reads images statically (tarball, OCI layout, registry, rootfs or Dockerfile) and predicts,\n"
      "per pool of hosts, the CUDA failure users would meet, with the fix.",
      "imagelint"};
  app.failure_message(FailureMessage);  // before the subcommands, which copy it
  app.set_version_flag("-V,--version", [&environment] { return VersionText(environment); },
                       "print the version, the commit, the knowledge tables' revision and where the data is");
  app.require_subcommand(0, 1);
  app.footer(
      "Exit codes: 0 nothing at or above --fail-on, 1 findings at or above it,\n"
      "            2 imagelint could not do its job (bad input, fleet or rule file, network).\n"
      "Run `imagelint COMMAND --help` for the options of each command.");

  auto& table = CommandTable();
  std::stable_sort(table.begin(), table.end(),
                   [](const CommandSpec& a, const CommandSpec& b) { return a.order < b.order; });
  std::vector<CLI::App*> subcommands;
  for (const auto& spec : table) subcommands.push_back(app.add_subcommand(spec.name, spec.summary));

  // `imagelint IMAGE...` is a scan; near misses of commands and flags get
  // "did you mean" before CLI11 sees them.
  CommandLine line = ResolveCommand(app, std::vector<std::string>(argv + 1, argv + argc));
  if (line.error) {
    std::cerr << *line.error << "\n";
    return kExitToolError;
  }
  // Only the command this run invokes gets its options (building every
  // command's was a tenth of a Dockerfile check); the root's help, the shell
  // completion scripts and anything else still see every command's.
  const CLI::App* invoked = nullptr;
  for (const CLI::App* sub : subcommands)
    if (!line.args.empty() && sub->get_name() == line.args.front()) invoked = sub;
  const bool one = invoked != nullptr && invoked->get_name() != "completion";
  std::vector<std::pair<CLI::App*, RunFunction>> commands;
  for (size_t i = 0; i < table.size(); ++i)
    if (!one || subcommands[i] == invoked) commands.emplace_back(subcommands[i], table[i].setup(*subcommands[i]));
  OneValuePerFlag(app);
  GroupHelp(app);
  if (auto unknown = CheckFlags(app, line.args)) {
    std::cerr << *unknown << "\n";
    return kExitToolError;
  }
  std::vector<std::string> args = std::move(line.args);
  std::reverse(args.begin(), args.end());  // CLI11 takes the vector reversed
  try {
    app.parse(args);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);  // prints help/version or the parse error
    return code == 0 ? kExitOk : kExitToolError;
  }
  for (auto& [sub, run] : commands) {
    if (sub->parsed()) return run(environment);
  }
  std::cout << app.help();
  return kExitToolError;
}

}  // namespace
}  // namespace imagelint::cli

int main(int argc, char** argv) {
  // No glibc fastbins: a report is a tree of many small JSON nodes, and every
  // free of a large block (a vector of findings, a string buffer) makes glibc
  // walk all fastbins to consolidate them. On a 10,000-pool fleet that walk
  // was a quarter of the run (perf: malloc_consolidate); an ordinary image
  // scans in the same time either way.
  mallopt(M_MXFAST, 0);
  try {
    return imagelint::cli::Main(argc, argv);
  } catch (const std::exception& e) {
    // A bug, not a verdict: never let it look like a pass.
    std::fprintf(stderr, "imagelint: internal error: %s\n", e.what());
    return imagelint::cli::kExitToolError;
  } catch (...) {
    std::fprintf(stderr, "imagelint: internal error\n");
    return imagelint::cli::kExitToolError;
  }
}
