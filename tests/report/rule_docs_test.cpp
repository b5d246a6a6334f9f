// One rule = one docs page: every rule in rules/*.yaml has docs/rules/<ID>.md
// (and the `docs:` path it declares exists), and every page names a rule.
#include <filesystem>
#include <map>
#include <set>

#include <doctest/doctest.h>
#include <yaml-cpp/yaml.h>

#include "support/test_support.h"

namespace imagelint {
namespace {

namespace fs = std::filesystem;

struct RuleEntry {
  std::string file;
  std::string docs;
};

std::map<std::string, RuleEntry> BuiltinRules() {
  std::map<std::string, RuleEntry> rules;
  fs::path dir = testing::SourceDir() / "rules";
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (!entry.is_regular_file() || entry.path().extension() != ".yaml") continue;
    YAML::Node root = YAML::LoadFile(entry.path().string());
    REQUIRE_MESSAGE(root["rules"].IsSequence(), entry.path().string());
    for (const auto& rule : root["rules"]) {
      REQUIRE_MESSAGE(rule["id"].IsScalar(), entry.path().string());
      std::string id = rule["id"].as<std::string>();
      CHECK_MESSAGE(!rules.count(id), ("duplicate rule id " + id));
      rules[id] = {entry.path().filename().string(), rule["docs"] ? rule["docs"].as<std::string>() : ""};
    }
  }
  return rules;
}

TEST_CASE("every rule has a docs page, every docs page names a rule") {
  auto rules = BuiltinRules();
  REQUIRE_FALSE(rules.empty());
  fs::path docs_dir = testing::SourceDir() / "docs" / "rules";
  for (const auto& [id, entry] : rules) {
    fs::path page = docs_dir / (id + ".md");
    CHECK_MESSAGE(fs::is_regular_file(page), (id + " (" + entry.file + ") has no docs page " + page.string()));
    if (!entry.docs.empty())
      CHECK_MESSAGE(fs::is_regular_file(testing::SourceDir() / entry.docs),
                    (id + ": its docs path " + entry.docs + " does not exist"));
    if (fs::is_regular_file(page)) {
      std::string text = testing::ReadFileText(page);
      CHECK_MESSAGE(text.find(id) != std::string::npos, (page.string() + " never mentions " + id));
    }
  }
  std::set<std::string> pages;
  if (fs::is_directory(docs_dir)) {
    for (const auto& entry : fs::directory_iterator(docs_dir)) {
      if (entry.path().extension() != ".md") continue;
      std::string stem = entry.path().stem().string();
      pages.insert(stem);
      CHECK_MESSAGE(rules.count(stem), (entry.path().string() + " names no rule in rules/*.yaml"));
    }
  }
  CHECK(pages.size() >= rules.size());
}

}  // namespace
}  // namespace imagelint
