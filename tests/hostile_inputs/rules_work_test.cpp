// Rule files whose every evaluation stays within its step limit, but which
// build gigabytes of values, render megabytes of message, or repeat a
// quadratic condition over every rule and pool: each ends within the
// campaign's bounds with exit 2 naming the rule file and the limit.
#include <doctest/doctest.h>

#include <cctype>

#include "hostile_inputs/hostile_support.h"

using namespace imagelint::testing;
namespace fs = std::filesystem;

namespace {

// A Dockerfile on a CUDA base and a fleet of seven pools: what the rules run over.
void WriteInputs(const TempDir& dir) {
  WriteFileText(dir / "Dockerfile", "FROM nvidia/cuda:12.4.1-runtime-ubuntu22.04\n");
  WriteFileText(dir / "fleet.yaml", ReadFileText(SourceDir() / "examples/fleet.yaml"));
}

// `let` bindings doubling a 16-byte string to 1 MiB (s16).
std::string DoublingLets() {
  std::string lets = "    let:\n      s0: \"'0123456789abcdef'\"\n";
  for (int i = 1; i <= 16; ++i)
    lets += "      s" + std::to_string(i) + ": s" + std::to_string(i - 1) + " + s" + std::to_string(i - 1) + "\n";
  return lets;
}

std::string Rule(const std::string& id, const std::string& body) {
  std::string name = "hostile-" + id;
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return "  - id: " + id + "\n    name: " + name + "\n    title: t\n    severity: warning\n    scope: pool\n" + body;
}

TimedResult Scan(const TempDir& dir, const std::string& rules) {
  WriteFileText(dir / "hostile-rules.yaml", "rules:\n" + rules);
  return RunBounded({"scan", (dir / "Dockerfile").string(), "--fleet", (dir / "fleet.yaml").string(), "--rules",
                     (dir / "hostile-rules.yaml").string(), "--no-cache"});
}

}  // namespace

TEST_CASE("a rule building a list of eighty 1 MiB strings: exit 2 at max_value_bytes, naming the rule file") {
  TempDir dir;
  WriteInputs(dir);
  std::string list = "[";
  for (int i = 0; i < 80; ++i) list += (i ? ", s16" : "s16");
  list += "]";
  auto run = Scan(dir, Rule("H1", DoublingLets() + "      big: \"" + list + "\"\n    condition: len(big) > 0\n" +
                                      "    message: m\n"));
  CAPTURE(run.result.err.substr(0, 2000));
  CHECK(run.result.exit_code == 2);
  CHECK(run.cpu_seconds < kHostileSeconds);
  CHECK(run.result.err.find("hostile-rules.yaml") != std::string::npos);
  CHECK(run.result.err.find("max_value_bytes") != std::string::npos);
}

TEST_CASE("a rule whose message renders 1 MiB: exit 2 at max_text_bytes") {
  TempDir dir;
  WriteInputs(dir);
  auto run = Scan(dir, Rule("H2", DoublingLets() + "    condition: true\n    message: \"{{ s16 }}\"\n"));
  CAPTURE(run.result.err.substr(0, 2000));
  CHECK(run.result.exit_code == 2);
  CHECK(run.cpu_seconds < kHostileSeconds);
  CHECK(run.result.err.find("hostile-rules.yaml") != std::string::npos);
  CHECK(run.result.err.find("max_text_bytes") != std::string::npos);
}

TEST_CASE("sixty rules, each a quadratic condition just under the step limit, on every pool: the run's budget") {
  TempDir dir;
  WriteInputs(dir);
  std::string numbers = "[";
  for (int i = 0; i < 1000; ++i) numbers += (i ? "," : "") + std::to_string(i);
  numbers += "]";
  std::string rules;
  for (int r = 0; r < 60; ++r)
    rules += Rule("Q" + std::to_string(r), "    let:\n      l: \"" + numbers + "\"\n" +
                                               "    condition: |\n      count(x in l: count(y in l: x == y) > 1) > 0\n" +
                                               "    message: m\n");
  auto run = Scan(dir, rules);
  CAPTURE(run.result.err.substr(0, 2000));
  CHECK(run.result.exit_code == 2);
  CHECK(run.cpu_seconds < kHostileSeconds);
  CHECK(run.result.err.find("evaluation steps in all") != std::string::npos);
  CHECK(run.result.err.find("hostile-rules.yaml") != std::string::npos);
}
