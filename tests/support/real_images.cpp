#include "support/real_images.h"

#include <cstdlib>
#include <fstream>

#include <nlohmann/json.hpp>

#include "support/docker_engine.h"
#include "support/image_builder.h"
#include "support/test_support.h"

namespace imagelint::testing {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

const char* kDockerfile =
    "FROM imagelint-test/base:1\n"
    "ADD somefile.txt /somefile.txt\n"
    "RUN mkdir -p /root/example/really/nested\n"
    "RUN cp /somefile.txt /root/example/somefile1.txt && chmod 444 /root/example/somefile1.txt && "
    "cp /somefile.txt /root/example/somefile2.txt && cp /somefile.txt /root/example/somefile3.txt\n"
    "RUN mv /root/example/somefile3.txt /root/saved.txt && cp /root/saved.txt /root/.saved.txt\n"
    "RUN rm -rf /root/example/\n"
    "ADD .scripts/ /root/.data/\n"
    "RUN cp /root/saved.txt /tmp/saved.again1.txt && cp /root/saved.txt /root/.data/saved.again2.txt\n"
    "RUN chmod +x /root/saved.txt\n"
    "ENV NVIDIA_REQUIRE_CUDA=\"cuda>=12.4 brand=tesla,driver>=470,driver<471\" CUDA_VERSION=12.4.1\n"
    "LABEL com.example.fixture=\"real tools\"\n";

fs::path DebsDir() {
  if (const char* env = std::getenv("IMAGELINT_NVIDIA_DEBS"); env && *env) return env;
  const char* home = std::getenv("HOME");
  return fs::path(home ? home : "/root") / ".cache" / "imagelint" / "nvidia-debs";
}

// The unpacked root of a cached NVIDIA package (scripts/fetch-nvidia-debs.sh's index).
fs::path PackageRoot(const std::string& package, const std::string& suite) {
  std::ifstream index(DebsDir() / "index.tsv");
  for (std::string line; std::getline(index, line);) {
    std::vector<std::string> fields;
    size_t start = 0;
    for (size_t tab; (tab = line.find('\t', start)) != std::string::npos; start = tab + 1)
      fields.push_back(line.substr(start, tab - start));
    fields.push_back(line.substr(start));
    if (fields.size() >= 4 && fields[0] == package && fields[1] == suite) return fields[3];
  }
  return {};
}

fs::path FindFile(const fs::path& root, const std::string& prefix) {
  std::error_code ec;
  if (root.empty() || !fs::is_directory(root, ec)) return {};
  for (auto it = fs::recursive_directory_iterator(root, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    if (it->is_regular_file() && it->path().filename().string().rfind(prefix, 0) == 0) return it->path();
  }
  return {};
}

}  // namespace

fs::path FindNvidiaFile(const std::string& package, const std::string& suite, const std::string& prefix) {
  return FindFile(PackageRoot(package, suite), prefix);
}

namespace {

class Steps {
 public:
  Steps(RealImages& images, std::string* why) : images_(images), why_(why) {}
  // Runs one tool; false (with its output in `why`) when it fails.
  bool Run(const std::vector<std::string>& argv, const std::vector<std::string>& env = {}) {
    auto result = RunCommand(argv, "", 300, env);
    if (result.exit_code == 0) return true;
    std::string command;
    for (const auto& word : argv) command += (command.empty() ? "" : " ") + word;
    *why_ = command + " failed (" + std::to_string(result.exit_code) + "): " + result.out + result.err;
    return false;
  }
  bool Docker(DockerEngine& engine, const std::vector<std::string>& args) {
    auto result = engine.Docker(args);
    if (result.exit_code == 0) return true;
    *why_ = "docker " + (args.empty() ? "" : args[0]) + " failed: " + result.out + result.err + "\ndockerd log:\n" +
            engine.Log().substr(engine.Log().size() > 3000 ? engine.Log().size() - 3000 : 0);
    return false;
  }
  // Times one named step.
  template <typename F>
  bool Timed(const std::string& name, F step) {
    auto start = std::chrono::steady_clock::now();
    bool ok = step();
    images_.timings[name] =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start);
    return ok;
  }

 private:
  RealImages& images_;
  std::string* why_;
};

// A root file system from local files: busybox-static and, when cached, the
// genuine NVIDIA libraries where the CUDA images keep them.
bool MakeBase(const fs::path& root, bool* with_nvidia, std::string* why) {
  std::string busybox;
  for (const char* candidate : {"/bin/busybox", "/usr/bin/busybox"})
    if (fs::exists(candidate)) busybox = candidate;
  if (busybox.empty()) {
    *why = "Debian's busybox-static is not installed (the base image's shell)";
    return false;
  }
  fs::create_directories(root / "bin");
  fs::copy_file(busybox, root / "bin" / "busybox");
  for (const char* applet : {"sh", "ls", "cat", "cp", "mv", "rm", "mkdir", "chmod", "echo", "true"})
    fs::create_symlink("busybox", root / "bin" / applet);
  for (const char* dir : {"etc", "root", "tmp"}) fs::create_directories(root / dir);
  WriteFileText(root / "etc" / "os-release", "ID=busybox\nNAME=\"BusyBox test base\"\n");
  fs::path cudart = FindNvidiaFile("libcudart12", "trixie", "libcudart.so.12.");
  fs::path libcuda = FindNvidiaFile("libcuda1", "trixie", "libcuda.so.550.");
  *with_nvidia = !cudart.empty() && !libcuda.empty();
  if (*with_nvidia) {
    fs::path cuda = root / "usr" / "local" / "cuda-12.4";
    fs::create_directories(cuda / "lib64");
    fs::create_directories(cuda / "compat");
    fs::copy_file(cudart, cuda / "lib64" / cudart.filename());
    fs::create_symlink(cudart.filename(), cuda / "lib64" / "libcudart.so.12");
    fs::copy_file(libcuda, cuda / "compat" / libcuda.filename());
    fs::create_symlink(libcuda.filename(), cuda / "compat" / "libcuda.so.1");
    fs::create_symlink("cuda-12.4", root / "usr" / "local" / "cuda");
  }
  return true;
}

// The Docker >= 25 `docker save` layout, from the bytes of a Docker 20.10
// save: every layer.tar and the config become blobs/sha256/<digest> (layers
// stay uncompressed, as Docker writes them), an OCI image manifest and an
// index.json naming the image (io.containerd.image.name and
// org.opencontainers.image.ref.name annotations), oci-layout, and
// manifest.json/repositories pointing at the blobs, as moby's
// image/tarexport writes them since Docker 25. With `null_manifests`,
// index.json says "manifests": null (seen in the field) and only
// manifest.json names the image.
bool MakeDocker25(const fs::path& legacy_save, const fs::path& work, const fs::path& out, const std::string& tag,
                  bool null_manifests, std::string* why) {
  fs::path legacy = work / "legacy";
  fs::path layout = work / "layout";
  fs::remove_all(work);
  fs::create_directories(legacy);
  fs::create_directories(layout / "blobs" / "sha256");
  auto extracted = RunCommand({"tar", "-xf", legacy_save.string(), "-C", legacy.string()});
  if (extracted.exit_code != 0) {
    *why = "tar -xf " + legacy_save.string() + ": " + extracted.err;
    return false;
  }
  auto add_blob = [&](const std::vector<uint8_t>& bytes) {
    std::string digest = TestDigest(bytes);
    WriteFileBytes(layout / "blobs" / "sha256" / digest.substr(7), bytes);
    return json{{"digest", digest}, {"size", bytes.size()}};
  };
  auto path_of = [](const json& descriptor) { return "blobs/sha256/" + descriptor["digest"].get<std::string>().substr(7); };
  json saved = json::parse(ReadFileText(legacy / "manifest.json"))[0];
  json config = add_blob(ReadFileBytes(legacy / saved["Config"].get<std::string>()));
  config["mediaType"] = "application/vnd.oci.image.config.v1+json";
  json layers = json::array();
  json layer_paths = json::array();
  for (const auto& layer_path : saved["Layers"]) {
    json layer = add_blob(ReadFileBytes(legacy / layer_path.get<std::string>()));
    layer["mediaType"] = "application/vnd.oci.image.layer.v1.tar";
    layer_paths.push_back(path_of(layer));
    layers.push_back(layer);
  }
  json manifest = {{"schemaVersion", 2}, {"mediaType", "application/vnd.oci.image.manifest.v1+json"},
                   {"config", config}, {"layers", layers}};
  std::string text = manifest.dump();
  json descriptor = add_blob(std::vector<uint8_t>(text.begin(), text.end()));
  descriptor["mediaType"] = "application/vnd.oci.image.manifest.v1+json";
  const std::string repository = tag.substr(0, tag.rfind(':'));
  const std::string version = tag.substr(tag.rfind(':') + 1);
  descriptor["annotations"] = {{"io.containerd.image.name", "docker.io/" + tag},
                               {"org.opencontainers.image.ref.name", version}};
  json index = {{"schemaVersion", 2}, {"mediaType", "application/vnd.oci.image.index.v1+json"},
                {"manifests", null_manifests ? json(nullptr) : json::array({descriptor})}};
  WriteFileText(layout / "index.json", index.dump());
  WriteFileText(layout / "oci-layout", R"({"imageLayoutVersion":"1.0.0"})");
  WriteFileText(layout / "manifest.json",
                json::array({{{"Config", path_of(config)}, {"RepoTags", {tag}}, {"Layers", layer_paths}}}).dump());
  WriteFileText(layout / "repositories",
                json({{repository, {{version, config["digest"].get<std::string>().substr(7)}}}}).dump());
  auto tarred = RunCommand({"tar", "-C", layout.string(), "-cf", out.string(), "blobs", "index.json", "manifest.json",
                            "oci-layout", "repositories"});
  if (tarred.exit_code != 0) *why = "tar -cf " + out.string() + ": " + tarred.err;
  return tarred.exit_code == 0;
}

}  // namespace

bool RealImages::Make(const fs::path& dir, std::string* why) {
  for (const char* tool : {"skopeo", "umoci", "buildah", "tar"}) {
    if (!HaveProgram(tool)) {
      *why = std::string(tool) + " is not installed (scripts/setup.sh installs it)";
      return false;
    }
  }
  DockerEngine* engine = DockerEngine::Shared(why);
  if (!engine) return false;
  timings["dockerd start"] = engine->StartTime();
  Steps steps(*this, why);
  fs::create_directories(dir);
  const std::string policy = (dir / "policy.json").string();
  WriteFileText(policy, R"({"default":[{"type":"insecureAcceptAnything"}]})");
  const std::string skopeo_policy = "--policy=" + policy;

  // The base, imported into the engine; the app built from the Dockerfile; the save.
  fs::path context = dir / "context";
  fs::create_directories(context / ".scripts");
  WriteFileText(context / "Dockerfile", kDockerfile);
  WriteFileText(context / "somefile.txt", "a file added by the fixture's Dockerfile\n");
  WriteFileText(context / ".scripts" / "run.sh", "#!/bin/sh\necho run\n");
  WriteFileText(context / ".scripts" / "test.sh", "#!/bin/sh\necho test\n");
  bool ok = steps.Timed("docker import (base)", [&] {
    if (!MakeBase(dir / "base-root", &with_nvidia, why)) return false;
    return steps.Run({"tar", "-C", (dir / "base-root").string(), "-cf", (dir / "base-root.tar").string(), "."}) &&
           steps.Docker(*engine, {"import", (dir / "base-root.tar").string(), "imagelint-test/base:1"});
  });
  ok = ok && steps.Timed("docker build + save", [&] {
    docker_save = dir / "docker-save.tar";
    return steps.Docker(*engine, {"build", "--network", "none", "-t", tag, context.string()}) &&
           steps.Docker(*engine, {"save", "-o", docker_save.string(), tag}) &&
           steps.Docker(*engine, {"save", "-o", (dir / "base.tar").string(), "imagelint-test/base:1"});
  });
  const std::string source = "docker-archive:" + docker_save.string();
  ok = ok && steps.Timed("skopeo oci-archive gzip", [&] {
    oci_gzip = dir / "oci-gzip.tar";
    return steps.Run({"skopeo", skopeo_policy, "copy", "--dest-compress-format", "gzip", source,
                      "oci-archive:" + oci_gzip.string() + ":1"});
  });
  ok = ok && steps.Timed("skopeo oci-archive zstd", [&] {
    oci_zstd = dir / "oci-zstd.tar";
    return steps.Run({"skopeo", skopeo_policy, "copy", "--dest-compress-format", "zstd", source,
                      "oci-archive:" + oci_zstd.string() + ":1"});
  });
  ok = ok && steps.Timed("docker 25 layouts (from the docker save)", [&] {
    docker25_save = dir / "docker25-save.tar";
    docker25_null = dir / "docker25-null.tar";
    return MakeDocker25(docker_save, dir / "docker25", docker25_save, tag, false, why) &&
           MakeDocker25(docker_save, dir / "docker25-null", docker25_null, tag, true, why);
  });
  ok = ok && steps.Timed("umoci repack", [&] {
    oci_layout_umoci = dir / "umoci-layout";
    fs::path bundle = dir / "umoci-bundle";
    std::string image = oci_layout_umoci.string() + ":1";
    bool unpacked = steps.Run({"skopeo", skopeo_policy, "copy", source, "oci:" + image}) &&
                    steps.Run({"umoci", "unpack", "--image", image, bundle.string()});
    if (!unpacked) return false;
    WriteFileText(bundle / "rootfs" / "opt" / "umoci.txt", "added by umoci repack\n");
    fs::remove(bundle / "rootfs" / "tmp" / "saved.again1.txt");  // a whiteout written by umoci
    return steps.Run({"umoci", "repack", "--image", image, bundle.string()});
  });
  ok = ok && steps.Timed("buildah bud + push", [&] {
    buildah_archive = dir / "buildah.tar";
    std::vector<std::string> buildah = {"buildah", "--storage-driver=vfs", "--root=" + (dir / "buildah").string(),
                                        "--runroot=" + (dir / "buildah-run").string()};
    auto with = [&](std::vector<std::string> args) {
      std::vector<std::string> argv = buildah;
      argv.insert(argv.end(), args.begin(), args.end());
      return argv;
    };
    WriteFileText(dir / "auth.json", "{}");  // never the user's registry credentials
    std::vector<std::string> env = {"BUILDAH_ISOLATION=chroot", "REGISTRY_AUTH_FILE=" + (dir / "auth.json").string()};
    // The base comes from the engine's save (named localhost/imagelint-test/base:1 in buildah's storage).
    return steps.Run(with({"pull", "--signature-policy", policy, "docker-archive:" + (dir / "base.tar").string()}), env) &&
           steps.Run(with({"bud", "--signature-policy", policy, "--layers", "--isolation", "chroot", "--pull-never",
                           "-t", "imagelint-test/buildah:1", context.string()}),
                     env) &&
           steps.Run(with({"push", "--signature-policy", policy, "imagelint-test/buildah:1",
                           "oci-archive:" + buildah_archive.string() + ":1"}),
                     env);
  });
  return ok;
}

}  // namespace imagelint::testing
