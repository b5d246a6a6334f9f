// Unknown commands and flags answered with the closest match.
#include "cli/arguments.h"

#include <sys/stat.h>

#include "common/text.h"
#include "imagelint/source.h"

namespace imagelint::cli {
namespace {

std::vector<const CLI::App*> Subcommands(const CLI::App& app) {
  return app.get_subcommands([](const CLI::App*) { return true; });
}

const CLI::App* FindSubcommand(const CLI::App& app, const std::string& name) {
  for (const CLI::App* sub : Subcommands(app)) {
    if (sub->get_name() == name) return sub;
  }
  return nullptr;
}

// "imagelint fleet import" -> "fleet import".
std::string CommandPath(const CLI::App* app) {
  std::string path;
  for (; app && app->get_parent(); app = app->get_parent()) path = app->get_name() + (path.empty() ? "" : " " + path);
  return path;
}

std::vector<std::string> FlagNames(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::Option* option : app.get_options()) {
    for (const std::string& name : option->get_lnames()) names.push_back("--" + name);
    for (const std::string& name : option->get_snames()) names.push_back("-" + name);
  }
  return names;
}

bool TakesValue(const CLI::Option& option) { return option.get_type_size_max() > 0 && option.get_expected_max() != 0; }

bool Exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

// A word a person typed as a command rather than an image name: no path,
// tag, digest or registry syntax.
bool PlainWord(const std::string& word) {
  return word.find_first_of("/:@.") == std::string::npos && !Exists(word) && !LooksLikeLocalPath(word);
}

}  // namespace

CommandLine ResolveCommand(const CLI::App& root, std::vector<std::string> args) {
  if (args.empty()) return {args, std::nullopt};
  const std::string first = args.front();
  if (first == "help") {  // `imagelint help [COMMAND]`
    args.erase(args.begin());
    if (!args.empty() && !FindSubcommand(root, args.front())) args.resize(0);
    if (args.size() > 1) args.resize(1);
    args.push_back("--help");
    return {args, std::nullopt};
  }
  if (FindSubcommand(root, first) || first.starts_with("-")) {
    bool global = first == "-h" || first == "--help" || first == "--version" || first == "-V";
    if (!FindSubcommand(root, first) && !global && FindSubcommand(root, "scan")) args.insert(args.begin(), "scan");
    return {args, std::nullopt};
  }
  if (PlainWord(first)) {
    std::vector<std::string> names;
    for (const CLI::App* sub : Subcommands(root)) {
      if (!sub->get_group().empty()) names.push_back(sub->get_name());
    }
    names.push_back("help");
    std::string hint = ClosestMatch(first, names, 2);
    if (!hint.empty()) {
      return {args, "imagelint: unknown command '" + first + "' (did you mean '" + hint +
                        "'?); to scan an image of that name, write docker.io/library/" + first};
    }
  }
  if (FindSubcommand(root, "scan")) args.insert(args.begin(), "scan");
  return {args, std::nullopt};
}

std::optional<std::string> CheckFlags(const CLI::App& root, const std::vector<std::string>& args) {
  const CLI::App* app = &root;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& token = args[i];
    if (token == "--") break;
    if (token.size() < 2 || token[0] != '-') {
      if (const CLI::App* sub = FindSubcommand(*app, token)) {
        app = sub;
      } else if (app->get_require_subcommand_min() > 0 && app->get_parent()) {  // `imagelint fleet impot`
        std::vector<std::string> names;
        for (const CLI::App* sub : Subcommands(*app)) names.push_back(sub->get_name());
        std::string hint = ClosestMatch(token, names);
        return "imagelint: " + CommandPath(app) + ": unknown command '" + token + "'" +
               (hint.empty() ? "" : " (did you mean '" + hint + "'?)");
      }
      continue;
    }
    const bool long_form = token.starts_with("--");
    const std::string name = long_form ? token.substr(0, token.find('=')) : token.substr(0, 2);
    const CLI::Option* option = app->get_option_no_throw(name);
    if (!option) {
      std::string command = CommandPath(app);
      std::string hint = ClosestMatch(name, FlagNames(*app));
      std::string help = command.empty() ? "imagelint --help" : "imagelint " + command + " --help";
      return "imagelint: " + (command.empty() ? "" : command + ": ") + "unknown flag " + name +
             (hint.empty() ? "" : " (did you mean " + hint + "?)") + "; `" + help + "` lists the flags";
    }
    // "--fleet FILE", "-f json": the next token is the value; "--fleet=FILE", "-fjson" carry it.
    bool attached = long_form ? token.find('=') != std::string::npos : token.size() > 2;
    if (TakesValue(*option) && !attached) ++i;
  }
  return std::nullopt;
}

void OneValuePerFlag(CLI::App& app) {
  for (CLI::Option* option : app.get_options()) {
    if (!option->get_positional()) option->allow_extra_args(false);
  }
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) OneValuePerFlag(*sub);
}

std::string FailureMessage(const CLI::App* app, const CLI::Error& error) {
  // The root reports errors of the command that was being parsed.
  while (app && !app->get_subcommands().empty()) app = app->get_subcommands().front();
  std::string command = CommandPath(app);
  std::string message = "imagelint: " + (command.empty() ? "" : command + ": ") + error.what() + "\n";
  message += "Run `imagelint " + (command.empty() ? "" : command + " ") + "--help` for the options.\n";
  return message;
}

}  // namespace imagelint::cli
