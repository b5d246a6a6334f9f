#include "validation/layouts.h"

#include "validation/workshop.h"

namespace imagelint::validation {

namespace {

// A program using cuFFTW and NPP through the CUDA runtime: it NEEDs
// libcudart, libcufftw (which NEEDs libcufft) and libnppc/libnppisu.
const char* kFftNppSource = R"(#include <stddef.h>
extern "C" {
int cudaRuntimeGetVersion(int*);
void* fftwf_malloc(size_t);
void fftwf_free(void*);
const void* nppGetLibVersion(void);
void nppiFree(void*);
}
int main() {
  int version = 0;
  void* buffer = fftwf_malloc(1024);
  int ok = cudaRuntimeGetVersion(&version) == 0 && buffer != NULL && nppGetLibVersion() != NULL;
  fftwf_free(buffer);
  nppiFree(NULL);
  return ok ? 0 : 1;
}
)";

// The same calls as a CPython extension module (PyInit__fft runs them).
const char* kFftNppExtension = R"(#include <stddef.h>
extern "C" {
int cudaRuntimeGetVersion(int*);
void* fftwf_malloc(size_t);
void fftwf_free(void*);
const void* nppGetLibVersion(void);
void nppiFree(void*);
void* PyInit__fft(void) {
  int version = 0;
  void* buffer = fftwf_malloc(1024);
  int ok = cudaRuntimeGetVersion(&version) == 0 && buffer != NULL && nppGetLibVersion() != NULL;
  fftwf_free(buffer);
  nppiFree(NULL);
  return ok ? buffer : NULL;
}
}
)";

struct Lib {
  const char* package;
  const char* suite;
  const char* pattern;  // the real file's name
};

// CUDA 12.4's libraries as Debian trixie packages them.
const Lib kCudart = {"libcudart12", "trixie", "libcudart\\.so\\.12\\..*"};
const Lib kCufft = {"libcufft11", "trixie", "libcufft\\.so\\.11\\..*"};
const Lib kCufftw = {"libcufftw11", "trixie", "libcufftw\\.so\\.11\\..*"};
const Lib kNppc = {"libnppc12", "trixie", "libnppc\\.so\\.12\\..*"};
const Lib kNppisu = {"libnppisu12", "trixie", "libnppisu\\.so\\.12\\..*"};
const Lib kCublas = {"libcublas12", "trixie", "libcublas\\.so\\.12\\..*"};
const Lib kCublasLt = {"libcublaslt12", "trixie", "libcublasLt\\.so\\.12\\..*"};
const Lib kCurand = {"libcurand10", "trixie", "libcurand\\.so\\.10\\..*"};
const Lib kCusparse = {"libcusparse12", "trixie", "libcusparse\\.so\\.12\\..*"};
const Lib kCusolver = {"libcusolver11", "trixie", "libcusolver\\.so\\.11\\..*"};
const Lib kNvrtc = {"libnvrtc12", "trixie", "libnvrtc\\.so\\.12\\..*"};
const Lib kNvJitLink = {"libnvjitlink12", "trixie", "libnvJitLink\\.so\\.12\\..*"};
const Lib kCupti = {"libcupti12", "trixie", "libcupti\\.so\\.20.*"};
const Lib kCompatLibcuda = {"libcuda1", "trixie", "libcuda\\.so\\.550\\..*"};
const Lib kOldCupti = {"libcupti11.2", "bullseye", "libcupti\\.so\\.20.*"};
const char* kToolkit = "nvidia-cuda-toolkit/trixie";
const char* kNsightTarget = "nsight-compute-target/trixie";

fs::path File(const Lib& lib) { return PackageFile(lib.package, lib.suite, lib.pattern); }

// The fftapp program linked against the genuine files (ld reads their SONAMEs).
const Built* FftApp(Programs& programs, const std::vector<std::string>& rpath, std::string* why,
                    bool extension = false) {
  std::vector<std::string> args = {"-cudart", "none", "-Xlinker", "-rpath-link=" + File(kCufft).parent_path().string()};
  for (const Lib& l : {kCudart, kCufftw, kNppc, kNppisu}) args.insert(args.end(), {"-Xlinker", File(l).string()});
  std::string key = extension ? "fftapp-extension" : "fftapp";
  if (extension) args.insert(args.end(), {"-shared", "-Xcompiler", "-fPIC"});
  for (const auto& path : rpath) {
    args.insert(args.end(), {"-Xlinker", "--enable-new-dtags", "-Xlinker", "-rpath=" + path});
    key += "|" + path;
  }
  return programs.Program(key, extension ? kFftNppExtension : kFftNppSource, args, why);
}

// NVIDIA's nvidia/cuda:12.4.1-devel image, rebuilt from Debian's files: the
// toolkit in /usr/local/cuda-12.4 (lib64 -> targets/x86_64-linux/lib, the
// compat libcuda, extras/CUPTI, nvvm, bin, compute-sanitizer), links
// /usr/local/cuda and /usr/local/cuda-12, ld.so.conf.d entries as the cuda
// packages and the base Dockerfile write them, Nsight Compute under
// /opt/nvidia/nsight-compute/<version>, and the environment of the base and
// devel Dockerfiles (gitlab.com/nvidia/container-images/cuda,
// dist/12.4.1/ubuntu2204/{base,runtime,devel}/Dockerfile).
bool BuildNvidiaDevel(Programs& programs, const fs::path& rootfs_dir, const fs::path& layout, std::string* why) {
  const Built* app = FftApp(programs, {}, why);
  if (!app) return false;
  Rootfs rootfs(rootfs_dir);
  rootfs.DebianBase();
  const std::string home = "/usr/local/cuda-12.4";
  const std::string lib = home + "/targets/x86_64-linux/lib";
  for (const Lib& l : {kCudart, kCufft, kCufftw, kNppc, kNppisu, kCublas, kCublasLt, kCurand, kCusparse, kCusolver,
                       kNvrtc, kNvJitLink}) {
    fs::path file = File(l);
    rootfs.Library(lib, file, {MajorName(file), MajorName(file).substr(0, MajorName(file).rfind('.'))});
  }
  rootfs.Link(home + "/lib64", "targets/x86_64-linux/lib");
  rootfs.Link(home + "/include", "targets/x86_64-linux/include");
  // The devel image's stub (for linking; only LIBRARY_PATH names it). Debian
  // ships no 12.4 stub: the nvcc installation's CUDA 13 stub stands in.
  rootfs.Put(lib + "/stubs/libcuda.so", "/usr/local/cuda/lib64/stubs/libcuda.so");
  // cuda-compat-12-4: the forward-compatibility libcuda (Debian's 550.163.01).
  rootfs.Library(home + "/compat", File(kCompatLibcuda), {"libcuda.so.1", "libcuda.so"});
  // CUPTI lives in extras/CUPTI/lib64, off every default path.
  fs::path cupti = File(kCupti);
  rootfs.Library(home + "/extras/CUPTI/lib64", cupti, {"libcupti.so.12", "libcupti.so"});
  for (const char* name : {"libnvperf_host.so", "libnvperf_target.so", "libpcsamplingutil.so", "libcheckpoint.so"})
    rootfs.Put(home + "/extras/CUPTI/lib64/" + std::string(name), cupti.parent_path() / name);
  // Tools: bin/, nvvm/, compute-sanitizer/ (bin/compute-sanitizer links into it).
  fs::path toolkit = PackageRoot("nvidia-cuda-toolkit", "trixie") / "usr";
  for (const char* tool : {"cuobjdump", "nvdisasm", "ptxas", "fatbinary", "nvlink", "nvprune", "cu++filt", "bin2c"})
    rootfs.Put(home + "/bin/" + tool, toolkit / "bin" / tool, true);
  rootfs.Put(home + "/nvvm/bin/cicc", toolkit / "lib/nvidia-cuda-toolkit/bin/cicc", true);
  for (const auto& entry : fs::directory_iterator(toolkit / "lib/nvidia-cuda-toolkit/libdevice"))
    rootfs.Put(home + "/nvvm/libdevice/" + entry.path().filename().string(), entry.path());
  for (const auto& entry : fs::directory_iterator(toolkit / "lib/nvidia-cuda-toolkit/compute-sanitizer"))
    if (entry.is_regular_file())
      rootfs.Put(home + "/compute-sanitizer/" + entry.path().filename().string(), entry.path(), true);
  rootfs.Link(home + "/bin/compute-sanitizer", "../compute-sanitizer/compute-sanitizer");
  // update-alternatives, as the cuda-toolkit-config packages set them up.
  rootfs.Link("/usr/local/cuda", "/etc/alternatives/cuda");
  rootfs.Link("/etc/alternatives/cuda", "/usr/local/cuda-12.4");
  rootfs.Link("/usr/local/cuda-12", "/etc/alternatives/cuda-12");
  rootfs.Link("/etc/alternatives/cuda-12", "/usr/local/cuda-12.4");
  // Nsight Compute 2024.1.1 (CUDA 12.4's): the target libraries from
  // Debian's nsight-compute-target, and in host/target-linux-x64 the kind of
  // private CUPTI copy the H100 machine's Nsight Compute carried (old CUPTI,
  // cubins up to sm_80, no PTX): Debian's genuine CUPTI 11.2 stands in, as
  // Debian does not package Nsight's host part's copies.
  const std::string nsight = "/opt/nvidia/nsight-compute/2024.1.1";
  fs::path target = PackageRoot("nsight-compute-target", "trixie") / "usr/lib/x86_64-linux-gnu/nsight-compute/target";
  for (const auto& platform : fs::directory_iterator(target))
    for (const auto& entry : fs::directory_iterator(platform.path()))
      if (entry.is_regular_file())
        rootfs.Put(nsight + "/target/" + platform.path().filename().string() + "/" + entry.path().filename().string(),
                   entry.path(), (entry.status().permissions() & fs::perms::owner_exec) != fs::perms::none);
  rootfs.Put(nsight + "/host/target-linux-x64/libcupti.so.11.2", File(kOldCupti));
  rootfs.Link(home + "/bin/ncu", nsight + "/target/linux-desktop-glibc_2_11_3-x64/ncu");
  // ld.so.conf.d: cuda-toolkit-config-common, cuda-toolkit-12-config-common,
  // and the base Dockerfile's nvidia.conf.
  rootfs.Write("/etc/ld.so.conf.d/000_cuda.conf", "/usr/local/cuda/targets/x86_64-linux/lib\n");
  rootfs.Write("/etc/ld.so.conf.d/988_cuda-12.conf", "/usr/local/cuda-12/targets/x86_64-linux/lib\n");
  rootfs.Write("/etc/ld.so.conf.d/nvidia.conf", "/usr/local/nvidia/lib\n/usr/local/nvidia/lib64\n");
  rootfs.Write(home + "/version.json",
               "{\n   \"cuda\" : { \"name\" : \"CUDA SDK\", \"version\" : \"12.4.1\" }\n}\n");
  // The user's program, found through ld.so.conf.d like NVIDIA's own samples.
  rootfs.Put("/usr/local/bin/fftapp", app->program, true);
  std::string require = "cuda>=12.4";
  for (int branch : {470, 525, 535})
    for (const char* brand :
         {"tesla", "unknown", "nvidia", "nvidiartx", "geforce", "geforcertx", "quadro", "quadrortx", "titan", "titanrtx"})
      require += " brand=" + std::string(brand) + ",driver>=" + std::to_string(branch) + ",driver<" +
                 std::to_string(branch + 1);
  ImageConfig config;
  config.env = {"PATH=/usr/local/nvidia/bin:/usr/local/cuda/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
                "NVARCH=x86_64",
                "NVIDIA_REQUIRE_CUDA=" + require,
                "NV_CUDA_CUDART_VERSION=12.4.127-1",
                "NV_CUDA_COMPAT_PACKAGE=cuda-compat-12-4",
                "CUDA_VERSION=12.4.1",
                "LD_LIBRARY_PATH=/usr/local/nvidia/lib:/usr/local/nvidia/lib64",
                "NVIDIA_VISIBLE_DEVICES=all",
                "NVIDIA_DRIVER_CAPABILITIES=compute,utility",
                "NV_CUDA_LIB_VERSION=12.4.1-1",
                "LIBRARY_PATH=/usr/local/cuda/lib64/stubs"};
  config.cmd = {"/usr/local/bin/fftapp"};
  config.created_by = "validation: nvidia/cuda 12.4.1 devel layout";
  return WriteOciLayout(rootfs_dir, config, layout, why);
}

// NVIDIA's CUDA 12 wheels in a virtual environment: each library in
// site-packages/nvidia/<component>/lib under its SONAME, a dist-info per
// wheel, and an extension module that finds them through its RUNPATH
// ($ORIGIN/../nvidia/<component>/lib), as PyTorch's and CuPy's do.
bool BuildPipWheels(Programs& programs, const fs::path& rootfs_dir, const fs::path& layout, std::string* why) {
  const std::string site = "/opt/venv/lib/python3.11/site-packages";
  const Built* app = FftApp(programs,
                            {"$ORIGIN/../nvidia/cuda_runtime/lib:$ORIGIN/../nvidia/cufft/lib:$ORIGIN/../nvidia/npp/lib"},
                            why, true);
  if (!app) return false;
  Rootfs rootfs(rootfs_dir);
  rootfs.DebianBase();
  for (const char* name : {"libz.so.1", "libexpat.so.1"})
    rootfs.Library("/usr/lib/x86_64-linux-gnu", fs::canonical(fs::path("/usr/lib/x86_64-linux-gnu") / name), {name});
  rootfs.Put("/usr/bin/python3.11", fs::canonical("/usr/bin/python3.11"), true);
  rootfs.Link("/usr/bin/python3", "python3.11");
  rootfs.Write("/opt/venv/pyvenv.cfg", "home = /usr/bin\ninclude-system-site-packages = false\nversion = 3.11.2\n");
  rootfs.Link("/opt/venv/bin/python3", "/usr/bin/python3");
  rootfs.Link("/opt/venv/bin/python", "python3");
  struct Wheel {
    const char* distribution;
    const char* version;
    const char* component;
    std::vector<Lib> libs;
  };
  const std::vector<Wheel> wheels = {
      {"nvidia_cuda_runtime_cu12", "12.4.127", "cuda_runtime", {kCudart}},
      {"nvidia_cufft_cu12", "11.2.1.3", "cufft", {kCufft, kCufftw}},
      {"nvidia_npp_cu12", "12.2.5.30", "npp", {kNppc, kNppisu}},
      {"nvidia_nvjitlink_cu12", "12.4.127", "nvjitlink", {kNvJitLink}},
      {"nvidia_cuda_cupti_cu12", "12.4.127", "cuda_cupti", {kCupti}},
  };
  rootfs.Write(site + "/nvidia/__init__.py", "");
  for (const auto& wheel : wheels) {
    std::string dir = site + "/nvidia/" + wheel.component;
    rootfs.Write(dir + "/__init__.py", "");
    for (const Lib& l : wheel.libs) {
      fs::path file = File(l);
      // Wheels carry one file per library, named by its SONAME.
      std::string soname = std::string(l.package) == "libcupti12" ? "libcupti.so.12" : MajorName(file);
      rootfs.Put(dir + "/lib/" + soname, file);
    }
    std::string name = wheel.distribution;
    std::string pretty = name;
    for (char& c : pretty)
      if (c == '_') c = '-';
    std::string info = site + "/" + name + "-" + wheel.version + ".dist-info";
    rootfs.Write(info + "/METADATA", "Metadata-Version: 2.1\nName: " + pretty + "\nVersion: " + wheel.version +
                                         "\nSummary: NVIDIA CUDA component\nRequires-Python: >=3\n");
    rootfs.Write(info + "/INSTALLER", "pip\n");
  }
  rootfs.Put(site + "/fftapp/_fft.cpython-311-x86_64-linux-gnu.so", app->program);
  rootfs.Write(site + "/fftapp/__init__.py", "from . import _fft\n");
  rootfs.Write(site + "/fftapp-1.0.dist-info/METADATA",
               "Metadata-Version: 2.1\nName: fftapp\nVersion: 1.0\nRequires-Dist: nvidia-cufft-cu12\n"
               "Requires-Dist: nvidia-npp-cu12\nRequires-Dist: nvidia-cuda-runtime-cu12\n");
  ImageConfig config;
  config.env = {"PATH=/opt/venv/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
                "VIRTUAL_ENV=/opt/venv"};
  config.cmd = {"/opt/venv/bin/python", "-c", "import fftapp"};
  config.created_by = "validation: pip install nvidia-*-cu12 wheels into /opt/venv";
  return WriteOciLayout(rootfs_dir, config, layout, why);
}

// A conda environment: libraries in <env>/lib under their full names with
// SONAME links, one conda-meta/<name>-<version>-<build>.json per package
// listing its files, the program in <env>/bin with RUNPATH $ORIGIN/../lib.
bool BuildConda(Programs& programs, const fs::path& rootfs_dir, const fs::path& layout, std::string* why) {
  const std::string env = "/opt/conda";
  const Built* app = FftApp(programs, {"$ORIGIN/../lib"}, why);
  if (!app) return false;
  Rootfs rootfs(rootfs_dir);
  rootfs.DebianBase();
  struct Package {
    const char* name;
    const char* version;
    std::vector<Lib> libs;
  };
  const std::vector<Package> packages = {
      {"cuda-cudart", "12.4.127", {kCudart}},
      {"libcufft", "11.2.1.3", {kCufft, kCufftw}},
      {"libnpp", "12.2.5.30", {kNppc, kNppisu}},
  };
  for (const auto& package : packages) {
    nlohmann::json files = nlohmann::json::array();
    for (const Lib& l : package.libs) {
      fs::path file = File(l);
      rootfs.Library(env + "/lib", file, {MajorName(file)});
      files.push_back("lib/" + file.filename().string());
      files.push_back("lib/" + MajorName(file));
    }
    nlohmann::json meta = {{"name", package.name},
                           {"version", package.version},
                           {"build", "0"},
                           {"build_number", 0},
                           {"channel", "https://conda.anaconda.org/nvidia/label/cuda-12.4.1"},
                           {"subdir", "linux-64"},
                           {"files", files}};
    rootfs.Write(env + "/conda-meta/" + package.name + "-" + package.version + "-0.json", meta.dump(1));
  }
  rootfs.Write(env + "/conda-meta/history", "==> 2024-04-12 00:00:00 <==\n# cmd: conda install -c nvidia/label/cuda-12.4.1 cuda-cudart libcufft libnpp\n");
  rootfs.Put(env + "/bin/fftapp", app->program, true);
  ImageConfig config;
  config.env = {"PATH=/opt/conda/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
                "CONDA_PREFIX=/opt/conda"};
  config.cmd = {"/opt/conda/bin/fftapp"};
  config.created_by = "validation: conda install -c nvidia cuda-cudart libcufft libnpp";
  return WriteOciLayout(rootfs_dir, config, layout, why);
}

}  // namespace

const std::vector<Layout>& Layouts() {
  static const std::vector<Layout> all = {
      {"nvidia-cuda-12.4-devel",
       "CUDA 12.4 runs on drivers >= 550 (580: backward compatible; 550.163.01: its own branch). cuBLAS, "
       "cuFFT, cuRAND, cuSPARSE, cuSOLVER 12.4 carry SASS for 8.0 and 9.0; cuFFTW and NPP's libnppc/libnppisu "
       "hold one sm_52 cubin without a kernel (nothing to launch). The compat libcuda 550 is on no search path "
       "and not newer than either host driver. Nsight Compute's old CUPTI copy is loaded by nothing the image runs.",
       BuildNvidiaDevel},
      {"pip-nvidia-wheels",
       "the same CUDA 12.4 libraries under NVIDIA's wheel layout, found through the extension's RUNPATH; "
       "cudart 12.4 runs on 550 and 580; cuFFT has 8.0 and 9.0 SASS, cuFFTW and NPP have no kernel; CUPTI and "
       "nvJitLink are libraries the program does not load",
       BuildPipWheels},
      {"conda-env",
       "the same libraries in a conda environment's lib/, found through the program's RUNPATH",
       BuildConda},
  };
  return all;
}

std::vector<std::string> LayoutParts() {
  std::vector<std::string> parts = {kToolkit, kNsightTarget};
  for (const Lib& l : {kCudart, kCufft, kCufftw, kNppc, kNppisu, kCublas, kCublasLt, kCurand, kCusparse, kCusolver,
                       kNvrtc, kNvJitLink, kCupti, kCompatLibcuda, kOldCupti})
    parts.push_back(std::string(l.package) + "/" + l.suite);
  return parts;
}

std::string SupportedPoolsFleet() {
  return ObservedHostFleet() +
         "  - name: a100-550\n"
         "    gpu: NVIDIA A100-SXM4-80GB\n"
         "    driver: \"550.163.01\"\n"
         "    runtime: docker-gpus\n";
}

}  // namespace imagelint::validation
