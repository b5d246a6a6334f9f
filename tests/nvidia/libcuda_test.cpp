// Which libcuda.so.1 wins: the upstream vectors of nvidia-container-toolkit
// cmd/nvidia-cdi-hook/cudacompat (cudacompat_test.go TestCompatLibs and
// TestCompatLibsWithElfHeader, cuda-elf-header_test.go TestUseCompat), the seed story, the container-toolkit version timeline, and images
// that force a library through LD_LIBRARY_PATH or ld.so.conf.
#include "common.h"

using imagelint::Pool;
using imagelint::nvidia::CheckDriverCompat;
using imagelint::nvidia::CompatWouldBeUsed;
using imagelint::nvidia::ResolveLaunchPath;
using imagelint::nvidia::SelectLibcuda;
using imagelint::nvidia::TegraCompatWouldBeUsed;
using nlohmann::json;
using nvtest::K;
using nvtest::MakePool;

namespace {
json DriverRow(const std::string& path, const std::string& version, const std::string& kind, json note = json::object()) {
  json row = {{"path", path}, {"kind", kind}, {"note", note}, {"aliases", json::array()}};
  row["version"] = version.empty() ? json(nullptr) : json(version);
  return row;
}
json DriverFacts(json drivers, json env = json::object(), json loader = json::object()) {
  if (!loader.contains("ld_library_path")) {
    json dirs = json::array();
    if (env.contains("LD_LIBRARY_PATH")) {
      std::string value = env["LD_LIBRARY_PATH"];
      size_t start = 0;
      while (start <= value.size()) {
        size_t end = value.find(':', start);
        if (end == std::string::npos) end = value.size();
        if (end > start) dirs.push_back(value.substr(start, end - start));
        start = end + 1;
      }
    }
    loader["ld_library_path"] = dirs;
  }
  if (!loader.contains("ld_so_conf")) loader["ld_so_conf"] = json::array();
  return {{"image", {{"env", env}}}, {"cuda", {{"drivers", drivers}, {"loader", loader}}}};
}
Pool HookPool(const std::string& host, const std::string& toolkit = "1.19.0") {
  Pool pool;
  pool.name = "hook";
  pool.driver = host;
  pool.runtime = "cdi";
  pool.container_toolkit = toolkit;
  return pool;
}
const json kNote575 = {{"Format", 1},
                       {"CUDA Version", "12.9"},
                       {"Driver", {535, 550, 560, 565, 570, 575}},
                       {"Device", {1, 2, 7, 8, 9, 10, 11, 12, 13, 14}}};
const json kNote590 = {{"Format", 1},
                       {"CUDA Version", "13.1"},
                       {"Driver", {535, 550, 570, 575, 580, 590}},
                       {"Device", {1, 2, 7, 8, 9, 10, 11, 12, 13, 14}}};

// The seed image: nvidia/cuda:11.3.0-cudnn8-devel-ubuntu20.04 (cuda-compat-11-3).
json SeedFacts(bool compat_deleted = false) {
  json drivers = json::array();
  if (!compat_deleted) {
    json row = DriverRow("/usr/local/cuda-11.3/compat/libcuda.so.465.19.01", "465.19.01", "compat");
    row["toolkit_dir"] = "11.3";
    row["aliases"] = {"/usr/local/cuda-11.3/compat/libcuda.so.1", "/usr/local/cuda-11.3/compat/libcuda.so"};
    drivers.push_back(row);
  }
  json env = {{"CUDA_VERSION", "11.3.0"},
              {"NVIDIA_REQUIRE_CUDA",
               "cuda>=11.3 brand=tesla,driver>=418,driver<419 brand=tesla,driver>=450,driver<451 driver>=450"},
              {"LD_LIBRARY_PATH", "/usr/local/nvidia/lib:/usr/local/nvidia/lib64"},
              {"NVIDIA_VISIBLE_DEVICES", "all"},
              {"NVIDIA_DRIVER_CAPABILITIES", "compute,utility"}};
  return DriverFacts(drivers, env);
}
}  // namespace

TEST_CASE("enable-cuda-compat hook, major-compare fallback without an ELF note (upstream TestCompatLibs)") {
  auto select = [](json drivers, const std::string& host) { return SelectLibcuda(DriverFacts(drivers), HookPool(host), K()); };
  CHECK(select(json::array(), "222.55.66").kind == "host");                                                       // J1
  auto j2 = select({DriverRow("/usr/local/cuda/compat/libcuda.so.333.88.99", "333.88.99", "compat")}, "222.55.66");  // J2/J3
  CHECK(j2.kind == "compat");
  CHECK(j2.path == "/usr/local/cuda/compat/libcuda.so.333.88.99");
  CHECK(j2.via == "toolkit");
  CHECK(select({DriverRow("/usr/local/cuda/compat/libcuda.so.111.88.99", "111.88.99", "compat")}, "222.55.66").kind == "host");  // J4
  CHECK(select({DriverRow("/usr/local/cuda/compat/libcuda.so.222.88.99", "222.88.99", "compat")}, "222.55.66").kind == "host");  // J5
  CHECK(select({DriverRow("/usr/local/cuda/compat/libcuda.so.222.88.99", "222.88.99", "compat")}, "99.55.66").kind ==
        "compat");                                                                                                  // J6
  CHECK(select({DriverRow("/usr/local/cuda/compat/libcuda.so.222.88.99", "222.88.99", "compat")}, "").kind == "host");  // J7
  auto j8 = select({DriverRow("/etc/alternatives/cuda/compat/libcuda.so.333.88.99", "333.88.99", "compat")}, "222.55.66");
  CHECK(j8.kind == "compat");                                                                                       // J8
  CHECK(j8.path == "/etc/alternatives/cuda/compat/libcuda.so.333.88.99");
  CHECK(select({DriverRow("/compat/libcuda.so.333.88.99", "333.88.99", "compat")}, "222.55.66").kind == "compat");     // J9
  // J10 with the default root: compat/ holds an older library, compat-other/ is not the root.
  CHECK(select({DriverRow("/usr/local/cuda/compat/libcuda.so.111.88.99", "111.88.99", "compat"),
                DriverRow("/usr/local/cuda/compat-other/libcuda.so.333.88.99", "333.88.99", "compat")},
               "222.55.66")
            .kind == "host");
  // Own: two libcuda.so.*.* in the compat dir -> the hook does nothing.
  CHECK(select({DriverRow("/usr/local/cuda/compat/libcuda.so.333.88.99", "333.88.99", "compat"),
                DriverRow("/usr/local/cuda/compat/libcuda.so.334.1.1", "334.1.1", "compat")},
               "222.55.66")
            .kind == "host");
  // The decision function itself.
  CHECK(CompatWouldBeUsed("hook", "333.88.99", "222.55.66"));
  CHECK_FALSE(CompatWouldBeUsed("hook", "222.88.99", "222.55.66"));
  CHECK(CompatWouldBeUsed("hook", "222.88.99", "99.55.66"));
  CHECK_FALSE(CompatWouldBeUsed("hook", "222.88.99", ""));
}

TEST_CASE("ELF note cases, 575.57.08, CUDA 12.9, Driver [535..575] (upstream TestCompatLibsWithElfHeader, TestUseCompat)") {
  CHECK(TegraCompatWouldBeUsed("12.9", "12.8"));         // K1
  CHECK_FALSE(TegraCompatWouldBeUsed("12.9", "12.9"));   // K2
  CHECK_FALSE(TegraCompatWouldBeUsed("12.9", "12.10"));  // K3
  CHECK_FALSE(CompatWouldBeUsed("hook-elf", "575.57.08", "590.44.01", kNote575));  // K4
  CHECK(CompatWouldBeUsed("hook-elf", "575.57.08", "570.211.01", kNote575));       // K5
  CHECK(CompatWouldBeUsed("hook-elf", "575.57.08", "575.10.10", kNote575));        // K6 same branch, newer
  CHECK_FALSE(CompatWouldBeUsed("hook-elf", "575.57.08", "575.57.08", kNote575));  // K7 equal
  CHECK_FALSE(CompatWouldBeUsed("hook-elf", "575.57.08", "575.99.99", kNote575));  // K8 older
  // K9/K10 (the ld.so.conf.d writer) are file-writing details of the hook; the
  // prediction only needs the decision above.
  // Without a note, hook-elf falls back to the major compare.
  CHECK_FALSE(CompatWouldBeUsed("hook-elf", "575.57.08", "575.10.10"));
  CHECK(CompatWouldBeUsed("hook-elf", "575.57.08", "570.10.10"));
  // Through SelectLibcuda with toolkit 1.20.0 (e2e: 580.105.08 host + 13.0.3 compat 580.126.20 -> used).
  json note580 = {{"CUDA Version", "13.0"}, {"Driver", {535, 550, 570, 575, 580}}};
  auto facts = DriverFacts({DriverRow("/usr/local/cuda-13.0/compat/libcuda.so.580.126.20", "580.126.20", "compat", note580)});
  CHECK(SelectLibcuda(facts, HookPool("580.105.08", "1.20.0"), K()).kind == "compat");
  CHECK(SelectLibcuda(facts, HookPool("580.105.08", "1.19.1"), K()).kind == "host");  // major compare: same major
}

TEST_CASE("seed story: CUDA 11.3 image with compat 465.19.01 on GeForce RTX 3090, driver 460.67") {
  SUBCASE("toolkit 1.4.0 (docker --gpus): compat mounted, ldconfig picks it -> 804") {
    auto pool = MakePool("NVIDIA GeForce RTX 3090", "460.67", "1.4.0");
    auto selection = SelectLibcuda(SeedFacts(), pool, K());
    CHECK(selection.kind == "compat");
    CHECK(selection.version == "465.19.01");
    CHECK(selection.via == "toolkit");
    CHECK(selection.path_info.compat_mechanism == "mount");
    auto compat = CheckDriverCompat("11.3.109", selection, pool, K());
    CHECK_FALSE(compat.ok);
    CHECK(compat.error == 804);
    CHECK(compat.error_name == "cudaErrorCompatNotSupportedOnDevice");
    CHECK(compat.certain);
  }
  SUBCASE("toolkit 1.17.4 defaults: no compat from images -> host libcuda, minor-version compatibility") {
    auto pool = MakePool("NVIDIA GeForce RTX 3090", "460.67", "1.17.4");
    auto selection = SelectLibcuda(SeedFacts(), pool, K());
    CHECK(selection.kind == "host");
    CHECK(selection.version == "460.67");
    auto compat = CheckDriverCompat("11.3.109", selection, pool, K());
    CHECK(compat.ok);
    CHECK(compat.mode == "minor-version");
  }
  SUBCASE("toolkit 1.17.7+ default ldconfig mode: newer major is used again (no hardware check) -> 804") {
    for (const char* toolkit : {"1.17.7", "1.17.8", "1.19.0", "1.20.0"}) {
      CAPTURE(toolkit);
      auto pool = MakePool("NVIDIA GeForce RTX 3090", "460.67", toolkit);
      auto selection = SelectLibcuda(SeedFacts(), pool, K());
      CHECK(selection.kind == "compat");
      CHECK(selection.path_info.compat_mechanism == "ldconfig");
      CHECK(CheckDriverCompat("11.3.109", selection, pool, K()).error == 804);
    }
  }
  SUBCASE("cuda-compat-mode=disabled on the hosts, or a later layer deletes compat/ -> passes") {
    auto pool = MakePool("NVIDIA GeForce RTX 3090", "460.67", "1.17.7");
    pool.cuda_compat_mode = "disabled";
    CHECK(SelectLibcuda(SeedFacts(), pool, K()).kind == "host");
    auto old_pool = MakePool("NVIDIA GeForce RTX 3090", "460.67", "1.4.0");
    auto selection = SelectLibcuda(SeedFacts(true), old_pool, K());
    CHECK(selection.kind == "host");
    CHECK(CheckDriverCompat("11.3.109", selection, old_pool, K()).ok);
  }
  SUBCASE("the same image on a data-center GPU with the same driver: forward compatibility") {
    auto pool = MakePool("NVIDIA A100-PCIE-40GB", "460.32.03", "1.4.0");
    auto selection = SelectLibcuda(SeedFacts(), pool, K());
    CHECK(selection.kind == "compat");
    auto compat = CheckDriverCompat("11.3.109", selection, pool, K());
    CHECK(compat.ok);
    CHECK(compat.mode == "forward-compat");
    CHECK_FALSE(compat.certain);  // the 11.x matrix is a proxy (UNCONFIRMED)
  }
  SUBCASE("host driver already newer: mount mode keeps the host library") {
    auto pool = MakePool("NVIDIA GeForce RTX 3090", "470.57.02", "1.4.0");
    auto selection = SelectLibcuda(SeedFacts(), pool, K());
    CHECK(selection.kind == "host");  // 465 < 470: mounted, but ldconfig picks the highest (the host's)
    CHECK(CheckDriverCompat("11.3.109", selection, pool, K()).mode == "native");
  }
  SUBCASE("NVIDIA_DRIVER_CAPABILITIES without compute: LNC does not look at compat/") {
    json facts = SeedFacts();
    facts["image"]["env"]["NVIDIA_DRIVER_CAPABILITIES"] = "graphics,display";
    CHECK(SelectLibcuda(facts, MakePool("NVIDIA GeForce RTX 3090", "460.67", "1.4.0"), K()).kind == "host");
  }
}

TEST_CASE("container-toolkit version timeline: compat mechanism per launch path") {
  struct Case {
    const char* toolkit;
    const char* runtime;
    const char* mode_config;
    const char* mechanism;
    const char* mode;
  };
  const Case cases[] = {
      {"1.0.0", "docker-gpus", "", "mount", "legacy"},
      {"1.3.0", "docker-gpus", "", "mount", "legacy"},
      {"1.17.3", "nvidia-runtime", "", "mount", "legacy"},
      {"1.17.4", "docker-gpus", "", "none", "legacy"},
      {"1.17.4", "nvidia-runtime", "", "none", "legacy"},
      {"1.17.5", "docker-gpus", "", "none", "legacy"},
      {"1.17.5", "nvidia-runtime", "", "hook", "legacy"},
      {"1.17.5", "cdi", "", "hook", "cdi"},
      {"1.17.4", "cdi", "", "none", "cdi"},
      {"1.17.7", "docker-gpus", "", "ldconfig", "legacy"},
      {"1.17.7", "docker-gpus", "mount", "mount", "legacy"},
      {"1.17.7", "docker-gpus", "hook", "none", "legacy"},  // the hook is only injected by the nvidia runtime
      {"1.17.7", "nvidia-runtime", "hook", "hook", "legacy"},
      {"1.17.7", "nvidia-runtime", "disabled", "none", "legacy"},
      {"1.17.5", "docker-gpus", "mount", "none", "legacy"},  // no cuda-compat-mode config before 1.17.7
      {"1.18.0", "nvidia-runtime", "", "hook", "jit-cdi"},
      {"1.18.0", "k8s-device-plugin", "mount", "hook", "jit-cdi"},
      {"1.18.0", "docker-gpus", "", "ldconfig", "legacy"},
      {"1.20.0", "nvidia-runtime", "", "hook-elf", "jit-cdi"},
      {"1.20.0", "cdi", "", "hook-elf", "cdi"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.toolkit);
    CAPTURE(c.runtime);
    CAPTURE(c.mode_config);
    Pool pool;
    pool.driver = "535.104.05";
    pool.container_toolkit = c.toolkit;
    pool.runtime = c.runtime;
    if (std::string(c.mode_config) != "") pool.cuda_compat_mode = c.mode_config;
    auto path = ResolveLaunchPath(pool, K());
    CHECK(path.compat_mechanism == c.mechanism);
    CHECK(path.mode == c.mode);
    CHECK(path.checks_requirements == (std::string(c.mode) == "legacy"));
  }
  // Mount mode also mounts lower majors, but ldconfig's highest version is the host's.
  CHECK_FALSE(CompatWouldBeUsed("mount", "465.19.01", "470.57.02"));
  CHECK(CompatWouldBeUsed("mount", "465.19.01", "460.67"));
  CHECK_FALSE(CompatWouldBeUsed("mount", "460.91.03", "460.67"));  // equal major: filtered out
  CHECK_FALSE(CompatWouldBeUsed("none", "999.1", "460.67"));
  CHECK(CompatWouldBeUsed("ldconfig", "465.19.01", "460.67"));
  CHECK_FALSE(CompatWouldBeUsed("ldconfig", "460.91.03", "460.67"));
  // The 1.17.5/1.17.6 hook needs /etc/ld.so.cache in the image.
  json facts = DriverFacts({DriverRow("/usr/local/cuda/compat/libcuda.so.550.54.15", "550.54.15", "compat")}, json::object(),
                     {{"ld_so_cache", false}});
  Pool pool = HookPool("535.104.05", "1.17.5");
  CHECK(SelectLibcuda(facts, pool, K()).kind == "host");
  pool.container_toolkit = "1.18.1";
  CHECK(SelectLibcuda(facts, pool, K()).kind == "compat");
}

TEST_CASE("images that force a libcuda: LD_LIBRARY_PATH, ld.so.conf, stubs, bundled") {
  SUBCASE("compat dir in LD_LIBRARY_PATH wins whatever the toolkit decides") {
    json facts = SeedFacts();
    facts["image"]["env"]["LD_LIBRARY_PATH"] = "/usr/local/cuda/compat:/usr/local/nvidia/lib64";
    facts["cuda"]["loader"]["ld_library_path"] = {"/usr/local/cuda/compat", "/usr/local/nvidia/lib64"};
    auto geforce = MakePool("NVIDIA GeForce RTX 3090", "460.67", "1.17.4");
    auto selection = SelectLibcuda(facts, geforce, K());
    CHECK(selection.kind == "compat");
    CHECK(selection.via == "LD_LIBRARY_PATH");
    CHECK(CheckDriverCompat("11.3.109", selection, geforce, K()).error == 804);
    // An older compat library forced over a newer kernel driver -> 803.
    auto a100 = MakePool("NVIDIA A100-SXM4-80GB", "470.57.02", "1.17.4");
    auto older = CheckDriverCompat("11.3.109", SelectLibcuda(facts, a100, K()), a100, K());
    CHECK(older.error == 803);
    CHECK(older.error_name == "cudaErrorSystemDriverMismatch");
  }
  SUBCASE("forced compat with an ELF note: host branch listed or not") {
    json row = DriverRow("/usr/local/cuda-13.1/compat/libcuda.so.590.44.01", "590.44.01", "compat", kNote590);
    row["toolkit_dir"] = "13.1";
    row["aliases"] = {"/usr/local/cuda-13.1/compat/libcuda.so.1"};
    json facts = DriverFacts({row}, {{"LD_LIBRARY_PATH", "/usr/local/cuda-13.1/compat"}});
    auto h100 = MakePool("NVIDIA H100 80GB HBM3", "570.124.06", "1.17.4");
    auto ok = CheckDriverCompat("13.1.80", SelectLibcuda(facts, h100, K()), h100, K());
    CHECK(ok.ok);
    CHECK(ok.mode == "forward-compat");
    auto h100_560 = MakePool("NVIDIA H100 80GB HBM3", "560.35.03", "1.17.4");
    auto mismatch = CheckDriverCompat("13.1.80", SelectLibcuda(facts, h100_560, K()), h100_560, K());
    CHECK(mismatch.error == 803);
    CHECK(mismatch.message.find("not one") != std::string::npos);
  }
  SUBCASE("compat dir in the image's ld.so.conf: never before the driver dirs on legacy paths (ldconfig's command line); in CDI modes only before 00-nvcr") {
    json row = DriverRow("/usr/local/cuda-12.4/compat/libcuda.so.550.54.15", "550.54.15", "compat");
    json facts = DriverFacts({row}, json::object(),
                       {{"ld_so_conf", {{{"dir", "/usr/local/cuda/compat"}, {"file", "/etc/ld.so.conf.d/cuda-compat.conf"}}}}});
    auto legacy = MakePool("Tesla T4", "535.104.05", "1.17.4");
    // Legacy: libnvidia-container runs ldconfig with the driver directories as
    // arguments, scanned before every conf file, so the host libcuda comes
    // first; toolkit 1.17.4 on docker --gpus mounts no compat either.
    auto s1 = SelectLibcuda(facts, legacy, K());
    CHECK(s1.kind == "host");
    auto cdi = MakePool("Tesla T4", "560.35.03", "1.17.4", "cdi");
    CHECK(SelectLibcuda(facts, cdi, K()).kind == "host");
    facts["cuda"]["loader"]["ld_so_conf"][0]["file"] = "/etc/ld.so.conf.d/00-aaa.conf";
    CHECK(SelectLibcuda(facts, cdi, K()).kind == "compat");
  }
  SUBCASE("stub directory on the loader path -> 34") {
    json linked = DriverRow("/usr/local/cuda-12.4/targets/x86_64-linux/lib/stubs/libcuda.so", "", "stub");
    linked["aliases"] = {"/usr/local/cuda-12.4/targets/x86_64-linux/lib/stubs/libcuda.so.1"};  // ln -s libcuda.so libcuda.so.1
    json facts = DriverFacts({linked}, {{"LD_LIBRARY_PATH", "/usr/local/cuda/lib64/stubs:/usr/local/cuda/lib64"}});
    // Without the .so.1 name the loader does not find it there (cudart dlopens libcuda.so.1).
    json bare = DriverFacts({DriverRow("/usr/local/cuda-12.4/targets/x86_64-linux/lib/stubs/libcuda.so", "", "stub")},
                      {{"LD_LIBRARY_PATH", "/usr/local/cuda/lib64/stubs:/usr/local/cuda/lib64"}});
    CHECK(SelectLibcuda(bare, MakePool("Tesla T4", "550.54.15", "1.17.7"), K()).kind == "host");
    auto pool = MakePool("Tesla T4", "550.54.15", "1.17.7");
    auto selection = SelectLibcuda(facts, pool, K());
    CHECK(selection.kind == "stub");
    auto compat = CheckDriverCompat("12.4.127", selection, pool, K());
    CHECK(compat.error == 34);
    CHECK(compat.error_name == "cudaErrorStubLibrary");
    // Stubs only on LIBRARY_PATH (link time) are harmless.
    json harmless = DriverFacts({DriverRow("/usr/local/cuda-12.4/targets/x86_64-linux/lib/stubs/libcuda.so", "", "stub")},
                          {{"LIBRARY_PATH", "/usr/local/cuda/lib64/stubs"}});
    CHECK(SelectLibcuda(harmless, pool, K()).kind == "host");
    // Any toolkit target folds into lib64, not only the ones of today's images.
    for (const char* target : {"x86_64-linux", "sbsa-linux", "ppc64le-linux"}) {
      CAPTURE(target);
      json stub = DriverRow("/usr/local/cuda-12.4/targets/" + std::string(target) + "/lib/stubs/libcuda.so", "", "stub");
      stub["aliases"] = {"/usr/local/cuda-12.4/targets/" + std::string(target) + "/lib/stubs/libcuda.so.1"};
      json other = DriverFacts({stub}, {{"LD_LIBRARY_PATH", "/usr/local/cuda/lib64/stubs"}});
      CHECK(SelectLibcuda(other, pool, K()).kind == "stub");
    }
    // "targets/x/libexec" is not the library directory.
    json libexec = DriverFacts({DriverRow("/usr/local/cuda-12.4/targets/x86_64-linux/libexec/libcuda.so", "", "stub")},
                         {{"LD_LIBRARY_PATH", "/usr/local/cuda/lib64exec"}});
    CHECK(SelectLibcuda(libexec, pool, K()).kind == "host");
  }
  SUBCASE("a libcuda baked into /usr/lib: ldconfig picks the highest version") {
    json facts = DriverFacts({DriverRow("/usr/lib/x86_64-linux-gnu/libcuda.so.550.54.15", "550.54.15", "bundled")});
    auto geforce = MakePool("NVIDIA GeForce RTX 4090", "535.104.05", "1.17.7");
    auto selection = SelectLibcuda(facts, geforce, K());
    CHECK(selection.kind == "bundled");
    CHECK(selection.via == "ldconfig-highest");
    CHECK(CheckDriverCompat("12.4.127", selection, geforce, K()).error == 804);
    auto newer_host = MakePool("NVIDIA GeForce RTX 4090", "570.124.06", "1.17.7");
    CHECK(SelectLibcuda(facts, newer_host, K()).kind == "host");
  }
}

TEST_CASE("the facts' libcuda_candidates locate a library behind links the aliases do not show") {
  json row = DriverRow("/opt/vendor/lib/libcuda.so.550.54.15", "550.54.15", "bundled");
  json facts = DriverFacts({row}, {{"LD_LIBRARY_PATH", "/opt/app/lib"}},
                     {{"libcuda_candidates",
                       {{{"dir", "/opt/app/lib"},
                         {"via", "LD_LIBRARY_PATH"},
                         {"path", "/opt/app/lib/libcuda.so.1"},
                         {"resolves_to", "/opt/vendor/lib/libcuda.so.550.54.15"},
                         {"kind", "bundled"}}}}});
  auto pool = MakePool("NVIDIA L4", "535.104.05", "1.17.7");
  auto selection = SelectLibcuda(facts, pool, K());
  CHECK(selection.kind == "bundled");
  CHECK(selection.via == "LD_LIBRARY_PATH");
  CHECK(selection.version == "550.54.15");
  auto compat = CheckDriverCompat("12.4.127", selection, pool, K());
  CHECK(compat.ok);  // L4 is eligible and 12.4's package supports R535
  CHECK(compat.mode == "forward-compat");
}

TEST_CASE("launch path defaults and ToJson shapes for the rule language") {
  Pool pool;
  pool.driver = "535.104.05";
  auto path = ResolveLaunchPath(pool, K());
  CHECK(path.runtime == "docker-gpus");
  CHECK(path.toolkit == K().NewestContainerToolkit());
  CHECK(path.checks_requirements);
  json j = path.ToJson();
  for (const char* key : {"runtime", "toolkit", "mode", "checks_requirements", "compat_mechanism", "note"})
    CHECK(j.contains(key));
  json s = SelectLibcuda(json::object(), pool, K()).ToJson();
  CHECK(s["kind"] == "host");
  CHECK(s["version"] == "535.104.05");
  CHECK(s["launch"]["runtime"] == "docker-gpus");
  auto host = imagelint::nvidia::HostFactsForPool(MakePool("NVIDIA A100-SXM4-80GB", "535.104.05", "1.4.0"), K());
  CHECK(host.cuda == "12.2");
  CHECK(host.driver == "535.104.05");
  REQUIRE(host.devices.size() == 1);
  CHECK(host.devices[0].arch == "8.0");
  CHECK(host.devices[0].brand == "Unknown");  // Nvidia brand, LNC < 1.9.0
  CHECK(imagelint::nvidia::HostFactsForPool(MakePool("NVIDIA GeForce RTX 3090", "460.67", "1.4.0"), K()).devices[0].brand ==
        "GeForce");
}

TEST_CASE("malformed facts give answers, not exceptions") {
  auto pool = MakePool("Tesla T4", "535.104.05", "1.17.7");
  const json odd[] = {
      json(nullptr),
      json::array({1, 2}),
      {{"cuda", "nope"}},
      {{"cuda", {{"drivers", "x"}, {"loader", 5}}}},
      json::parse(R"({"cuda": {"drivers": [5, "s", {"path": 7, "version": 1.5, "aliases": "x", "note": "n"}],
                               "loader": {"ld_library_path": [1, null], "ld_so_conf": "x", "ld_so_cache": "yes",
                                          "libcuda_candidates": [1, {"dir": 3}]}},
                      "image": {"env": {"LD_LIBRARY_PATH": 3, "NVIDIA_DRIVER_CAPABILITIES": null}}})"),
  };
  for (const auto& facts : odd) {
    CAPTURE(facts.dump());
    auto selection = SelectLibcuda(facts, pool, K());
    CHECK(selection.kind == "host");
    CHECK(imagelint::nvidia::CheckStart(facts, pool, K()).satisfied);
  }
  const json binaries[] = {json(nullptr), {{"sass", "sm_80"}}, {{"sass", {1, nullptr}}, {"ptx", {{{"arch", 80}, {"isa", 7}}, 3}}}};
  for (const auto& binary : binaries) {
    CAPTURE(binary.dump());
    auto result = imagelint::nvidia::CheckKernels(binary, "8.0", "535.104.05", K());
    CHECK((result.runs || result.error == 209));
  }
}
