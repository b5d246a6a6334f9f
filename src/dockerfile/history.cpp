// --dockerfile FILE with a built image: which instruction made which layer.
//
// Image history entries (`created_by`) come in two dialects:
//   legacy builder:  "/bin/sh -c #(nop)  ENV A=b", "/bin/sh -c pip install x",
//                    "|2 A=b C=d /bin/sh -c pip install x" (build args first)
//   BuildKit:        "RUN /bin/sh -c pip install x # buildkit", "ENV A=b",
//                    "COPY src /dst # buildkit", "WORKDIR /x"
// Both are normalized to (KEYWORD, text) and aligned with the target stage's
// instructions by a longest common subsequence, so skipped or extra entries
// (base-image history, ARG lines the legacy builder does not record) do not
// shift the rest.
#include <algorithm>
#include <cctype>

#include "common/text.h"
#include "imagelint/dockerfile.h"

namespace imagelint::dockerfile {
namespace {

using json = nlohmann::json;

std::string Squash(std::string_view text) {
  std::string out;
  bool space = false;
  for (char c : text) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      space = !out.empty();
      continue;
    }
    if (space) out.push_back(' ');
    space = false;
    out.push_back(c);
  }
  return out;
}

// The legacy builder's "|2 A=b C=d /bin/sh -c ..." (the count of build args,
// then NAME=value words) without the prefix. A word is an assignment when it
// has a '=' after its first character; `text` is already squashed (single spaces).
std::string WithoutBuildArgs(const std::string& text) {
  if (text.size() < 3 || text[0] != '|') return text;
  size_t pos = 1;
  while (pos < text.size() && std::isdigit(static_cast<unsigned char>(text[pos]))) ++pos;
  if (pos == 1 || pos >= text.size() || text[pos] != ' ') return text;
  ++pos;
  for (size_t space = text.find(' ', pos); space != std::string::npos; space = text.find(' ', pos)) {
    size_t eq = text.find('=', pos + 1);
    if (eq == std::string::npos || eq >= space) break;
    pos = space + 1;
  }
  return text.substr(pos);
}

struct Normalized {
  std::string keyword;
  std::string text;
};

Normalized FromHistory(std::string created_by) {
  created_by = Squash(created_by);
  if (EndsWith(created_by, "# buildkit")) created_by = Squash(created_by.substr(0, created_by.size() - 10));
  created_by = WithoutBuildArgs(created_by);
  for (const char* shell : {"/bin/sh -c ", "/bin/bash -c ", "/bin/bash -o pipefail -c ", "cmd /S /C "}) {
    if (StartsWith(created_by, shell)) {
      std::string rest = created_by.substr(std::string(shell).size());
      if (StartsWith(rest, "#(nop) ")) {
        rest = Squash(rest.substr(7));
        size_t space = rest.find(' ');
        return {ToLower(rest.substr(0, space)), space == std::string::npos ? "" : rest.substr(space + 1)};
      }
      return {"run", rest};
    }
  }
  size_t space = created_by.find(' ');
  std::string keyword = ToLower(created_by.substr(0, space));
  std::string text = space == std::string::npos ? "" : created_by.substr(space + 1);
  if (keyword == "run") {
    for (const char* shell : {"/bin/sh -c ", "/bin/bash -c ", "/bin/bash -o pipefail -c "})
      if (StartsWith(text, shell)) text = text.substr(std::string(shell).size());
  }
  return {keyword, text};
}

Normalized FromInstruction(const Instruction& inst) {
  std::string text = inst.arguments;
  if (inst.json_form) {
    text.clear();
    for (const std::string& a : inst.json_arguments) text += (text.empty() ? "" : " ") + a;
  }
  return {ToLower(inst.keyword), Squash(text)};
}

// Last path-like word: the destination of COPY/ADD.
std::string LastWord(const std::string& text) {
  size_t space = text.rfind(' ');
  return space == std::string::npos ? text : text.substr(space + 1);
}

bool Matches(const Normalized& history, const Normalized& inst) {
  if (history.keyword != inst.keyword) return false;
  if (inst.keyword == "run") {
    if (history.text == inst.text) return true;
    // The legacy builder joins heredocs and shells differently; accept a
    // common prefix of meaningful length.
    size_t n = std::min<size_t>({history.text.size(), inst.text.size(), 60});
    return n >= 12 && history.text.compare(0, n, inst.text, 0, n) == 0;
  }
  if (inst.keyword == "copy" || inst.keyword == "add") return LastWord(history.text) == LastWord(inst.text);
  if (inst.keyword == "env" || inst.keyword == "label" || inst.keyword == "arg") {
    // Values may be expanded in the history; compare the first key.
    auto key = [](const std::string& t) {
      size_t end = t.find_first_of("= ");
      return t.substr(0, end);
    };
    return key(history.text) == key(inst.text);
  }
  return true;  // WORKDIR, CMD, ENTRYPOINT...: same keyword in order
}

void AnnotateRows(json& rows, const json& layers) {
  if (!rows.is_array()) return;
  for (auto& row : rows) {
    if (!row.is_object() || !row.contains("layer") || !row["layer"].is_number_integer()) continue;
    if (row["layer"].get<int64_t>() < 0) continue;
    size_t layer = static_cast<size_t>(row["layer"].get<int64_t>());
    if (layer >= layers.size()) continue;
    const json& source = layers[layer];
    if (!source.contains("dockerfile_line")) continue;
    row["dockerfile"] = source["dockerfile"];
    row["dockerfile_line"] = source["dockerfile_line"];
    if (source.contains("dockerfile_origin")) row["dockerfile_origin"] = source["dockerfile_origin"];
  }
}

}  // namespace

size_t AnnotateImageFacts(json& facts, const Dockerfile& dockerfile, const std::string& target) {
  if (dockerfile.stages.empty() || !facts.contains("image") || !facts["image"].contains("layers")) return 0;
  json& layers = facts["image"]["layers"];
  if (!layers.is_array()) return 0;
  size_t stage_index = dockerfile.stages.size() - 1;
  if (!target.empty())
    for (size_t s = 0; s < dockerfile.stages.size(); ++s)
      if (dockerfile.stages[s].name == ToLower(target)) stage_index = s;
  // The chain of stages the target builds on (FROM <stage>), oldest first.
  std::vector<size_t> chain = {stage_index};
  for (int guard = 0; guard < 64; ++guard) {
    const Stage& stage = dockerfile.stages[chain.front()];
    std::optional<size_t> parent;
    for (size_t s = 0; s < chain.front(); ++s)
      if (!dockerfile.stages[s].name.empty() && dockerfile.stages[s].name == ToLower(stage.base)) parent = s;
    if (!parent) break;
    chain.insert(chain.begin(), *parent);
  }
  std::vector<const Instruction*> instructions;
  for (size_t s : chain)
    for (size_t i = dockerfile.stages[s].from_instruction + 1; i < dockerfile.stages[s].end_instruction; ++i)
      instructions.push_back(&dockerfile.instructions[i]);
  const Instruction& from = dockerfile.instructions[dockerfile.stages[chain.front()].from_instruction];

  std::vector<Normalized> history;
  for (const auto& layer : layers) history.push_back(FromHistory(layer.value("created_by", "")));
  std::vector<Normalized> wanted;
  for (const Instruction* inst : instructions) wanted.push_back(FromInstruction(*inst));

  // LCS over (history, instructions), bounded to keep hostile histories cheap.
  const size_t n = std::min<size_t>(history.size(), 2048), m = std::min<size_t>(wanted.size(), 2048);
  std::vector<std::vector<uint16_t>> table(n + 1, std::vector<uint16_t>(m + 1, 0));
  for (size_t i = n; i-- > 0;)
    for (size_t j = m; j-- > 0;)
      table[i][j] = Matches(history[i], wanted[j]) ? static_cast<uint16_t>(table[i + 1][j + 1] + 1)
                                                   : std::max(table[i + 1][j], table[i][j + 1]);
  std::vector<int> match(n, -1);
  for (size_t i = 0, j = 0; i < n && j < m;) {
    if (Matches(history[i], wanted[j]) && table[i][j] == table[i + 1][j + 1] + 1) {
      match[i] = static_cast<int>(j);
      ++i;
      ++j;
    } else if (table[i + 1][j] >= table[i][j + 1]) {
      ++i;
    } else {
      ++j;
    }
  }
  size_t first_matched = n;
  size_t matched = 0;
  for (size_t i = 0; i < n; ++i)
    if (match[i] >= 0) {
      first_matched = std::min(first_matched, i);
      ++matched;
    }
  for (size_t i = 0; i < n; ++i) {
    json& layer = layers[i];
    if (match[i] >= 0) {
      const Instruction& inst = *instructions[static_cast<size_t>(match[i])];
      layer["dockerfile"] = dockerfile.path;
      layer["dockerfile_line"] = inst.line;
      layer["dockerfile_origin"] = "instruction";
    } else if (i < first_matched || matched == 0) {
      layer["dockerfile"] = dockerfile.path;
      layer["dockerfile_line"] = from.line;
      layer["dockerfile_origin"] = "base-image";
    }
  }
  facts["image"]["dockerfile"] = dockerfile.path;  // reporters locate findings in this file
  if (facts.contains("cuda") && facts["cuda"].is_object())
    for (auto& [key, value] : facts["cuda"].items()) AnnotateRows(value, layers);
  if (facts.contains("binaries")) AnnotateRows(facts["binaries"], layers);
  if (facts.contains("frameworks")) AnnotateRows(facts["frameworks"], layers);
  return matched;
}

}  // namespace imagelint::dockerfile
