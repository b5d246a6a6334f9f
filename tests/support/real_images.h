// Real-tool image fixtures, made at test time by the tools users have:
// Debian's docker.io engine (docker import, docker build, docker save),
// skopeo, umoci and buildah. They replace image tarballs that used to come
// from outside the repository; no code of ours writes their bytes.
//
// The image (the same Dockerfile for docker build and buildah bud):
//   base   docker import of a root file system made from local files: Debian's
//          busybox-static as /bin/busybox with its applet links, /etc/os-release,
//          and when the NVIDIA packages are cached (scripts/fetch-nvidia-debs.sh)
//          the genuine libcudart.so.12.4.127 and compat libcuda.so.550.163.01
//   then   ADD, RUN mkdir/cp/chmod/mv, RUN rm -rf (whiteouts), ADD of a directory,
//          ENV NVIDIA_REQUIRE_CUDA, LABEL: 9 layers over the base
//
//   RealImages images;
//   std::string why;
//   if (!NeedExternal("real-tool fixtures", images.Make(dir, &why), why)) return;
//   images.docker_save   // docker save (Docker 20.10: the legacy layout)
//
// Each fixture records how long it took (the CI budget).
#pragma once

#include <chrono>
#include <filesystem>
#include <map>
#include <string>

namespace imagelint::testing {

struct RealImages {
  std::filesystem::path docker_save;     // docker save app (legacy: <id>/layer.tar, manifest.json, repositories)
  // The Docker >= 25 layout (OCI layout + manifest.json + repositories,
  // layers as uncompressed blobs/sha256/*), assembled from docker_save's own
  // bytes because Debian's docker 20.10 cannot write it; the layout is
  // moby's image/tarexport since Docker 25 ("docker save" produces
  // OCI-compliant archives). Also an OCI archive with uncompressed layers,
  // which skopeo 1.9 and buildah 1.28 do not write (they compress).
  std::filesystem::path docker25_save;
  std::filesystem::path docker25_null;   // the same with index.json "manifests": null
  std::filesystem::path oci_gzip;        // skopeo copy docker-archive: -> oci-archive:, gzip layers
  std::filesystem::path oci_zstd;        // ... zstd layers (--dest-compress-format zstd)
  std::filesystem::path oci_layout_umoci;  // skopeo copy -> oci:, then umoci repack of one more layer
  std::filesystem::path buildah_archive;   // buildah bud --layers, buildah push oci-archive:
  bool with_nvidia = false;              // the NVIDIA libraries are in the base
  std::string tag = "imagelint-test/app:1";
  std::map<std::string, std::chrono::milliseconds> timings;  // step -> time taken

  // Makes every fixture under `dir`; false with `why` when a tool is missing
  // or fails (its output in `why`). Needs the shared DockerEngine.
  bool Make(const std::filesystem::path& dir, std::string* why);
};

// A file of a cached genuine NVIDIA package (scripts/fetch-nvidia-debs.sh):
// the first file under the unpacked `package` of Debian `suite` whose name
// starts with `prefix`, e.g. ("libcudart12", "trixie", "libcudart.so.12.");
// empty when the package is not cached.
std::filesystem::path FindNvidiaFile(const std::string& package, const std::string& suite, const std::string& prefix);

}  // namespace imagelint::testing
