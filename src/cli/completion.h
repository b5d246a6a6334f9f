// Shell completion (bash, zsh, fish) and the man page, generated from the
// same CLI11 declarations the command line parses with: every command and
// flag that parses is completed and documented, nothing else.
//
//   imagelint completion bash > /usr/share/bash-completion/completions/imagelint
//   imagelint completion zsh  > /usr/share/zsh/site-functions/_imagelint
//   imagelint completion fish > /usr/share/fish/vendor_completions.d/imagelint.fish
//   imagelint completion man  > /usr/share/man/man1/imagelint.1
//
// The build runs these and `cmake --install` installs the results.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

namespace imagelint::cli {

std::string BashCompletion(const CLI::App& root);
std::string ZshCompletion(const CLI::App& root);
std::string FishCompletion(const CLI::App& root);
// groff man(7) source of imagelint(1).
std::string ManPage(const CLI::App& root);

}  // namespace imagelint::cli
