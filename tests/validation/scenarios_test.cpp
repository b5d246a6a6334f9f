// The scenarios run on a real H100 (driver 580.159.04, 2026-11-27; see
// observed/README.md), rebuilt here from genuine parts, and imagelint's
// prediction for that host compared with the CUDA error that was OBSERVED
// there (observed/results.tsv, observed/results-batch2.tsv). The expected
// code is read from those files, never written here.
#include <doctest/doctest.h>

#include <cstdlib>
#include <functional>

#include "support/test_support.h"
#include "validation/programs.h"
#include "validation/workshop.h"

namespace fs = std::filesystem;
using imagelint::testing::NeedExternal;
using imagelint::testing::TempDir;
using imagelint::testing::WriteFileText;
using nlohmann::json;
using namespace imagelint::validation;

namespace {

// Which libcuda the image carries, and how it is placed.
enum class Driver {
  kNone,        // only the host's, injected by the runtime
  kCompat,      // a Debian libcuda in /usr/local/cuda/compat, first on LD_LIBRARY_PATH
  kCompatAway,  // the same, not on any path the loader searches
  kStubFirst,   // the toolkit's stub as stubs/libcuda.so.1, stubs first on the path
  kStubDir,     // the stubs directory first on the path, only libcuda.so in it
};

struct Scenario {
  const char* name;     // as in the observed files
  const char* file;     // which observed file
  // The program: a CUDA 13 program compiled with these -gencode values, or
  // (empty) a host program linked to `cudart`.
  std::vector<std::string> gencode;
  const char* ptx_version;  // raise the embedded PTX's ISA to this ("" = as nvcc wrote it)
  const char* cudart;       // "13" (the nvcc installation's) or "package/suite"
  Driver driver;
  const char* libcuda;      // "package/suite" of the libcuda for kCompat / kCompatAway
  const char* why;          // why CUDA returns what was observed
};

const char* kBatch1 = "results.tsv";
const char* kBatch2 = "results-batch2.tsv";
const std::vector<std::string> kSm90Ptx90 = {"arch=compute_90,code=[sm_90,compute_90]"};

// The scenarios of observed/README.md, built as it describes them.
const std::vector<Scenario>& Scenarios() {
  static const std::vector<Scenario> all = {
      {"A_sm90_ptx90", kBatch1, kSm90Ptx90, "", "13", Driver::kNone, "",
       "sm_90 SASS runs on the H100 (9.0); cudart 13.0 on a 13.0 driver"},
      {"B_sm80_only", kBatch1, {"arch=compute_80,code=sm_80"}, "", "13", Driver::kNone, "",
       "sm_80 SASS runs only on 8.x and there is no PTX to JIT: 209 at the launch"},
      {"C_ptx80_only", kBatch1, {"arch=compute_80,code=compute_80"}, "", "13", Driver::kNone, "",
       "compute_80 PTX (ISA 9.0) is JIT-compiled for 9.0 by the 13.0 driver"},
      {"D1_sm100_only", kBatch1, {"arch=compute_100,code=sm_100"}, "", "13", Driver::kNone, "",
       "sm_100 SASS does not run on 9.0: 209"},
      {"D2_ptx100_only", kBatch1, {"arch=compute_100,code=compute_100"}, "", "13", Driver::kNone, "",
       "PTX for a newer architecture (10.0) cannot be compiled for 9.0: 209"},
      {"E_sm90a_only", kBatch1, {"arch=compute_90a,code=sm_90a"}, "", "13", Driver::kNone, "",
       "sm_90a SASS runs on exactly 9.0"},
      {"F_stub_first", kBatch1, kSm90Ptx90, "", "13", Driver::kStubFirst, "",
       "the loader finds the toolkit's stub as libcuda.so.1 before the host's: 34 at the first call"},
      {"F2_stub_dir_no_so1", kBatch1, kSm90Ptx90, "", "13", Driver::kStubDir, "",
       "the stub is only libcuda.so, nobody loads that name; libcuda.so.1 comes from the host"},
      {"G1_compat550_cudart12", kBatch1, {}, "", "libcudart12/trixie", Driver::kCompat, "libcuda1/trixie",
       "libcuda 550 (12.4) satisfies cudart 12.4 but is older than the 580 kernel module: 803"},
      {"G2_compat550_cudart13", kBatch1, kSm90Ptx90, "", "13", Driver::kCompat, "libcuda1/trixie",
       "the libcuda that loads (550) reports 12.4, below cudart 13.0's minimum: 35 before any pairing check"},
      {"G3_compat535_cudart12", kBatch1, {}, "", "libcudart12/trixie", Driver::kCompat,
       "libnvidia-tesla-535-cuda1/bookworm",
       "libcuda 535 (12.2) serves cudart 12.4 by minor-version compatibility, older than the module: 803"},
      {"G4_compat550_not_on_path", kBatch1, {}, "", "libcudart12/trixie", Driver::kCompatAway, "libcuda1/trixie",
       "the compat copy is on no search path (and compat mode is disabled): the host's 580 loads"},
      {"H11_cudart11_8", kBatch1, {}, "", "libcudart11.0/bookworm", Driver::kNone, "",
       "cudart 11.8 on a 13.0 driver: backward compatible"},
      {"H12_cudart12_4", kBatch1, {}, "", "libcudart12/trixie", Driver::kNone, "",
       "cudart 12.4 on a 13.0 driver: backward compatible"},
      {"I_ptx80_isa91", kBatch1, {"arch=compute_80,code=compute_80"}, "9.1", "13", Driver::kNone, "",
       "PTX ISA 9.1 is newer than the 13.0 driver's JIT (9.0): 222"},
      {"K1_cudart112_libcuda460", kBatch2, {}, "", "libcudart11.0/bullseye", Driver::kCompat,
       "libnvidia-tesla-460-cuda1/bullseye", "libcuda 460 (11.2) serves cudart 11.2, older than the module: 803"},
      {"K2_cudart112_libcuda450", kBatch2, {}, "", "libcudart11.0/bullseye", Driver::kCompat,
       "libnvidia-tesla-450-cuda1/bullseye",
       "R450 predates Hopper: the libcuda that loads finds no device it knows, 100 at cuInit"},
      {"K3_cudart112_libcuda418", kBatch2, {}, "", "libcudart11.0/bullseye", Driver::kCompat,
       "libnvidia-tesla-418-cuda1/bullseye",
       "libcuda 418 NEEDs libnvidia-fatbinaryloader.so.418.226.00, which the image lacks: it cannot load, "
       "no driver is found: 35"},
      {"K4_cudart124_libcuda470", kBatch2, {}, "", "libcudart12/trixie", Driver::kCompat, "libcuda1/bullseye",
       "libcuda 470 reports 11.4, below cudart 12's minimum (12.0): 35"},
      {"K5_cudart118_libcuda470", kBatch2, {}, "", "libcudart11.0/bookworm", Driver::kCompat, "libcuda1/bullseye",
       "11.x minor-version compatibility lets 470 (11.4) serve cudart 11.8; older than the module: 803"},
      {"K6_cudart118_libcuda418", kBatch2, {}, "", "libcudart11.0/bookworm", Driver::kCompat,
       "libnvidia-tesla-418-cuda1/bullseye", "as K3: the 418 copy cannot load: 35"},
  };
  return all;
}

std::vector<std::string> PartsOf(const Scenario& s) {
  std::vector<std::string> parts;
  if (std::string(s.cudart) != "13") parts.push_back(s.cudart);
  if (*s.libcuda) parts.push_back(s.libcuda);
  return parts;
}

std::pair<std::string, std::string> Split(const std::string& entry) {
  size_t slash = entry.find('/');
  return {entry.substr(0, slash), entry.substr(slash + 1)};
}

// The observed code of a scenario, and of its eager-loading run when there is one.
std::map<std::string, std::string> Observed(const std::string& file) {
  std::map<std::string, std::string> codes;
  for (const auto& row : ReadTsv(ValidationDir() / "observed" / file)) codes[row.at("scenario")] = row.at("observed_code");
  return codes;
}

// Lays out one scenario's image; false with `why` when a part cannot be made.
bool BuildScenario(const Scenario& s, Programs& programs, const fs::path& rootfs_dir, const fs::path& layout,
                   std::string* why) {
  Rootfs rootfs(rootfs_dir);
  rootfs.DebianBase();
  const std::string lib64 = "/usr/local/cuda/lib64";
  std::vector<std::string> path = {lib64};
  // The program and its kernel file.
  const Built* built = nullptr;
  if (std::string(s.cudart) == "13") {
    built = programs.Cuda13(s.gencode, s.ptx_version, why);
    if (!built) return false;
    rootfs.Put("/app/kernel.fatbin", built->fatbin);
    // Under NVIDIA's file name with its SONAME link, as the observed tree had it.
    std::string version = Cudart13Version();
    rootfs.Put(lib64 + "/libcudart.so." + version, Cudart13());
    if (version != "13") rootfs.Link(lib64 + "/libcudart.so.13", "libcudart.so." + version);
  } else {
    auto [package, suite] = Split(s.cudart);
    fs::path cudart = PackageFile(package, suite, "libcudart\\.so\\.[0-9]+\\.[0-9]+\\.[0-9.]+");
    built = programs.HostProgram(cudart, why);
    if (!built) return false;
    std::string soname = cudart.filename().string().rfind("libcudart.so.11", 0) == 0 ? "libcudart.so.11.0"
                                                                                      : "libcudart.so.12";
    rootfs.Library(lib64, cudart, {soname});
    // The kernel the driver-API half loads: sm_90 SASS and compute_90 PTX.
    const Built* kernel = programs.Cuda13(kSm90Ptx90, "", why);
    if (!kernel) return false;
    rootfs.Put("/app/kernel.fatbin", kernel->fatbin);
  }
  rootfs.Put("/app/app", built->program, true);
  // The image's libcuda.
  if (s.driver == Driver::kCompat || s.driver == Driver::kCompatAway) {
    auto [package, suite] = Split(s.libcuda);
    fs::path libcuda = PackageFile(package, suite, "libcuda\\.so\\.[0-9]+\\.[0-9.]+");
    rootfs.Library("/usr/local/cuda/compat", libcuda, {"libcuda.so.1", "libcuda.so"});
    if (s.driver == Driver::kCompat) path.insert(path.begin(), "/usr/local/cuda/compat");
  }
  if (s.driver == Driver::kStubFirst || s.driver == Driver::kStubDir) {
    rootfs.Put(lib64 + "/stubs/libcuda.so", "/usr/local/cuda/lib64/stubs/libcuda.so");
    if (s.driver == Driver::kStubFirst) rootfs.Link(lib64 + "/stubs/libcuda.so.1", "libcuda.so");
    path.insert(path.begin(), lib64 + "/stubs");
  }
  // The host driver's directories after the image's, as the run had them.
  path.insert(path.end(), {"/usr/local/nvidia/lib64", "/usr/local/nvidia/lib"});
  std::string ld_library_path;
  for (const auto& dir : path) ld_library_path += (ld_library_path.empty() ? "" : ":") + dir;
  ImageConfig config;
  config.env = {"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
                "LD_LIBRARY_PATH=" + ld_library_path};
  config.cmd = {"/app/app"};
  config.created_by = std::string("validation scenario ") + s.name;
  return WriteOciLayout(rootfs_dir, config, layout, why);
}

const json* VerdictOf(const json& image) {
  if (!image.contains("verdicts") || image["verdicts"].empty()) return nullptr;
  return &image["verdicts"][0];
}

int PredictedCode(const json& verdict) {
  return verdict["predicted_error"].is_null() ? 0 : verdict["predicted_error"]["code"].get<int>();
}

void CheckBatch(const std::string& file) {
  std::vector<const Scenario*> scenarios;
  std::vector<std::string> parts;
  for (const auto& s : Scenarios())
    if (file == s.file) {
      scenarios.push_back(&s);
      for (const auto& part : PartsOf(s)) parts.push_back(part);
    }
  std::string missing;
  bool have = HaveParts(parts, &missing);
  if (!NeedExternal("validation parts", have, "missing " + missing)) return;
  std::map<std::string, std::string> observed = Observed(file);
  TempDir dir;
  Programs programs(dir / "programs");
  std::vector<std::string> layouts;
  for (const Scenario* s : scenarios) {
    std::string why;
    fs::path layout = dir / (std::string(s->name) + ".oci");
    bool built = BuildScenario(*s, programs, dir / (std::string(s->name) + ".rootfs"), layout, &why);
    REQUIRE_MESSAGE(built, std::string(s->name) << ": " << why);
    layouts.push_back(layout.string());
    // validation/run-on-gpu.sh prepare: the root file systems, for `imagelint probe` on a GPU machine.
    if (const char* to = std::getenv("IMAGELINT_VALIDATION_EXPORT"); to != nullptr && *to != 0) {
      fs::create_directories(to);
      REQUIRE_MESSAGE(Run({"cp", "-a", (dir / (std::string(s->name) + ".rootfs")).string(),
                           (fs::path(to) / s->name).string()}, &why), why);
    }
  }
  fs::path fleet = dir / "h100.yaml";
  WriteFileText(fleet, ObservedHostFleet());
  std::string why;
  json report = ScanReport(layouts, fleet, &why);
  REQUIRE_MESSAGE(!report.is_null(), why);
  REQUIRE(report["images"].size() == scenarios.size());
  for (size_t i = 0; i < scenarios.size(); ++i) {
    const Scenario& s = *scenarios[i];
    const std::string name = s.name, reason = s.why;  // doctest prints a char* as an address
    CAPTURE(name);
    CAPTURE(reason);
    REQUIRE_MESSAGE(observed.count(name), "no observation of " << name << " in " << file);
    int expected = std::stoi(observed.at(s.name));
    // Lazy and eager module loading returned the same code wherever both ran.
    if (observed.count(std::string(s.name) + "@eager"))
      CHECK(std::stoi(observed.at(std::string(s.name) + "@eager")) == expected);
    const json* verdict = VerdictOf(report["images"][i]);
    REQUIRE(verdict != nullptr);
    int predicted = PredictedCode(*verdict);
    CHECK_MESSAGE(predicted == expected, name << ": predicted " << predicted << " ("
                                              << (*verdict)["status"].get<std::string>() << "), observed " << expected
                                              << ": " << reason);
    // A run that succeeded is never predicted to fail, and one that failed always is.
    if (expected == 0) CHECK((*verdict)["status"] != "fail");
    if (expected != 0) CHECK((*verdict)["status"] == "fail");
  }
}

// J: a program that NEEDs libcufftw, whose only fatbin holds one cubin
// without a kernel, and a library of the same shape made by nvcc (a
// __device__ variable, no __global__ function, sm_75 only). On the H100 the
// FFT through the CUDA 13.0 libcufftw.so.12 (one sm_75 cubin, no kernel) ran
// correctly with lazy and eager loading: a module without kernels has
// nothing to launch, so no architecture can be missing for it. `libraries`
// are NVIDIA's kernel-less libraries the program links (Debian's 12.4
// libcufftw and 11.8 libnppc/libnppisu, one sm_52 cubin each; or the nvcc
// installation's 13.0 libcufftw.so.12, the very file of the run), `cufft`
// the libcufft libcufftw NEEDs.
struct KernelLessVariant {
  std::string name;
  std::vector<fs::path> libraries;
  fs::path cufft;
};

bool BuildKernelLess(Programs& programs, const KernelLessVariant& v, const fs::path& rootfs_dir,
                     const fs::path& layout, std::string* why) {
  const Built* built = programs.KernelLess(v.libraries, {v.cufft.parent_path()}, why);
  if (!built) return false;
  Rootfs rootfs(rootfs_dir);
  rootfs.DebianBase();
  const std::string lib64 = "/usr/local/cuda/lib64";
  rootfs.Put("/app/app", built->program, true);
  rootfs.Put(lib64 + "/libtwiddle.so.1", built->library);
  rootfs.Put(lib64 + "/libcudart.so.13", Cudart13());
  for (const auto& library : v.libraries) rootfs.Library(lib64, library, {MajorName(library)});
  rootfs.Library(lib64, v.cufft, {MajorName(v.cufft)});
  ImageConfig config;
  config.env = {"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
                "LD_LIBRARY_PATH=" + lib64 + ":/usr/local/nvidia/lib64:/usr/local/nvidia/lib"};
  config.cmd = {"/app/app"};
  config.created_by = "validation scenario J: " + v.name;
  return WriteOciLayout(rootfs_dir, config, layout, why);
}

// The observed host first, then one pool per GPU generation from Maxwell
// to Blackwell on driver 580 (the last branch for Maxwell, Pascal, Volta).
std::string EveryGenerationFleet() {
  std::string fleet = ObservedHostFleet();
  int n = 0;
  for (const char* gpu : {"Tesla M60", "GeForce GTX 1080", "Tesla V100-SXM2-32GB", "Tesla T4", "NVIDIA A100-SXM4-80GB",
                          "NVIDIA L4", "NVIDIA B200", "NVIDIA GeForce RTX 5090"})
    fleet += "  - name: gen" + std::to_string(n++) + "\n    gpu: " + gpu +
             "\n    driver: \"580.159.04\"\n    runtime: cdi\n";
  return fleet;
}

bool NamesKernelLessLibrary(const json& finding) {
  std::string text = finding.dump();
  for (const char* name : {"libcufftw.so", "libnppc.so", "libnppisu.so", "libtwiddle.so"})
    if (text.find(name) != std::string::npos) return true;
  return false;
}

}  // namespace

TEST_CASE("validation: J: kernel-less modules (nvcc's, Debian's cuFFTW/NPP, CUDA 13.0's) pass, no IL007 on any pool") {
  std::string missing;
  bool have = HaveParts({"libcufftw11/trixie", "libcufft11/trixie", "libnppc11/bookworm", "libnppisu11/bookworm"},
                        &missing);
  if (!NeedExternal("validation parts", have, "missing " + missing)) return;
  std::map<std::string, std::string> observed = Observed(kBatch1);
  REQUIRE(observed.count("J_host_cufftw"));
  int expected = std::stoi(observed.at("J_host_cufftw"));
  CHECK(std::stoi(observed.at("J_host_cufftw@eager")) == expected);
  TempDir dir;
  Programs programs(dir / "programs");
  std::vector<KernelLessVariant> variants = {
      {"debian",
       {PackageFile("libcufftw11", "trixie", "libcufftw\\.so\\.11\\..*"),
        PackageFile("libnppc11", "bookworm", "libnppc\\.so\\.11\\..*"),
        PackageFile("libnppisu11", "bookworm", "libnppisu\\.so\\.11\\..*")},
       PackageFile("libcufft11", "trixie", "libcufft\\.so\\.11\\..*")}};
  // The nvcc installation's own cuFFT 13.0 (NVIDIA's wheel: libcufftw.so.12, 12.0.0.61 as on the H100).
  if (fs::is_regular_file("/usr/local/cuda/lib64/libcufftw.so.12") &&
      fs::is_regular_file("/usr/local/cuda/lib64/libcufft.so.12"))
    variants.push_back({"cuda-13.0", {"/usr/local/cuda/lib64/libcufftw.so.12"}, "/usr/local/cuda/lib64/libcufft.so.12"});
  std::vector<std::string> layouts;
  for (const auto& v : variants) {
    std::string why;
    fs::path layout = dir / (v.name + ".oci");
    REQUIRE_MESSAGE(BuildKernelLess(programs, v, dir / (v.name + ".rootfs"), layout, &why), v.name << ": " << why);
    layouts.push_back(layout.string());
  }
  fs::path fleet = dir / "fleet.yaml";
  WriteFileText(fleet, EveryGenerationFleet());
  std::string why;
  json report = ScanReport(layouts, fleet, &why, {"--no-verify"});
  REQUIRE_MESSAGE(!report.is_null(), why);
  REQUIRE(report["images"].size() == variants.size());
  for (size_t i = 0; i < variants.size(); ++i) {
    CAPTURE(variants[i].name);
    const json& image = report["images"][i];
    const json* verdict = VerdictOf(image);  // the first pool: the observed host
    REQUIRE(verdict != nullptr);
    REQUIRE((*verdict)["pool"] == "h100-580");
    CHECK(PredictedCode(*verdict) == expected);
    CHECK((*verdict)["status"] != "fail");
    for (const auto& finding : image["findings"])
      if (finding["rule"] == "IL007") CHECK_MESSAGE(!NamesKernelLessLibrary(finding), finding.dump());
  }
}

TEST_CASE("validation: batch 1 on the H100 (A-I): predicted code == observed code") { CheckBatch(kBatch1); }

TEST_CASE("validation: batch 2 on the H100 (K1-K6, older libcuda on the path): predicted == observed") {
  CheckBatch(kBatch2);
}
