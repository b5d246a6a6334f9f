// Dockerfile syntax: directives, continuations, heredocs, JSON form, stages,
// suppressions, substitution, detection and parse errors with line:column.
#include <doctest/doctest.h>

#include <string>

#include "dockerfile_fixture.h"
#include "imagelint/config.h"
#include "imagelint/dockerfile.h"
#include "support/test_support.h"

using imagelint::ByteView;
using namespace imagelint::dockerfile;
using imagelint::testing::dockerfile_fixture::Analyze;

namespace {

Dockerfile Parse(const std::string& text) {
  auto parsed = ParseDockerfile(text, "Dockerfile");
  if (!parsed.ok()) FAIL("unexpected parse error: " << parsed.error().ToString());
  return *parsed;
}

imagelint::Error ParseError(const std::string& text, const ParseLimits& limits = {}) {
  auto parsed = ParseDockerfile(text, "Dockerfile", limits);
  REQUIRE_FALSE(parsed.ok());
  return parsed.error();
}

}  // namespace

TEST_CASE("instructions, continuations and comments inside continuations") {
  Dockerfile file = Parse(
      "# a comment\n"
      "FROM ubuntu:22.04\n"
      "\n"
      "RUN apt-get update && \\\n"
      "    # comments inside a continuation are dropped\n"
      "\n"
      "    apt-get install -y curl\n"
      "  env A=1\n");
  REQUIRE(file.instructions.size() == 3);
  CHECK(file.instructions[0].keyword == "FROM");
  CHECK(file.instructions[0].line == 2);
  CHECK(file.instructions[1].keyword == "RUN");
  CHECK(file.instructions[1].line == 4);
  CHECK(file.instructions[1].end_line == 7);
  CHECK(file.instructions[1].arguments == "apt-get update &&     apt-get install -y curl");
  CHECK(file.instructions[2].keyword == "ENV");  // keywords are case-insensitive
  CHECK(file.instructions[2].column == 3);
  CHECK(file.stages.size() == 1);
}

TEST_CASE("parser directives: escape and syntax, only at the top") {
  Dockerfile file = Parse(
      "# syntax=docker/dockerfile:1.7\n"
      "# escape=`\n"
      "FROM mcr.microsoft.com/windows/servercore\n"
      "RUN echo a `\n"
      "    b\n");
  CHECK(file.syntax == "docker/dockerfile:1.7");
  CHECK(file.escape == '`');
  REQUIRE(file.instructions.size() == 2);
  CHECK(file.instructions[1].arguments == "echo a     b");

  // After a plain comment, `# escape=` is an ordinary comment.
  Dockerfile late = Parse("# hello\n# escape=`\nFROM a\nRUN x \\\n y\n");
  CHECK(late.escape == '\\');
  CHECK(late.instructions[1].arguments == "x  y");

  auto duplicate = ParseError("# escape=`\n# escape=\\\nFROM a\n");
  CHECK(duplicate.line == 2);
  auto invalid = ParseError("# escape=x\nFROM a\n");
  CHECK(invalid.line == 1);
}

TEST_CASE("JSON and shell forms, flags") {
  Dockerfile file = Parse(
      "FROM --platform=linux/arm64 nvidia/cuda:12.4.1-base-ubuntu22.04 AS Base\n"
      "RUN [\"pip\", \"install\", \"torch==2.3.0\"]\n"
      "RUN [not json\n"
      "COPY --from=base --chmod=755 /a /b\n"
      "CMD [\"python\", \"-c\", \"print(1)\"]\n");
  REQUIRE(file.stages.size() == 1);
  CHECK(file.stages[0].name == "base");
  CHECK(file.stages[0].platform == "linux/arm64");
  CHECK(file.instructions[1].json_form);
  CHECK(file.instructions[1].json_arguments == std::vector<std::string>{"pip", "install", "torch==2.3.0"});
  CHECK_FALSE(file.instructions[2].json_form);  // invalid JSON falls back to shell form
  REQUIRE(file.instructions[3].flags.size() == 2);
  CHECK(file.instructions[3].flags[0].name == "from");
  CHECK(file.instructions[3].flags[0].value == "base");
  CHECK(file.instructions[3].arguments == "/a /b");
  CHECK(file.instructions[4].json_arguments.size() == 3);
}

TEST_CASE("heredocs: plain, tab-stripping, quoted, several on one line") {
  Dockerfile file = Parse(
      "FROM ubuntu\n"
      "RUN <<EOF\n"
      "pip install torch==2.1.0\n"
      "EOF\n"
      "RUN <<-'END' bash\n"
      "\t\techo $HOME\n"
      "\tEND\n"
      "COPY <<a.conf <<b.conf /etc/ld.so.conf.d/\n"
      "/usr/local/cuda/compat\n"
      "a.conf\n"
      "/opt/lib\n"
      "b.conf\n"
      "USER root\n");
  REQUIRE(file.instructions.size() == 5);
  const Instruction& run = file.instructions[1];
  REQUIRE(run.heredocs.size() == 1);
  CHECK(run.heredocs[0].delimiter == "EOF");
  CHECK(run.heredocs[0].body == "pip install torch==2.1.0\n");
  CHECK(run.heredocs[0].line == 3);
  CHECK(run.end_line == 4);
  const Instruction& quoted = file.instructions[2];
  REQUIRE(quoted.heredocs.size() == 1);
  CHECK(quoted.heredocs[0].strip_tabs);
  CHECK(quoted.heredocs[0].quoted);
  CHECK(quoted.heredocs[0].body == "echo $HOME\n");
  const Instruction& copy = file.instructions[3];
  REQUIRE(copy.heredocs.size() == 2);
  CHECK(copy.heredocs[0].body == "/usr/local/cuda/compat\n");
  CHECK(copy.heredocs[1].body == "/opt/lib\n");
  CHECK(file.instructions[4].keyword == "USER");
  CHECK(file.instructions[4].line == 13);

  // Pattern: `RUN cat > app.py << 'PYEOF'` (a script written by a heredoc,
  // blanks after `<<`): BuildKit's lexer takes the blanks into the word.
  Dockerfile spaced = Parse(
      "FROM python:3.12-slim\n"
      "RUN cat > /app/server.py << 'PYEOF'\n"
      "from fastapi import FastAPI\n"
      "PYEOF\n"
      "CMD [\"python3\", \"/app/server.py\"]\n");
  REQUIRE(spaced.instructions.size() == 3);
  REQUIRE(spaced.instructions[1].heredocs.size() == 1);
  CHECK(spaced.instructions[1].heredocs[0].delimiter == "PYEOF");
  CHECK(spaced.instructions[1].heredocs[0].quoted);
  CHECK(spaced.instructions[1].heredocs[0].body == "from fastapi import FastAPI\n");
  CHECK(spaced.instructions[2].keyword == "CMD");

  auto unterminated = ParseError("FROM a\nRUN <<EOF\necho\n");
  CHECK(unterminated.line == 2);
  CHECK(unterminated.message.find("unterminated heredoc") != std::string::npos);
}

TEST_CASE("multi-stage: names, global ARGs, instruction stages") {
  Dockerfile file = Parse(
      "ARG CUDA=12.1.1\n"
      "FROM nvidia/cuda:${CUDA}-devel-ubuntu22.04 AS build\n"
      "RUN make\n"
      "FROM build AS test\n"
      "FROM nvidia/cuda:${CUDA}-runtime-ubuntu22.04\n"
      "COPY --from=build /out /out\n");
  REQUIRE(file.stages.size() == 3);
  CHECK(file.instructions[0].stage == SIZE_MAX);
  CHECK(file.instructions[2].stage == 0);
  CHECK(file.stages[0].end_instruction == 3);
  CHECK(file.stages[1].base == "build");
  CHECK(file.stages[2].name.empty());
  CHECK(file.stages[2].line == 5);

  CHECK(ParseError("FROM a AS x\nFROM b AS X\n").line == 2);  // duplicate (case-insensitive)
  CHECK(ParseError("FROM a AS\n").line == 1);
  CHECK(ParseError("FROM a AS b c\n").line == 1);
  CHECK(ParseError("FROM a AS -bad\n").line == 1);
}

TEST_CASE("inline suppressions apply to the next instruction") {
  Dockerfile file = Parse(
      "# imagelint global ignore=IL010 whole file\n"
      "FROM nvidia/cuda:11.3.0-devel-ubuntu20.04\n"
      "# imagelint ignore=IL003,forward-compat-unsupported-gpu only A100 pools run this\n"
      "\n"
      "RUN pip install torch\n"
      "# imagelint ignore=IL004\n"
      "# unrelated comment\n"
      "ENV A=1\n"
      "# hadolint ignore=DL3008\n"
      "USER x\n");
  REQUIRE(file.suppressions.size() == 3);
  CHECK(file.suppressions[0].rules == std::vector<std::string>{"IL010"});
  CHECK(file.suppressions[0].instruction_line == 0);
  CHECK(file.suppressions[0].reason == "whole file");
  CHECK(file.suppressions[1].rules == std::vector<std::string>{"IL003", "forward-compat-unsupported-gpu"});
  CHECK(file.suppressions[1].reason == "only A100 pools run this");
  CHECK(file.suppressions[1].line == 3);
  CHECK(file.suppressions[1].instruction_line == 5);
  CHECK(file.suppressions[1].instruction == "RUN");
  CHECK(file.suppressions[2].rules == std::vector<std::string>{"IL004"});
  CHECK(file.suppressions[2].reason.empty());
  CHECK(file.suppressions[2].instruction_line == 8);
}

TEST_CASE("parse errors carry file:line:column") {
  auto unknown = ParseError("FROM a\n\n   FORM b\n");
  CHECK(unknown.subject == "Dockerfile");
  CHECK(unknown.line == 3);
  CHECK(unknown.column == 4);
  CHECK(unknown.ToString().find("Dockerfile:3:4") == 0);
  CHECK(unknown.message.find("unknown instruction: FORM") != std::string::npos);
  CHECK(unknown.message.find("merge conflict") == std::string::npos);

  // A file committed in the middle of a git merge.
  auto conflict = ParseError("FROM a\n<<<<<<< HEAD\nCMD [\"a\"]\n=======\nCMD [\"b\"]\n>>>>>>> 4321960\n");
  CHECK(conflict.line == 2);
  CHECK(conflict.message.find("unknown instruction: <<<<<<< (an unresolved git merge conflict") != std::string::npos);

  auto before_from = ParseError("ARG X=1\nRUN echo\nFROM a\n");
  CHECK(before_from.line == 2);
  CHECK(before_from.message.find("before the first FROM") != std::string::npos);

  auto no_from = ParseError("# only a comment\nARG X\n");
  CHECK(no_from.message.find("no FROM") != std::string::npos);

  auto empty_run = ParseError("FROM a\nRUN\n");
  CHECK(empty_run.line == 2);

  auto bad_onbuild = ParseError("FROM a\nONBUILD FROM b\n");
  CHECK(bad_onbuild.line == 2);

  auto nul = ParseError(std::string("FROM a\nRUN x\0y\n", 15));
  CHECK(nul.line == 2);
  CHECK(nul.column == 6);
}

TEST_CASE("hostile input limits") {
  ParseLimits limits;
  limits.max_line_length = 100;
  auto long_line = ParseError("FROM a\nRUN " + std::string(200, 'x') + "\n", limits);
  CHECK(long_line.line == 2);

  limits = {};
  limits.max_instructions = 10;
  std::string many = "FROM a\n";
  for (int i = 0; i < 20; ++i) many += "RUN x\n";
  CHECK(ParseError(many, limits).line == 11);

  limits = {};
  limits.max_logical_lines = 5;
  std::string continued = "FROM a\nRUN a \\\n";
  for (int i = 0; i < 10; ++i) continued += "b \\\n";
  continued += "c\n";
  CHECK(ParseError(continued, limits).line == 2);

  limits = {};
  limits.max_bytes = 10;
  CHECK_FALSE(ParseDockerfile("FROM ubuntu:22.04\n", "Dockerfile", limits).ok());

  limits = {};
  limits.max_stages = 2;
  CHECK(ParseError("FROM a\nFROM b\nFROM c\n", limits).line == 3);
}

TEST_CASE("ExpandWord: ${VAR}, defaults, alternatives, quotes, escapes") {
  std::map<std::string, std::string> vars = {{"A", "1"}, {"EMPTY", ""}, {"CUDA", "12.1.1"}};
  auto value = [&](const std::string& word) {
    auto expanded = ExpandWord(word, vars);
    REQUIRE(expanded.ok());
    return expanded->value;
  };
  CHECK(value("$A") == "1");
  CHECK(value("${A}x") == "1x");
  CHECK(value("${MISSING:-def}") == "def");
  CHECK(value("${EMPTY:-def}") == "def");
  CHECK(value("${EMPTY-def}") == "");
  CHECK(value("${A:+set}") == "set");
  CHECK(value("${MISSING:+set}") == "");
  CHECK(value("${EMPTY+set}") == "set");
  CHECK(value("${MISSING:-${CUDA}}") == "12.1.1");
  CHECK(value("'$A'") == "$A");
  CHECK(value("\"a $A\"") == "a 1");
  CHECK(value("\\$A") == "$A");
  CHECK(value("nvidia/cuda:${CUDA}-base") == "nvidia/cuda:12.1.1-base");

  auto unresolved = ExpandWord("${NOPE}-x", vars);
  REQUIRE(unresolved.ok());
  CHECK(unresolved->value == "-x");
  CHECK(unresolved->unresolved == std::vector<std::string>{"NOPE"});

  auto pattern = ExpandWord("${CUDA%.*}", vars);
  REQUIRE(pattern.ok());
  CHECK_FALSE(pattern->exact);

  CHECK_FALSE(ExpandWord("${A", vars).ok());
  CHECK_FALSE(ExpandWord("${MISSING:?must be set}", vars).ok());
  CHECK_FALSE(ExpandWord("\"open", vars).ok());
  // Backtick escape (Windows Dockerfiles).
  auto backtick = ExpandWord("`$A", vars, '`');
  REQUIRE(backtick.ok());
  CHECK(backtick->value == "$A");
  // Nesting is bounded.
  std::string deep = "x";
  for (int i = 0; i < 40; ++i) deep = "${M:-" + deep + "}";
  CHECK_FALSE(ExpandWord(deep, vars).ok());
}

TEST_CASE("LooksLikeDockerfile: content-based detection") {
  auto looks = [](const std::string& text) { return LooksLikeDockerfile(ByteView(std::string_view(text))); };
  CHECK(looks("FROM ubuntu:22.04\nRUN true\n"));
  CHECK(looks("# syntax=docker/dockerfile:1\n\n# comment\nfrom alpine\n"));
  CHECK(looks("ARG BASE=ubuntu\nARG X=1\nFROM ${BASE}\n"));
  CHECK_FALSE(looks("{\"schemaVersion\": 2}"));
  CHECK_FALSE(looks("pools:\n  - name: a\n"));
  CHECK_FALSE(looks(std::string("FROM \0\x01", 7)));
  CHECK_FALSE(looks("RUN echo\nFROM x\n"));
  CHECK_FALSE(looks("FROM\n"));
  CHECK_FALSE(looks(""));
}

TEST_CASE("IsDockerfilePath and suppressions in the report module's shape") {
  imagelint::testing::TempDir dir;
  imagelint::testing::WriteFileText(dir / "build.docker", "# syntax=docker/dockerfile:1\nFROM alpine\n");
  imagelint::testing::WriteFileText(dir / "facts.json", "{\"schema\": \"imagelint.facts/v1\"}");
  CHECK(IsDockerfilePath((dir / "build.docker").string()));
  CHECK_FALSE(IsDockerfilePath((dir / "facts.json").string()));
  CHECK_FALSE(IsDockerfilePath(dir.path().string()));  // a directory (rootfs / OCI layout)
  CHECK_FALSE(IsDockerfilePath((dir / "missing").string()));
  // Named as a Dockerfile and text, whatever its first line: read as one, so
  // the parser names the line that is wrong (an editor's status line saved
  // into the file); a binary file of that name is not.
  imagelint::testing::WriteFileText(dir / "app.Dockerfile", "\"Dockerfile\" 71L, 2614B   39,1   All\nFROM alpine\n");
  CHECK(IsDockerfilePath((dir / "app.Dockerfile").string()));
  imagelint::testing::WriteFileText(dir / "notes.txt", "\"Dockerfile\" 71L\nFROM alpine\n");
  CHECK_FALSE(IsDockerfilePath((dir / "notes.txt").string()));
  imagelint::testing::WriteFileText(dir / "Dockerfile", std::string("ustar\0\0\0", 8));
  CHECK_FALSE(IsDockerfilePath((dir / "Dockerfile").string()));

  Dockerfile file = Parse("FROM a\n# imagelint ignore=IL003,IL010 A100 only\nRUN x\n# imagelint global ignore=IL001 ok\n");
  auto converted = imagelint::config::FromInlinePragmas(file.suppressions);
  REQUIRE(converted.size() == 3);
  CHECK(converted[0].rule == "IL003");
  CHECK(converted[0].origin == "inline");
  CHECK(converted[0].reason == "A100 only");
  CHECK(converted[0].file == "Dockerfile");
  CHECK(converted[0].line == 2);
  CHECK(converted[0].dockerfile_line == 3);
  CHECK(converted[1].rule == "IL010");
  CHECK(converted[1].dockerfile_line == 3);
  CHECK(converted[2].rule == "IL001");  // global: any line
  CHECK(converted[2].dockerfile_line == 0);
}

TEST_CASE("hostile input: mutated Dockerfiles give a value or an error with a line, never a crash") {
  const std::string seed =
      "# syntax=docker/dockerfile:1\n"
      "ARG CUDA=12.4.1\n"
      "FROM nvidia/cuda:${CUDA}-devel-ubuntu22.04 AS build\n"
      "RUN <<EOF\npip install \"torch==2.3.0\" --index-url https://download.pytorch.org/whl/cu121\nEOF\n"
      "ENV LD_LIBRARY_PATH=/usr/local/cuda/compat:${LD_LIBRARY_PATH:-} A=\"b c\"\n"
      "RUN sh -c 'echo $(uname) > /etc/ld.so.conf.d/x.conf' && rm -rf /usr/local/cuda/compat \\\n"
      "    && ln -s /usr/local/cuda/lib64/stubs/libcuda.so /usr/lib/x86_64-linux-gnu/libcuda.so.1\n"
      "COPY --from=build [\"/a\", \"/b/\"]\n";
  const char alphabet[] = "\\`$'\"{}[]<>-=:;&|#\n \tEOFRUN${";
  uint32_t state = 12345;
  auto next = [&]() {
    state = state * 1103515245u + 12345u;
    return state >> 8;
  };
  int parsed_ok = 0, errors = 0;
  for (int round = 0; round < 1500; ++round) {
    std::string text = seed;
    int edits = 1 + static_cast<int>(next() % 6);
    for (int e = 0; e < edits; ++e) {
      size_t at = next() % (text.size() + 1);
      switch (next() % 3) {
        case 0: text.insert(at, 1, alphabet[next() % (sizeof(alphabet) - 1)]); break;
        case 1: if (at < text.size()) text.erase(at, 1); break;
        default: if (at < text.size()) text[at] = alphabet[next() % (sizeof(alphabet) - 1)]; break;
      }
    }
    auto analysis = Analyze(text);
    if (analysis.ok()) {
      ++parsed_ok;
      CHECK(analysis->facts["schema"] == "imagelint.facts/v1");
    } else {
      ++errors;
      CHECK(analysis.error().subject == "Dockerfile");
      CHECK_FALSE(analysis.error().message.empty());
    }
  }
  CHECK(parsed_ok > 0);
  CHECK(errors > 0);
}
