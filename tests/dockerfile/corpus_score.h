// Scores a directory of pattern Dockerfiles (tests/dockerfile/corpus, .../blind)
// against its expected.txt and fleet.yaml: Dockerfile mode and the built-in
// rules per file, then per cell the verdict against the truth. Shared by the
// corpus tests so every corpus is measured the same way.
#pragma once

#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/rules_fixture.h"
#include "imagelint/dockerfile.h"
#include "support/test_support.h"

namespace imagelint::testing::corpus_score {

using nlohmann::json;

inline std::string ReadAll(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// expected.txt: `<file> plain` or `<file> <one cell per pool>`, cells p (runs),
// f (fails), F (fails, a known gap: printed, not asserted), ? (public
// knowledge alone does not decide), in the pools' order of fleet.yaml.
inline std::map<std::string, std::vector<std::string>> Expected(const std::filesystem::path& dir) {
  std::map<std::string, std::vector<std::string>> out;
  std::istringstream lines(ReadAll(dir / "expected.txt"));
  std::string line;
  while (std::getline(lines, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream words(line);
    std::string file, cell;
    words >> file;
    std::vector<std::string> cells;
    while (words >> cell && cell[0] != '#') cells.push_back(cell);
    out[file] = cells;
  }
  return out;
}

// The rules that answer the driver-versus-runtime question; the kernel rules
// (IL007, IL008) answer the other question a cell can stay open on.
inline bool DriverRuntimeRule(const std::string& id) {
  return id == "IL001" || id == "IL002" || id == "IL003" || id == "IL004" || id == "IL005" || id == "IL006" ||
         id == "IL009" || id == "IL010";
}

struct Figures {
  size_t files = 0, plain = 0, refused = 0, errors = 0, plain_noisy = 0, cells = 0, missed = 0, known_missed = 0,
         false_alarms = 0, decidable = 0, decided = 0, runtime_decided = 0;
  double Ratio(size_t part) const {
    return decidable == 0 ? 1.0 : static_cast<double>(part) / static_cast<double>(decidable);
  }
};

// Runs every *.Dockerfile of `dir`; each problem is a MESSAGE, counted in the
// figures, so one run shows all of them. `context` gives Dockerfile mode the
// file's folder as its build context when the options allow one.
inline Figures Score(const std::filesystem::path& dir, const std::string& label) {
  using imagelint::testing::rules_fixture::Run;
  std::string fleet = ReadAll(dir / "fleet.yaml");
  auto expected = Expected(dir);
  // A case is a NAME.Dockerfile, or a folder NAME/ holding a Dockerfile and
  // the build-context files it installs from (its folder is its context).
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() == ".Dockerfile") files.push_back(entry.path());
    if (entry.is_directory() && std::filesystem::is_regular_file(entry.path() / "Dockerfile"))
      files.push_back(entry.path() / "Dockerfile");
  }
  std::sort(files.begin(), files.end());
  Figures figures;
  for (const auto& path : files) {
    std::string name = path.filename() == "Dockerfile" ? path.parent_path().filename().string()
                                                       : path.filename().string();
    CAPTURE(name);
    ++figures.files;
    CHECK_MESSAGE(ReadAll(path).find("# Pattern: ") != std::string::npos, "every corpus file names its pattern");
    auto row = expected.find(name);
    REQUIRE_MESSAGE(row != expected.end(), "no line in expected.txt");
    dockerfile::DockerfileOptions options;
    options.knowledge = &imagelint::testing::rules_fixture::TestKnowledge();
    auto analysis = dockerfile::AnalyzeDockerfile(path.string(), options);
    bool plain = row->second == std::vector<std::string>{"plain"};
    // `error`: a Dockerfile docker build itself refuses (a syntax error);
    // imagelint must refuse it too (exit 2), not judge an image.
    if (row->second == std::vector<std::string>{"error"}) {
      ++figures.refused;
      figures.cells += 9;
      if (analysis.ok()) {
        ++figures.missed;
        MESSAGE("missed refusal: " << name << " is judged although docker build refuses it");
      }
      continue;
    }
    if (!analysis.ok()) {  // exit 2
      ++figures.errors;
      MESSAGE("error (exit 2): " << name << ": " << analysis.error().ToString());
      figures.cells += 9;
      continue;
    }
    json report = Run({analysis->facts}, fleet);
    const json& image = report["images"][0];
    const json& verdicts = image["verdicts"];
    figures.cells += verdicts.size();
    if (plain) {
      ++figures.plain;
      bool clean = analysis->facts["gpu"]["workload"] != "nvidia" && image["status"] == "pass";
      size_t notes = 0;
      for (const auto& finding : image["findings"]) {
        if (finding["severity"] != "note") clean = false;
        ++notes;
      }
      for (const auto& verdict : verdicts) clean = clean && verdict["status"] == "pass";
      if (!clean || notes > 1) {
        ++figures.plain_noisy;
        MESSAGE("plain service not clean: " << name << ": " << image["findings"].dump());
      }
      figures.decidable += verdicts.size();
      figures.decided += verdicts.size();
      figures.runtime_decided += verdicts.size();
      continue;
    }
    REQUIRE(row->second.size() == verdicts.size());
    for (size_t p = 0; p < verdicts.size(); ++p) {
      const json& verdict = verdicts[p];
      std::string pool = verdict["pool"];
      std::string status = verdict["status"];
      const std::string& want = row->second[p];
      if (want == "?") continue;
      ++figures.decidable;
      bool undetermined = status != "fail" && !verdict["undetermined"].empty();
      if (!undetermined) ++figures.decided;  // bench/dockerfile/corpus_figures.py lists the others
      bool runtime_undetermined = false;
      for (const auto& id : verdict["undetermined"]) runtime_undetermined |= DriverRuntimeRule(id.get<std::string>());
      if (status == "fail" || !runtime_undetermined) ++figures.runtime_decided;
      if (want == "f" && status != "fail") {
        ++figures.missed;
        MESSAGE("missed failure: " << name << " on " << pool << " (" << status << ", undetermined "
                                   << verdict["undetermined"].dump() << ")");
      }
      if (want == "F" && status != "fail") {
        ++figures.known_missed;
        MESSAGE("missed failure (known gap): " << name << " on " << pool << " (" << status << ")");
      }
      if (want == "p" && status == "fail") {
        ++figures.false_alarms;
        MESSAGE("false alarm: " << name << " on " << pool << ": " << verdict["rules"].dump());
      }
    }
  }
  MESSAGE(label << ": " << figures.files << " Dockerfiles (" << figures.plain << " plain) x 9 pools = "
                << figures.cells << " cells; exit 2: " << figures.errors << " (and " << figures.refused << " refused as docker build does)" << "; plain not clean: "
                << figures.plain_noisy << "; missed failures " << figures.missed + figures.known_missed << " ("
                << figures.known_missed << " known gaps); false alarms " << figures.false_alarms << " per "
                << figures.cells << " cells; decided (driver/runtime) " << figures.runtime_decided << "/"
                << figures.decidable << " = " << figures.Ratio(figures.runtime_decided) << "; decided (every rule) "
                << figures.decided << "/" << figures.decidable << " = " << figures.Ratio(figures.decided));
  return figures;
}

}  // namespace imagelint::testing::corpus_score
