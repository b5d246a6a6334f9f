// Names that would write into a CI log or a terminal: an image whose
// library path holds every control character, a GitHub workflow command
// ("::error title=x::"), Markdown link syntax and markup. Every format is
// printed; none lets the name start a line, send a control character, or
// become a link or an element, and the JSON formats keep it exactly.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "cuda/fixtures.h"
#include "hostile_inputs/hostile_support.h"
#include "support/image_builder.h"

using namespace imagelint::testing;
namespace fs = std::filesystem;

namespace {

// One directory name: every C0 control but NUL (no name can hold it), DEL,
// the C1 CSI, a right-to-left override, then what GitHub, Markdown, HTML and
// XML would read as syntax.
std::string HostileName() {
  std::string name = "evil";
  for (int c = 1; c < 0x20; ++c) name += static_cast<char>(c);
  name += "\x7f" "\xc2\x9b" "\xe2\x80\xae";
  name += "\n::error title=x::pwned%0A\r::warning file=a,line=1::b";
  name += " [link](https://example.com) ![img](https://example.com/x.png) <b>bold</b> &amp; `code` *em*";
  return name;
}

const char* kFleet = R"(pools:
  - name: rtx3090-460
    gpu: NVIDIA GeForce RTX 3090
    driver: "460.67"
    container_toolkit: "1.4.0"
    count: 8
)";

// Output lines may hold a name only where the format escapes it: no line
// begins with a workflow command that the name made, and no raw control
// character other than the line breaks and tabs the format writes itself.
void CheckNoInjection(const std::string& format, const std::string& out) {
  CAPTURE(format);
  size_t start = 0;
  while (start < out.size()) {
    size_t end = out.find('\n', start);
    if (end == std::string::npos) end = out.size();
    const std::string line = out.substr(start, end - start);
    CAPTURE(line.substr(0, 300));
    // The Actions runner reads a command only at the start of a line (blanks skipped).
    const std::string trimmed = line.substr(std::min(line.size(), line.find_first_not_of(" \t")));
    CHECK_FALSE(trimmed.starts_with("::error title=x"));
    CHECK_FALSE(trimmed.starts_with("::warning file=a"));
    start = end + 1;
  }
  for (unsigned char c : out) {
    const bool allowed = c == '\n' || c == '\t' || c >= 0x20;
    CHECK_MESSAGE((allowed && c != 0x7f), "raw control byte " << int(c) << " in " << format);
    if (!(allowed && c != 0x7f)) break;
  }
  CHECK(out.find("\xc2\x9b") == std::string::npos);
  CHECK(out.find("\xe2\x80\xae") == std::string::npos);
  if (format == "markdown") {
    CHECK(out.find("[link](") == std::string::npos);
    CHECK(out.find("![img](") == std::string::npos);
    CHECK(out.find("<b>") == std::string::npos);
  }
  if (format == "html" || format == "junit") {
    CHECK(out.find("<b>bold") == std::string::npos);
    CHECK(out.find("&amp; `code`") == std::string::npos);  // the name's "&amp;" is escaped again
  }
}

}  // namespace

TEST_CASE("file names with every control character and workflow-command syntax, in every format") {
  TempDir dir;
  WriteFileText(dir / "fleet.yaml", kFleet);
  const std::string evil = "opt/" + HostileName();
  auto elf = LibcudaElf();
  TestImage image;
  image.env = {"PATH=/usr/bin", "LD_LIBRARY_PATH=/opt/lib", "NVIDIA_VISIBLE_DEVICES=all",
               "NVIDIA_DRIVER_CAPABILITIES=compute,utility"};
  image.Layer().File("etc/os-release", "ID=ubuntu\nVERSION_ID=\"22.04\"\n");
  // libarchive's writer refuses such names: a tar written byte for byte.
  image.Layer(Compression::kNone).raw_blob =
      AnyNameTar({{"opt/", '5', "", ""},
                  {"opt/lib/", '5', "", ""},
                  {evil + "/", '5', "", ""},
                  {evil + "/libcuda.so.550.54.15", '0', std::string(elf.begin(), elf.end()), ""},
                  {evil + "/libcuda.so.1", '2', "", "libcuda.so.550.54.15"},
                  {"opt/lib/libcuda.so.1", '2', "", "/" + evil + "/libcuda.so.1"}});
  WriteImage(image, ImageKind::kOciArchive, dir / "names.tar");

  // The name reaches the report (else this test would prove nothing).
  auto json_run = RunBounded({"scan", (dir / "names.tar").string(), "--fleet", (dir / "fleet.yaml").string(),
                              "--format", "json", "--no-cache"});
  CAPTURE(json_run.result.err.substr(0, 2000));
  REQUIRE(json_run.result.exit_code == 1);
  const auto report = nlohmann::json::parse(json_run.result.out);
  CHECK(report.dump().find("::error title=x::pwned") != std::string::npos);
  CHECK(json_run.result.out.find("\\n::error title=x::pwned") != std::string::npos);  // JSON's escape

  for (const char* format : {"text", "github", "markdown", "html", "junit", "sarif", "gitlab", "json"}) {
    auto run = RunBounded({"scan", (dir / "names.tar").string(), "--fleet", (dir / "fleet.yaml").string(),
                           "--format", format, "--no-cache"});
    CAPTURE(run.result.err.substr(0, 2000));
    CHECK(run.result.exit_code == 1);
    CHECK(run.cpu_seconds < kHostileSeconds);
    CHECK(run.result.out.find("pwned") != std::string::npos);  // shown, escaped
    CheckNoInjection(format, run.result.out);
    CheckNoInjection(std::string(format) + " (stderr)", run.result.err);
  }
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"ls", (dir / "names.tar").string()},
        std::vector<std::string>{"facts", (dir / "names.tar").string(), "--format", "text"}}) {
    std::vector<std::string> full = args;
    full.push_back("--no-cache");
    auto run = RunBounded(full);
    CAPTURE(run.result.err.substr(0, 2000));
    CHECK(run.result.exit_code == 0);
    CHECK(run.result.out.find("pwned") != std::string::npos);
    CheckNoInjection(args[0], run.result.out);
  }
}
