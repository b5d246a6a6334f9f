#include "base_resolution/base_fixture.h"

#include <stdexcept>

#include <nlohmann/json.hpp>

#include "support/real_images.h"

namespace imagelint::testing {
namespace fs = std::filesystem;
using nlohmann::json;

bool MakeCudaBase(TestImage* image, std::string* why, const std::string& architecture) {
  const fs::path cudart = FindNvidiaFile("libcudart12", "trixie", "libcudart.so.12.4.");
  const fs::path libcuda = FindNvidiaFile("libcuda1", "trixie", "libcuda.so.550.");
  if (cudart.empty() || libcuda.empty()) {
    *why = "Debian's libcudart12 / libcuda1 (trixie) are not cached (scripts/fetch-nvidia-debs.sh)";
    return false;
  }
  // The environment NVIDIA's definition of the tag sets, from the knowledge tables.
  TempDir dir;
  WriteFileText(dir / "Dockerfile", "FROM nvidia/cuda:12.4.1-base-ubuntu22.04\n");
  auto facts = RunImagelint({"facts", (dir / "Dockerfile").string()});
  if (facts.exit_code != 0) {
    *why = "imagelint facts of a bare FROM: " + facts.err;
    return false;
  }
  const json parsed = json::parse(facts.out);
  image->env.clear();
  for (const auto& [name, value] : parsed.at("image").at("env").items())
    image->env.push_back(name + "=" + value.get<std::string>());
  image->empty_history.clear();
  image->architecture = architecture;
  const bool arm64 = architecture == "arm64";
  const std::string home = "usr/local/cuda-12.4/";
  const std::string target = arm64 ? "targets/sbsa-linux/lib" : "targets/x86_64-linux/lib";
  const std::string compat_name = libcuda.filename().string();
  const std::string compat_version = compat_name.substr(std::string("libcuda.so.").size());
  std::string packages = "Package: cuda-cudart-12-4\nStatus: install ok installed\nArchitecture: " + architecture +
                         "\nVersion: 12.4.127-1\n\n";
  if (!arm64)
    packages += "Package: cuda-compat-12-4\nStatus: install ok installed\nArchitecture: amd64\nVersion: " +
                compat_version + "-1\n\n";
  TestLayer& layer = image->Layer(Compression::kNone);
  layer.File("etc/os-release", "NAME=\"Ubuntu\"\nVERSION_ID=\"22.04\"\nID=ubuntu\nID_LIKE=debian\n")
      .File("etc/ld.so.conf", "include /etc/ld.so.conf.d/*.conf\n")
      .File("etc/ld.so.conf.d/nvidia.conf", "/usr/local/nvidia/lib\n/usr/local/nvidia/lib64\n")
      .File("var/lib/dpkg/status", packages)
      .File(home + target + "/" + cudart.filename().string(), ReadFileText(cudart), 0755)
      .Symlink(home + target + "/libcudart.so.12", cudart.filename().string())
      .Symlink(home + "lib64", target);
  if (!arm64)
    layer.File(home + "compat/" + compat_name, ReadFileText(libcuda), 0755)
        .Symlink(home + "compat/libcuda.so.1", compat_name)
        .Symlink(home + "compat/libcuda.so", "libcuda.so.1");
  layer.Symlink("usr/local/cuda", "cuda-12.4");
  image->layers.back().created_by = "COPY cuda /usr/local/cuda-12.4";
  return true;
}

fs::path FleetFile() { return SourceDir() / "tests" / "differential" / "fleet.yaml"; }

std::map<std::string, std::string> Verdicts(const std::vector<std::string>& args, const std::vector<std::string>& env,
                                            int* exit_code, std::string* err) {
  std::vector<std::string> argv = {"scan"};
  argv.insert(argv.end(), args.begin(), args.end());
  for (const char* extra : {"--fleet", "", "--format", "json", "--no-config"}) argv.push_back(extra);
  argv[argv.size() - 4] = FleetFile().string();
  auto result = RunImagelint(argv, "", env);
  *exit_code = result.exit_code;
  *err = result.err;
  std::map<std::string, std::string> out;
  if (result.exit_code != 0 && result.exit_code != 1) return out;
  const json report = json::parse(result.out);
  for (const json& verdict : report.at("images").at(0).at("verdicts")) {
    std::string shown = verdict.at("status").get<std::string>();
    if (verdict.at("predicted_error").is_object()) shown += "/" + std::to_string(verdict["predicted_error"].value("code", 0));
    out[verdict.at("pool").get<std::string>()] = shown;
  }
  return out;
}

std::string FactsOut(const std::vector<std::string>& args, const std::vector<std::string>& env) {
  std::vector<std::string> argv = {"facts"};
  argv.insert(argv.end(), args.begin(), args.end());
  auto result = RunImagelint(argv, "", env);
  if (result.exit_code != 0) throw std::runtime_error("imagelint facts exited " + std::to_string(result.exit_code) + ": " + result.err);
  return result.out;
}

}  // namespace imagelint::testing
