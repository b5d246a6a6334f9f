// Loading YAML from files a user or a repository controls (fleet files, rule
// files, knowledge tables, .imagelint.yaml), with the work bounded before a
// node graph is built.
//
// yaml-cpp shares an aliased node instead of copying it, but every reader
// that walks the graph (and copies pool labels, rule fields...) expands each
// alias again: a 1 MB file whose anchored map is aliased 1,000 times becomes
// gigabytes ("billion laughs"). LoadYaml first streams the document's events
// and counts what its aliases expand to, refusing, with the line and column
// of the offending alias:
//   * more than `max_aliases` alias uses,
//   * aliases that together add more than `max_alias_nodes` nodes or
//     `max_alias_bytes` bytes of scalar text to the document,
//   * an alias inside the node it names (a cycle, which no reader can walk),
//   * nesting deeper than `max_depth` (readers recurse over the graph).
// The same idea as go-yaml v3's "document contains excessive aliasing" check
// (https://github.com/go-yaml/yaml/blob/v3/decode.go, allowedAliasRatio),
// with absolute limits that are easier to state.
//
//   auto root = LoadYaml(text, "fleet.yaml");   // Result<YAML::Node>
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "imagelint/result.h"

namespace imagelint {

struct YamlLimits {
  uint64_t max_aliases = 10000;
  uint64_t max_alias_nodes = 1000000;    // nodes that alias expansion adds, all aliases together
  uint64_t max_alias_bytes = 16u << 20;  // scalar bytes that alias expansion adds
  int max_depth = 64;                    // nested sequences / mappings
};

// Where the limit check may remember texts that passed it: a cache directory
// (files under <dir>/checked-yaml/). The check is a function of the text and
// the limits alone, and both are in the name of the file that records a
// pass, so a file read on every run (the rule file: the pre-pass is half of
// its parse) is checked once, and an edited or different text is checked
// again. An empty dir remembers nothing.
struct YamlCheckMemo {
  std::filesystem::path dir;
};

// Where `memo` keeps a record about `text` read under `limits`:
// <dir>/<folder>/<sha256 of `format`, the limits and the text>. `format`
// names what the record holds and its version (bump it to retire old ones).
std::filesystem::path YamlMemoRecord(const YamlCheckMemo& memo, std::string_view folder, std::string_view format,
                                     std::string_view text, const YamlLimits& limits);

// Parses the first document of `text` (an empty text is a null node).
// Errors: YAML syntax (line:column of `file`), and the limits above.
Result<YAML::Node> LoadYaml(std::string_view text, const std::string& file, const YamlLimits& limits = {},
                            const YamlCheckMemo& memo = {});

// Every document of a `---`-separated stream, the limits counted over all
// of them together.
Result<std::vector<YAML::Node>> LoadYamlDocuments(std::string_view text, const std::string& file,
                                                  const YamlLimits& limits = {});

// Only the limit check (LoadYaml runs it first).
Status CheckYamlLimits(std::string_view text, const std::string& file, const YamlLimits& limits = {});

// An error at `node`'s line and column in `file` (the file alone when the
// node has no mark, e.g. a node built in code).
Error ErrorAtNode(const std::string& file, const YAML::Node& node, const std::string& message);

}  // namespace imagelint
