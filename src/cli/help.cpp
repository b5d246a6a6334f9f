// The groups of --help. CLI11 prints option groups in the order their first
// option was declared, which follows how the commands are put together, not
// what a reader looks for; this formatter prints them in the order below.
#include "cli/help.h"

#include <algorithm>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace imagelint::cli {
namespace {

struct HelpGroup {
  const char* title;
  std::vector<const char*> flags;  // long names without the dashes
};

const std::vector<HelpGroup>& Groups() {
  static const std::vector<HelpGroup> groups = {
      {"Options most runs need", {"fleet", "format", "output", "fail-on", "config"}},
      {"Report",
       {"min-severity", "fail-on-undecided", "ignore", "no-inline-ignores", "docs-url", "color", "no-color", "baseline",
        "fail-on-new", "quiet", "no-progress"}},
      {"Rules", {"rules", "severity", "disable", "no-config"}},
      {"Images and registries",
       {"platform", "image", "rootfs", "images-from", "all-tags", "tags", "image-jobs", "image-src", "username",
        "password-stdin", "insecure-registry", "ca-file", "connect-to"}},
      {"Dockerfile inputs", {"dockerfile", "build-arg", "target", "build-platform", "base-from", "base-image", "base-timeout"}},
      {"Cache", {"cache-dir", "no-cache", "cache-backend", "cache-ttl", "redis-ca", "redis-cert", "redis-key"}},
      {"Limits and verification",
       {"no-verify", "verify-diff-ids", "max-layer-bytes", "jobs", "timeout", "max-memory"}},
  };
  return groups;
}

constexpr const char* kOther = "Other options";

std::string GroupOf(const CLI::Option& option) {
  for (const HelpGroup& group : Groups())
    for (const std::string& name : option.get_lnames())
      if (std::find(group.flags.begin(), group.flags.end(), name) != group.flags.end()) return group.title;
  return kOther;
}

class TaskFormatter : public CLI::Formatter {
 public:
  std::string make_help(const CLI::App* app, std::string name, CLI::AppFormatMode mode) const override {
    if (mode == CLI::AppFormatMode::Sub) return make_expanded(app);
    std::ostringstream out;
    out << make_description(app) << make_usage(app, name) << make_positionals(app);
    std::vector<std::string> titles;
    for (const HelpGroup& group : Groups()) titles.push_back(group.title);
    titles.push_back(kOther);
    for (const std::string& title : titles) {
      auto options = app->get_options([&title](const CLI::Option* option) {
        return option->get_group() == title && option->nonpositional();
      });
      if (!options.empty()) out << make_group(title, false, options);
    }
    out << make_subcommands(app, mode) << '\n' << make_footer(app);
    return out.str();
  }
};

}  // namespace

void GroupHelp(CLI::App& app) {
  static const auto formatter = std::make_shared<TaskFormatter>();
  app.formatter(formatter);
  for (CLI::Option* option : app.get_options()) {
    if (!option->get_positional()) option->group(GroupOf(*option));
  }
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) GroupHelp(*sub);
}

}  // namespace imagelint::cli
