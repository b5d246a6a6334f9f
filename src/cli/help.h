// --help grouped by task: the flags most runs need first, then one group per
// kind of work (report, rules, images and registries, Dockerfile inputs,
// cache, limits), in the same order for every command.
#pragma once

#include <CLI/CLI.hpp>

namespace imagelint::cli {

// Puts every option of `app` and its subcommands in its task group (help.cpp)
// and gives them the formatter that prints the groups in that order.
void GroupHelp(CLI::App& app);

}  // namespace imagelint::cli
