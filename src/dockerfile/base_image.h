// FROM: what the base image already holds, from base-images.yaml.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dockerfile/context.h"

namespace imagelint::dockerfile {

// A FROM reference, with Docker Hub's default prefixes removed from the
// repository ("docker.io/library/ubuntu" -> "ubuntu").
struct ImageRef {
  std::string repository;  // lower case: "nvidia/cuda", "nvcr.io/nvidia/pytorch"
  std::string tag;
  std::string digest;
};
ImageRef ParseImageRef(std::string_view ref);

// nvidia/cuda tags: X.Y[.Z]-[cudnn[N]-]<flavor>[-<os>], flavor from the family row.
struct CudaTag {
  std::string version;  // "12.4.1" or "12.4"
  std::string cudnn;    // "cudnn8", "cudnn", "" when absent
  std::string flavor;   // "devel"
  std::string os;       // "ubuntu22.04", "" when absent
};
std::optional<CudaTag> ParseCudaTag(std::string_view tag, const std::vector<std::string>& flavors);

// pytorch/pytorch tags: <torch>-cuda<X.Y>-cudnn<N>-<flavor>.
struct TorchTag {
  std::string torch;  // "2.1.0"
  std::string cuda;   // "12.1"
  std::string cudnn;  // "8"
  std::string flavor;
};
std::optional<TorchTag> ParseTorchTag(std::string_view tag, const std::vector<std::string>& flavors);

// Starts `image` from FROM `ref` (already expanded) on `platform`: its first
// layer, env, runtimes, drivers, loader entries and frameworks, read from the
// image itself when the options' BaseResolver finds it, else as far as
// knowledge tells (with a note saying why it was not read); what it cannot
// tell goes to image.unknown. Errors: the resolver's (a --base-image archive).
Status ApplyBaseImage(const Context& context, const Instruction& from, const std::string& ref,
                    const std::string& platform, ImageModel& image);

// Every other name of a file the image model holds: the links the packages
// ship beside it (`links` templates of its cuda_image_files row) and, for files
// under image.cuda_home, the same paths through the /usr/local/cuda symlink.
std::vector<std::string> FileAliases(const std::string& path, const std::vector<std::string>& link_templates,
                                     const std::string& cuda_home, const std::string& cuda_link,
                                     const std::map<std::string, std::string>& values);

}  // namespace imagelint::dockerfile
