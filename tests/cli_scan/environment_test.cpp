// The command line's environment, read in one place (src/cli/environment.h):
// data directories, config and cache directories, today, credentials, colour
// and --build-arg values, each from an injected set of variables.
#include <fcntl.h>
#include <sys/ioctl.h>
#include <stdlib.h>
#include <unistd.h>

#include <map>

#include <doctest/doctest.h>

#include "cli/environment.h"
#include "support/test_support.h"

namespace fs = std::filesystem;
using imagelint::cli::Environment;
using imagelint::testing::TempDir;

namespace {

Environment With(std::map<std::string, std::string> variables, fs::path executable = "/nowhere/bin/imagelint",
                 fs::path source_dir = imagelint::testing::SourceDir()) {
  auto lookup = [variables](const std::string& name) -> std::optional<std::string> {
    auto it = variables.find(name);
    if (it == variables.end()) return std::nullopt;
    return it->second;
  };
  return Environment(lookup, executable, source_dir);
}

}  // namespace

TEST_CASE("data directory: installed share/imagelint, the checkout around the build tree, the compiled checkout") {
  TempDir dir;
  fs::create_directories(dir / "prefix" / "bin");
  fs::create_directories(dir / "prefix" / "share" / "imagelint" / "rules" / "knowledge");
  CHECK(With({}, dir / "prefix" / "bin" / "imagelint").DataDirectory() == dir / "prefix" / "share" / "imagelint");

  fs::create_directories(dir / "checkout" / "rules" / "knowledge");
  fs::create_directories(dir / "checkout" / "build-x" / "src" / "cli");
  CHECK(With({}, dir / "checkout" / "build-x" / "src" / "cli" / "imagelint").DataDirectory() == dir / "checkout");

  // Neither: the checkout compiled in.
  CHECK(With({}, dir / "elsewhere" / "imagelint", "/compiled/checkout").DataDirectory() == "/compiled/checkout");
  // The real binary of a build tree inside the checkout finds the checkout.
  fs::path binary = fs::weakly_canonical(imagelint::testing::ImagelintBinary());
  fs::path checkout = fs::weakly_canonical(imagelint::testing::SourceDir());
  if (binary.string().rfind(checkout.string() + "/", 0) == 0)
    CHECK(fs::equivalent(With({}, binary, "/compiled/checkout").DataDirectory(), checkout));
}

TEST_CASE("context: data directories with their variables, cache, today, credential stores") {
  auto plain = With({{"HOME", "/home/u"}}).MakeContext();
  CHECK(plain.rules_dir == imagelint::testing::SourceDir() / "rules");
  CHECK(plain.knowledge_dir == imagelint::testing::SourceDir() / "rules" / "knowledge");
  CHECK(plain.docs_dir == imagelint::testing::SourceDir() / "docs");
  CHECK(plain.cache_dir == "/home/u/.cache/imagelint");
  CHECK(plain.today.empty());  // the library takes the current UTC day
  CHECK(plain.credential_stores.home == "/home/u");
  CHECK(plain.warn);

  auto set = With({{"IMAGELINT_RULES_DIR", "/r"},
                   {"IMAGELINT_KNOWLEDGE_DIR", "/k"},
                   {"IMAGELINT_DOCS_DIR", "/d"},
                   {"XDG_CACHE_HOME", "/xdg-cache"},
                   {"IMAGELINT_TODAY", "2030-05-06"},
                   {"REGISTRY_AUTH_FILE", "/auth.json"},
                   {"DOCKER_CONFIG", "/docker"}})
                 .MakeContext();
  CHECK(set.rules_dir == "/r");
  CHECK(set.knowledge_dir == "/k");
  CHECK(set.docs_dir == "/d");
  CHECK(set.cache_dir == "/xdg-cache/imagelint");
  CHECK(set.today == "2030-05-06");
  CHECK(set.credential_stores.registry_auth_file == "/auth.json");
  CHECK(set.credential_stores.docker_config == "/docker");
  CHECK(With({{"IMAGELINT_TODAY", "tomorrow"}}).MakeContext().today.empty());  // not a date: ignored
}

TEST_CASE("user config directory: XDG_CONFIG_HOME, else ~/.config") {
  CHECK(With({{"XDG_CONFIG_HOME", "/x"}, {"HOME", "/home/u"}}).UserConfigDirectory() == "/x/imagelint");
  CHECK(With({{"XDG_CONFIG_HOME", ""}, {"HOME", "/home/u"}}).UserConfigDirectory() == "/home/u/.config/imagelint");
  CHECK(With({}).UserConfigDirectory().empty());
}

TEST_CASE("--build-arg NAME=VALUE, NAME from the environment, malformed") {
  auto env = With({{"CUDA", "12.6.3"}, {"EMPTY", ""}});
  auto args = env.BuildArgs({"A=1", "CUDA", "EMPTY", "UNSET", "B=x=y"});
  REQUIRE(args.ok());
  CHECK(*args == std::map<std::string, std::string>{{"A", "1"}, {"B", "x=y"}, {"CUDA", "12.6.3"}, {"EMPTY", ""}});
  auto bad = env.BuildArgs({"=x"});
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().ToString() == "--build-arg: expected NAME=VALUE, got \"=x\"");
}

TEST_CASE("colour: a terminal, unless NO_COLOR or TERM=dumb") {
  int master = posix_openpt(O_RDWR | O_NOCTTY);
  REQUIRE(master >= 0);
  REQUIRE(grantpt(master) == 0);
  REQUIRE(unlockpt(master) == 0);
  int terminal = open(ptsname(master), O_RDWR | O_NOCTTY);
  REQUIRE(terminal >= 0);
  CHECK(With({{"TERM", "xterm"}}).ColorWanted(terminal));
  CHECK_FALSE(With({{"TERM", "xterm"}, {"NO_COLOR", "1"}}).ColorWanted(terminal));
  CHECK(With({{"TERM", "xterm"}, {"NO_COLOR", ""}}).ColorWanted(terminal));  // empty means unset (no-color.org)
  CHECK_FALSE(With({{"TERM", "dumb"}}).ColorWanted(terminal));
  int pipe_fds[2];
  REQUIRE(pipe(pipe_fds) == 0);
  CHECK_FALSE(With({{"TERM", "xterm"}}).ColorWanted(pipe_fds[1]));
  close(pipe_fds[0]);
  close(pipe_fds[1]);
  close(terminal);
  close(master);
}

TEST_CASE("text width: the terminal's columns (60 to 200), 80 for files and pipes") {
  int master = posix_openpt(O_RDWR | O_NOCTTY);
  REQUIRE(master >= 0);
  REQUIRE(grantpt(master) == 0);
  REQUIRE(unlockpt(master) == 0);
  int terminal = open(ptsname(master), O_RDWR | O_NOCTTY);
  REQUIRE(terminal >= 0);
  Environment env = With({{"TERM", "xterm"}});
  auto columns = [&](unsigned short width) {
    struct winsize size {};
    size.ws_col = width;
    size.ws_row = 40;
    REQUIRE(ioctl(terminal, TIOCSWINSZ, &size) == 0);
    return env.TextWidth(terminal);
  };
  CHECK(columns(132) == 132);
  CHECK(columns(20) == 60);   // narrower than a readable block
  CHECK(columns(500) == 200);
  CHECK(columns(0) == 80);    // a terminal that does not say
  int pipe_fds[2];
  REQUIRE(pipe(pipe_fds) == 0);
  CHECK(env.TextWidth(pipe_fds[1]) == 80);  // CI logs and files stay stable
  close(pipe_fds[0]);
  close(pipe_fds[1]);
  close(terminal);
  close(master);
}
