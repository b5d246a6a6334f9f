#include "validation/workshop.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>
#include <stdexcept>

#include "imagelint/digest.h"
#include "support/test_support.h"

namespace imagelint::validation {

using json = nlohmann::json;
using imagelint::testing::RunCommand;

fs::path DebsDir() {
  if (const char* env = std::getenv("IMAGELINT_NVIDIA_DEBS"); env && *env) return env;
  const char* home = std::getenv("HOME");
  return fs::path(home ? home : "/root") / ".cache" / "imagelint" / "nvidia-debs";
}

fs::path PackageRoot(const std::string& package, const std::string& suite) {
  std::ifstream index(DebsDir() / "index.tsv");
  for (std::string line; std::getline(index, line);) {
    std::istringstream fields(line);
    std::string name, in_suite, version, root;
    if (std::getline(fields, name, '\t') && std::getline(fields, in_suite, '\t') &&
        std::getline(fields, version, '\t') && std::getline(fields, root, '\t') && name == package &&
        in_suite == suite)
      return root;
  }
  // index.tsv lists what the last fetch was asked for; every package it ever
  // unpacked stays in root/<package>_<suite>, marked done.
  fs::path unpacked = DebsDir() / "root" / (package + "_" + suite);
  if (fs::exists(unpacked / ".done")) return unpacked;
  return {};
}

fs::path PackageFile(const std::string& package, const std::string& suite, const std::string& name) {
  fs::path root = PackageRoot(package, suite);
  std::error_code ec;
  if (root.empty() || !fs::is_directory(root, ec)) return {};
  std::regex pattern(name);
  for (auto it = fs::recursive_directory_iterator(root, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    if (it->is_regular_file() && !it->is_symlink() && std::regex_match(it->path().filename().string(), pattern))
      return it->path();
  }
  return {};
}

bool HaveParts(const std::vector<std::string>& wanted, std::string* missing) {
  if (!fs::exists(kNvcc)) {
    *missing = std::string(kNvcc) + " (the CUDA toolkit)";
    return false;
  }
  for (const auto& entry : wanted) {
    size_t slash = entry.find('/');
    fs::path root = PackageRoot(entry.substr(0, slash), entry.substr(slash + 1));
    if (root.empty() || !fs::is_directory(root)) {
      *missing = entry + " (scripts/fetch-nvidia-debs.sh)";
      return false;
    }
  }
  return true;
}

std::string MajorName(const fs::path& library) {
  std::string name = library.filename().string();
  size_t so = name.find(".so.");
  if (so == std::string::npos) return name;
  size_t dot = name.find('.', so + 4);
  return dot == std::string::npos ? name : name.substr(0, dot);
}

// ---- root file systems ------------------------------------------------------

Rootfs::Rootfs(fs::path root) : root_(std::move(root)) { fs::create_directories(root_); }

fs::path Rootfs::Host(const std::string& image_path) const {
  fs::path path = root_ / fs::path(image_path).relative_path();
  fs::create_directories(path.parent_path());
  return path;
}

void Rootfs::Put(const std::string& image_path, const fs::path& host_file, bool executable) {
  if (host_file.empty() || !fs::is_regular_file(host_file))
    throw std::runtime_error("validation image: no file " + host_file.string() + " for " + image_path);
  fs::path target = Host(image_path);
  std::error_code ec;
  fs::remove(target, ec);
  const auto exec = fs::perms::owner_exec | fs::perms::group_exec | fs::perms::others_exec;
  // A hard link shares its mode with the original: only a file that already
  // has the wanted mode is linked, never one that would have to change.
  bool linkable = !executable || (fs::status(host_file).permissions() & fs::perms::owner_exec) != fs::perms::none;
  if (linkable) fs::create_hard_link(fs::canonical(host_file), target, ec);
  if (!linkable || ec) {
    fs::copy_file(host_file, target, fs::copy_options::overwrite_existing);
    if (executable) fs::permissions(target, exec, fs::perm_options::add);
  }
}

void Rootfs::Link(const std::string& image_path, const std::string& target) {
  fs::path link = Host(image_path);
  std::error_code ec;
  fs::remove(link, ec);
  fs::create_symlink(target, link);
}

void Rootfs::Write(const std::string& image_path, const std::string& text) {
  imagelint::testing::WriteFileText(Host(image_path), text);
}

void Rootfs::Dir(const std::string& image_path) { fs::create_directories(root_ / fs::path(image_path).relative_path()); }

void Rootfs::Library(const std::string& dir, const fs::path& host_file, const std::vector<std::string>& links) {
  std::string name = host_file.filename().string();
  Put(dir + "/" + name, host_file);
  for (const auto& link : links)
    if (link != name) Link(dir + "/" + link, name);
}

void Rootfs::DebianBase() {
  const fs::path multiarch = "/usr/lib/x86_64-linux-gnu";
  for (const char* soname : {"libc.so.6", "libm.so.6", "libdl.so.2", "libpthread.so.0", "librt.so.1", "libgcc_s.so.1",
                             "libutil.so.1", "libstdc++.so.6", "ld-linux-x86-64.so.2"}) {
    fs::path real = fs::canonical(multiarch / soname);
    Library("/usr/lib/x86_64-linux-gnu", real, {soname});
  }
  Link("/lib", "usr/lib");
  Link("/lib64/ld-linux-x86-64.so.2", "/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2");
  if (fs::exists("/etc/os-release")) Put("/etc/os-release", fs::canonical("/etc/os-release"));
  Write("/etc/ld.so.conf", "include /etc/ld.so.conf.d/*.conf\n\n");
  Write("/etc/ld.so.conf.d/libc.conf", "# libc default configuration\n/usr/local/lib\n");
  Write("/etc/ld.so.conf.d/x86_64-linux-gnu.conf",
        "# Multiarch support\n/usr/local/lib/x86_64-linux-gnu\n/lib/x86_64-linux-gnu\n/usr/lib/x86_64-linux-gnu\n");
  Dir("/tmp");
}

// ---- OCI layout -------------------------------------------------------------

namespace {

std::string FileDigest(const fs::path& path, uint64_t* size) {
  Sha256 hasher;
  std::ifstream in(path, std::ios::binary);
  std::vector<uint8_t> buffer(1 << 20);
  *size = 0;
  while (in.read(reinterpret_cast<char*>(buffer.data()), static_cast<std::streamsize>(buffer.size())) ||
         in.gcount() > 0) {
    hasher.Update(std::span<const uint8_t>(buffer.data(), static_cast<size_t>(in.gcount())));
    *size += static_cast<uint64_t>(in.gcount());
  }
  return hasher.FinishDigest();
}

std::string PutBlob(const fs::path& layout, const std::string& text, uint64_t* size) {
  std::vector<uint8_t> bytes(text.begin(), text.end());
  std::string digest = Sha256Digest(bytes);
  imagelint::testing::WriteFileText(layout / "blobs" / "sha256" / digest.substr(7), text);
  *size = bytes.size();
  return digest;
}

}  // namespace

bool WriteOciLayout(const fs::path& rootfs, const ImageConfig& config, const fs::path& layout, std::string* why) {
  fs::create_directories(layout / "blobs" / "sha256");
  // GNU tar, as a build tool writes a layer: names relative to the root,
  // sorted, owned by root, no timestamps that change between runs.
  std::vector<std::string> argv = {"tar",          "--create",    "--file",     (layout / "layer.tar").string(),
                                   "--directory",  rootfs.string(), "--sort=name", "--owner=0",
                                   "--group=0",    "--numeric-owner", "--mtime=@0", "--format=posix",
                                   "--pax-option=exthdr.name=%d/PaxHeaders/%f,delete=atime,delete=ctime"};
  std::vector<std::string> top;
  for (const auto& entry : fs::directory_iterator(rootfs)) top.push_back(entry.path().filename().string());
  std::sort(top.begin(), top.end());
  argv.insert(argv.end(), top.begin(), top.end());
  if (!Run(argv, why)) return false;
  uint64_t layer_size = 0;
  std::string layer_digest = FileDigest(layout / "layer.tar", &layer_size);
  fs::rename(layout / "layer.tar", layout / "blobs" / "sha256" / layer_digest.substr(7));

  json image_config = {{"architecture", "amd64"},
                       {"os", "linux"},
                       {"config", {{"Env", config.env}}},
                       {"rootfs", {{"type", "layers"}, {"diff_ids", {layer_digest}}}},
                       {"history", {{{"created_by", config.created_by}}}}};
  if (!config.entrypoint.empty()) image_config["config"]["Entrypoint"] = config.entrypoint;
  if (!config.cmd.empty()) image_config["config"]["Cmd"] = config.cmd;
  uint64_t config_size = 0;
  std::string config_digest = PutBlob(layout, image_config.dump(), &config_size);
  json manifest = {{"schemaVersion", 2},
                   {"mediaType", "application/vnd.oci.image.manifest.v1+json"},
                   {"config",
                    {{"mediaType", "application/vnd.oci.image.config.v1+json"},
                     {"digest", config_digest},
                     {"size", config_size}}},
                   {"layers",
                    {{{"mediaType", "application/vnd.oci.image.layer.v1.tar"},
                      {"digest", layer_digest},
                      {"size", layer_size}}}}};
  uint64_t manifest_size = 0;
  std::string manifest_digest = PutBlob(layout, manifest.dump(), &manifest_size);
  json index = {{"schemaVersion", 2},
                {"mediaType", "application/vnd.oci.image.index.v1+json"},
                {"manifests",
                 {{{"mediaType", "application/vnd.oci.image.manifest.v1+json"},
                   {"digest", manifest_digest},
                   {"size", manifest_size},
                   {"annotations", {{"org.opencontainers.image.ref.name", "validation"}}}}}}};
  imagelint::testing::WriteFileText(layout / "index.json", index.dump());
  imagelint::testing::WriteFileText(layout / "oci-layout", R"({"imageLayoutVersion":"1.0.0"})");
  return true;
}

// ---- tools ------------------------------------------------------------------

bool Run(const std::vector<std::string>& argv, std::string* why) {
  auto result = RunCommand(argv, "", 300);
  if (result.exit_code == 0) return true;
  std::string command;
  for (const auto& word : argv) command += (command.empty() ? "" : " ") + word;
  *why = command + " failed (" + std::to_string(result.exit_code) + "): " + result.out + result.err;
  return false;
}

bool NvccWithPtxVersion(const std::vector<std::string>& nvcc_args, const fs::path& work, const std::string& from,
                        const std::string& to, std::string* why) {
  std::vector<std::string> argv = {"bash", (ValidationDir() / "nvcc_ptx_version.sh").string(), from, to,
                                   work.string(), kNvcc};
  argv.insert(argv.end(), nvcc_args.begin(), nvcc_args.end());
  return Run(argv, why);
}

std::string ObservedHostFleet() {
  return "pools:\n"
         "  - name: h100-580\n"
         "    gpu: NVIDIA H100 80GB HBM3\n"
         "    driver: \"580.159.04\"\n"
         "    runtime: cdi\n"
         "    cuda_compat_mode: disabled\n"
         "    disable_require: true\n";
}

json ScanReport(const std::vector<std::string>& images, const fs::path& fleet, std::string* why,
                const std::vector<std::string>& extra) {
  std::vector<std::string> args = {"scan"};
  args.insert(args.end(), images.begin(), images.end());
  for (const char* flag : {"--fleet", fleet.c_str(), "--format", "json", "--no-config", "--fail-on", "none", "-q"})
    args.push_back(flag);
  args.insert(args.end(), extra.begin(), extra.end());
  auto result = imagelint::testing::RunImagelint(args);
  if (result.exit_code != 0) {
    *why = "imagelint exit " + std::to_string(result.exit_code) + ": " + result.err;
    return nullptr;
  }
  try {
    return json::parse(result.out);
  } catch (const std::exception& e) {
    *why = std::string("report is not JSON: ") + e.what();
    return nullptr;
  }
}

std::vector<std::map<std::string, std::string>> ReadTsv(const fs::path& path) {
  std::vector<std::map<std::string, std::string>> rows;
  std::ifstream in(path);
  std::vector<std::string> header;
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> fields;
    size_t start = 0;
    for (size_t tab; (tab = line.find('\t', start)) != std::string::npos; start = tab + 1)
      fields.push_back(line.substr(start, tab - start));
    fields.push_back(line.substr(start));
    if (header.empty()) {
      header = fields;
      continue;
    }
    std::map<std::string, std::string> row;
    for (size_t i = 0; i < header.size() && i < fields.size(); ++i) row[header[i]] = fields[i];
    rows.push_back(row);
  }
  return rows;
}

fs::path ValidationDir() { return imagelint::testing::SourceDir() / "tests" / "validation"; }

}  // namespace imagelint::validation
