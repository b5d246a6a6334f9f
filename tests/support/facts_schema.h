// Validates facts documents against docs/facts-schema.json with Python's
// jsonschema (Debian: python3-jsonschema), through
// tests/support/validate_json_schema.py. Without python3 or the module the
// check skips on a developer machine and FAILS in CI (NeedExternal).
//
//   CheckFactsSchema({{"example.tar", facts}});   // one CHECK per call
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "support/test_support.h"

namespace imagelint::testing {

// Every document, named by its label in messages; one Python run for all.
inline void CheckFactsSchema(const std::vector<std::pair<std::string, nlohmann::json>>& documents) {
  if (!NeedExternal("python3", HaveProgram("python3"), "validates facts against docs/facts-schema.json")) return;
  TempDir dir;
  std::vector<std::string> argv = {"python3", (SourceDir() / "tests/support/validate_json_schema.py").string(),
                                   (SourceDir() / "docs/facts-schema.json").string()};
  for (size_t i = 0; i < documents.size(); ++i) {
    std::string name = std::to_string(i) + ".json";
    WriteFileText(dir / name, documents[i].second.dump(2));
    argv.push_back((dir / name).string());
  }
  CommandResult result = RunCommand(argv);
  if (result.exit_code == 3) {
    NeedExternal("python3-jsonschema", false, "validates facts against docs/facts-schema.json: " + result.err);
    return;
  }
  std::string report = result.out + result.err;
  for (size_t i = 0; i < documents.size(); ++i) {
    std::string name = (dir / (std::to_string(i) + ".json")).string();
    for (size_t at = report.find(name); at != std::string::npos; at = report.find(name, at))
      report.replace(at, name.size(), documents[i].first);
  }
  INFO(report);
  CHECK(result.exit_code == 0);
}

inline void CheckFactsSchema(const std::string& label, const nlohmann::json& facts) {
  CheckFactsSchema({{label, facts}});
}

}  // namespace imagelint::testing
