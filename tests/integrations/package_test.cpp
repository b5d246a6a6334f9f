// The Debian packages of `cmake --build BUILD --target package` (CPack,
// cmake/Package.cmake), and what every integration installs.
//
// The runtime package's Depends are read off the binary (dpkg-shlibdeps): for
// each library the binary needs (its NEEDED entries, found where the loader
// finds them), the Debian package that holds it is among them. Each shipped
// integration installs that package with apt (so that those Depends come
// with it), and its build step installs the -dev package of each of those
// libraries.
#include <doctest/doctest.h>

#include "common/archive_library.h"
#include "registry/curl_library.h"

#include <cctype>
#include <map>
#include <set>
#include <sstream>

#include "support/test_support.h"

using namespace imagelint::testing;
namespace fs = std::filesystem;

namespace {

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::string Trim(std::string text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
  size_t start = text.find_first_not_of(" \t\n");
  return start == std::string::npos ? "" : text.substr(start);
}

// The sonames of a binary's DT_NEEDED entries (readelf -d).
std::vector<std::string> Needed(const fs::path& binary) {
  auto dynamic = RunCommand({"readelf", "-d", "-W", binary.string()});
  REQUIRE_MESSAGE(dynamic.exit_code == 0, dynamic.err);
  std::vector<std::string> needed;
  for (const std::string& line : Lines(dynamic.out)) {
    if (line.find("(NEEDED)") == std::string::npos) continue;
    size_t open = line.find('['), close = line.find(']');
    if (open != std::string::npos && close > open) needed.push_back(line.substr(open + 1, close - open - 1));
  }
  return needed;
}

// soname -> path, as the dynamic loader resolves them for `binary` (ldd).
std::map<std::string, fs::path> Resolved(const fs::path& binary) {
  auto ldd = RunCommand({"ldd", binary.string()});
  REQUIRE_MESSAGE(ldd.exit_code == 0, ldd.err);
  std::map<std::string, fs::path> paths;
  for (const std::string& line : Lines(ldd.out)) {
    size_t arrow = line.find(" => ");
    // The program interpreter: "/lib64/ld-linux-x86-64.so.2 (0x...)".
    if (arrow == std::string::npos && Trim(line).rfind('/', 0) == 0) {
      const std::string path = Trim(line).substr(0, Trim(line).find(" ("));
      paths[fs::path(path).filename().string()] = path;
      continue;
    }
    if (arrow == std::string::npos) continue;
    std::string name = Trim(line.substr(0, arrow));
    std::string rest = line.substr(arrow + 4);
    paths[name] = rest.substr(0, rest.find(" ("));
  }
  return paths;
}

// The installed package that holds `path` (dpkg -S), trying the path the
// loader gave and its other spelling on a merged-/usr system.
std::string OwningPackage(const fs::path& path) {
  std::vector<std::string> candidates = {path.string()};
  const std::string text = path.string();
  if (text.rfind("/usr/", 0) == 0) candidates.push_back(text.substr(4));
  else candidates.push_back("/usr" + text);
  for (const std::string& candidate : candidates) {
    auto owner = RunCommand({"dpkg-query", "-S", candidate});
    if (owner.exit_code != 0) continue;
    std::string line = Lines(owner.out).front();
    std::string package = line.substr(0, line.find(':'));
    return package;
  }
  return "";
}

// Package names of a Depends field, alternatives included
// ("libc6 (>= 2.34), libcurl4 (>= 7.28) | libcurl3" -> libc6, libcurl4, libcurl3).
std::set<std::string> DependsNames(const std::string& field) {
  std::set<std::string> names;
  std::string token;
  for (char c : field + ",") {
    if (c == ',' || c == '|') {
      std::string name = Trim(token.substr(0, token.find('(')));
      name = name.substr(0, name.find(':'));
      if (!name.empty()) names.insert(name);
      token.clear();
    } else {
      token += c;
    }
  }
  return names;
}

// What the packages CPack makes from this build tree, made once per process.
struct Packages {
  TempDir dir;
  fs::path runtime, development, root;
  std::string error;
};

void Make(Packages& made) {
  auto cpack = RunCommand({"cpack", "-G", "DEB", "-B", made.dir.path().string(), "--config",
                           (BinaryDir() / "CPackConfig.cmake").string()},
                          "", 600);
  if (cpack.exit_code != 0) {
    made.error = cpack.out + cpack.err;
    return;
  }
  for (const auto& entry : fs::directory_iterator(made.dir.path())) {
    std::string name = entry.path().filename().string();
    if (name.rfind("imagelint_", 0) == 0 && entry.path().extension() == ".deb") made.runtime = entry.path();
    if (name.rfind("libimagelint-dev_", 0) == 0 && entry.path().extension() == ".deb") made.development = entry.path();
  }
  made.root = made.dir / "root";
  if (!made.runtime.empty()) RunCommand({"dpkg-deb", "-x", made.runtime.string(), made.root.string()});
}

const Packages& Built() {
  static Packages packages;
  static const bool made = (Make(packages), true);
  (void)made;
  return packages;
}

bool HavePackagingTools(std::string* why) {
  for (const char* tool : {"cpack", "dpkg-deb", "dpkg-shlibdeps", "dpkg-query", "file", "readelf", "ldd", "apt-cache"}) {
    if (!HaveProgram(tool)) {
      *why = std::string(tool) + " (dpkg-dev, file, binutils, apt) makes or reads the Debian packages";
      return false;
    }
  }
  return true;
}

std::string Field(const fs::path& deb, const std::string& name) {
  return Trim(RunCommand({"dpkg-deb", "-f", deb.string(), name}).out);
}

// The packages build-essential brings (the compiler, libc6-dev,
// libstdc++-N-dev): the -dev side of libc, libm, libstdc++ and libgcc_s.
std::set<std::string> BuildEssential() {
  auto depends = RunCommand({"apt-cache", "depends", "--recurse", "--no-recommends", "--no-suggests", "--no-conflicts",
                             "--no-breaks", "--no-replaces", "--no-enhances", "--installed", "build-essential"},
                            "", 120);
  std::set<std::string> names;
  for (const std::string& line : Lines(depends.out))
    if (!line.empty() && line[0] != ' ' && line[0] != '<') names.insert(line.substr(0, line.find(':')));
  return names;
}

// Whether `text` names `word` as a whole package name.
bool NamesPackage(const std::string& text, const std::string& word) {
  auto part = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' || c == '+'; };
  for (size_t at = text.find(word); at != std::string::npos; at = text.find(word, at + 1)) {
    bool left = at == 0 || !part(text[at - 1]);
    bool right = at + word.size() >= text.size() || !part(text[at + word.size()]);
    if (left && right) return true;
  }
  return false;
}

// The text of a Dockerfile stage: from its FROM line to the next.
std::string Stage(const std::string& dockerfile, int index) {
  std::vector<size_t> starts;
  for (size_t at = dockerfile.find("FROM "); at != std::string::npos; at = dockerfile.find("FROM ", at + 1))
    if (at == 0 || dockerfile[at - 1] == '\n') starts.push_back(at);
  REQUIRE(static_cast<size_t>(index) < starts.size());
  size_t end = static_cast<size_t>(index) + 1 < starts.size() ? starts[index + 1] : dockerfile.size();
  return dockerfile.substr(starts[index], end - starts[index]);
}

std::string ActionStep(const std::string& action, const std::string& name) {
  size_t at = action.find("    - name: " + name);
  REQUIRE_MESSAGE(at != std::string::npos, name);
  size_t end = action.find("\n    - name: ", at + 1);
  return action.substr(at, end == std::string::npos ? std::string::npos : end - at);
}

}  // namespace

TEST_CASE("package: imagelint_*.deb with Depends from the binary, libimagelint-dev_*.deb with the library") {
  std::string why;
  if (!NeedExternal("Debian packaging tools", HavePackagingTools(&why), why)) return;
  const Packages& packages = Built();
  REQUIRE_MESSAGE(packages.error.empty(), packages.error);
  REQUIRE(!packages.runtime.empty());
  REQUIRE(!packages.development.empty());

  CHECK(Field(packages.runtime, "Package") == "imagelint");
  CHECK(Field(packages.development, "Package") == "libimagelint-dev");
  const std::string contents = RunCommand({"dpkg-deb", "-c", packages.runtime.string()}).out;
  for (const char* file : {"./usr/bin/imagelint", "./usr/share/imagelint/rules/cuda.yaml",
                           "./usr/share/imagelint/rules/knowledge/gpus.yaml", "./usr/share/imagelint/docs/rules/IL003.md",
                           "./usr/share/bash-completion/completions/imagelint", "./usr/share/man/man1/imagelint.1"})
    CHECK_MESSAGE(contents.find(file) != std::string::npos, file);
  const std::string dev_contents = RunCommand({"dpkg-deb", "-c", packages.development.string()}).out;
  for (const char* file : {"/include/imagelint/pipeline.h", "/libimagelint.a", "/cmake/imagelint/imagelintConfig.cmake",
                           "/cmake/imagelint/imagelintTargets.cmake"})
    CHECK_MESSAGE(dev_contents.find(file) != std::string::npos, file);

  // Every library the binary loads directly, by the package that holds it
  // here, is in Depends: nothing forgotten, whatever the build linked.
  const fs::path binary = packages.root / "usr/bin/imagelint";
  REQUIRE(fs::is_regular_file(binary));
  const std::set<std::string> depends = DependsNames(Field(packages.runtime, "Depends"));
  CAPTURE(Field(packages.runtime, "Depends"));
  const auto resolved = Resolved(binary);
  const auto needed = Needed(binary);
  // libc, libm, libisal (which ships no archive) at least; more where the
  // build links its dependencies as shared libraries (IMAGELINT_STATIC_DEPENDENCIES off).
  CHECK(needed.size() >= 3);
  for (const std::string& soname : needed) {
    CAPTURE(soname);
    REQUIRE(resolved.count(soname));
    std::string package = OwningPackage(resolved.at(soname));
    REQUIRE_MESSAGE(!package.empty(), resolved.at(soname).string());
    CHECK_MESSAGE(depends.count(package), package);
  }

  // Libraries loaded on demand (dlopen: libcurl, src/registry/curl_library.h;
  // libarchive, src/common/archive_library.h) are invisible to
  // dpkg-shlibdeps: their packages are in Depends too.
  for (const std::string& soname :
       {std::string(imagelint::registry::kCurlSoname), std::string(imagelint::kArchiveSoname)}) {
    CAPTURE(soname);
    std::string path;
    for (const std::string& line : Lines(RunCommand({"/sbin/ldconfig", "-p"}).out))
      if (line.find(soname + " (") != std::string::npos && line.find("x86-64") != std::string::npos)
        path = Trim(line.substr(line.find("=>") + 2));
    const std::string unlisted = "ldconfig -p does not list " + soname;
    REQUIRE_MESSAGE(!path.empty(), unlisted);
    const std::string package = OwningPackage(path);
    REQUIRE(!package.empty());
    CHECK_MESSAGE(depends.count(package), package);
  }

  // The packaged binary finds its data beside its bin/ directory.
  auto version = RunCommand({binary.string(), "--version"}, "", 60,
                            {"IMAGELINT_RULES_DIR=", "IMAGELINT_KNOWLEDGE_DIR=", "IMAGELINT_DOCS_DIR="});
  CHECK_MESSAGE(version.exit_code == 0, version.err);
  CHECK(version.out.find((packages.root / "usr/share/imagelint/docs").string()) != std::string::npos);
}

TEST_CASE("integrations: each installs the package with apt, and builds it with the -dev package of every library") {
  std::string why;
  if (!NeedExternal("Debian packaging tools", HavePackagingTools(&why), why)) return;
  const fs::path binary = ImagelintBinary();
  const auto resolved = Resolved(binary);
  const std::set<std::string> toolchain = BuildEssential();
  REQUIRE(toolchain.count("libc6-dev"));
  // The -dev package of each library: the one holding the link-time name
  // (libre2.so for libre2.so.9) beside it; libc, libm, libstdc++ and libgcc_s
  // come with build-essential.
  std::set<std::string> dev_packages;
  for (const std::string& soname : Needed(binary)) {
    CAPTURE(soname);
    REQUIRE(resolved.count(soname));
    const fs::path library = resolved.at(soname);
    std::string runtime = OwningPackage(library);
    REQUIRE(!runtime.empty());
    if (toolchain.count(runtime)) continue;
    std::string link_name = soname.substr(0, soname.find(".so") + 3);
    std::string dev = OwningPackage(fs::path(library).parent_path() / link_name);
    REQUIRE_MESSAGE(!dev.empty(), link_name << " (the -dev package of " << runtime << ")");
    if (!toolchain.count(dev)) dev_packages.insert(dev);
  }
  // Libraries loaded on demand are built against their headers: their -dev
  // packages are needed as well, though no NEEDED entry names them.
  for (const std::string& soname :
       {std::string(imagelint::registry::kCurlSoname), std::string(imagelint::kArchiveSoname)}) {
    CAPTURE(soname);
    std::string dev;
    for (const fs::path dir : {"/usr/lib/x86_64-linux-gnu", "/usr/lib"})
      if (dev.empty() && fs::exists(dir / soname.substr(0, soname.find(".so") + 3)))
        dev = OwningPackage(dir / soname.substr(0, soname.find(".so") + 3));
    REQUIRE_MESSAGE(!dev.empty(), "no -dev package holds the link name of " << soname);
    dev_packages.insert(dev);
  }
  // Libraries the executable links from their archives (cmake/link_static_deps.sh
  // names them) need their -dev packages to build, though no NEEDED entry names them.
  const std::string launcher = ReadFileText(SourceDir() / "cmake/link_static_deps.sh");
  const size_t names_at = launcher.find("static_names=\"");
  REQUIRE(names_at != std::string::npos);
  const size_t names_from = names_at + std::string("static_names=\"").size();
  std::istringstream names(launcher.substr(names_from, launcher.find('"', names_from) - names_from));
  for (std::string name; names >> name;) {
    CAPTURE(name);
    const fs::path archive = fs::path("/usr/lib/x86_64-linux-gnu") / (name + ".a");
    REQUIRE(fs::exists(archive));
    const std::string dev = OwningPackage(archive);
    REQUIRE_MESSAGE(!dev.empty(), archive.string());
    dev_packages.insert(dev);
  }
  CHECK(dev_packages.count("libre2-dev"));
  CHECK(dev_packages.count("libarchive-dev"));

  const std::string dockerfile = ReadFileText(SourceDir() / "Dockerfile");
  const std::string build_stage = Stage(dockerfile, 0);
  const std::string runtime_stage = Stage(dockerfile, 1);
  const std::string action = ReadFileText(SourceDir() / "action.yml");
  const std::string action_build = ActionStep(action, "Build the imagelint package");
  const std::string action_install = ActionStep(action, "Install the imagelint package");
  for (const std::string& dev : dev_packages) {
    CAPTURE(dev);
    CHECK_MESSAGE(NamesPackage(build_stage, dev), "Dockerfile's build stage");
    CHECK_MESSAGE(NamesPackage(action_build, dev), "action.yml's build step");
  }
  // Both build the package (CPack needs dpkg-shlibdeps and file) and install it with apt.
  for (const std::string& build : {build_stage, action_build}) {
    CHECK(build.find("--target package") != std::string::npos);
    CHECK(NamesPackage(build, "dpkg-dev"));
    CHECK(NamesPackage(build, "file"));
  }
  CHECK(runtime_stage.find("apt-get install") != std::string::npos);
  CHECK(runtime_stage.find("imagelint_*.deb") != std::string::npos);
  CHECK(runtime_stage.find("USER ") != std::string::npos);
  CHECK(action_install.find("apt-get install") != std::string::npos);
  CHECK(action_install.find("imagelint_*.deb") != std::string::npos);
  // On a cache hit the package is still installed.
  CHECK(action_install.find("cache-hit") == std::string::npos);
  CHECK(action.find("path: ${{ steps.locate.outputs.packages }}") != std::string::npos);
  // GitLab's job and the docker pre-commit hook use that Dockerfile.
  CHECK(ReadFileText(SourceDir() / "examples/gitlab/.gitlab-ci.yml").find("-f tools/imagelint/Dockerfile") != std::string::npos);
  CHECK(ReadFileText(SourceDir() / ".pre-commit-hooks.yaml").find("language: docker") != std::string::npos);
}
