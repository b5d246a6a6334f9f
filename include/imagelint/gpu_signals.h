// What marks an image as a GPU image (facts.gpu): the words and names of
// the knowledge table gpu-signals.yaml, one list per place they are looked
// for. Knowledge::GpuSignals() reads them; facts::GpuFromFacts and the
// Dockerfile predictor match them. A plain struct of the foundation layer,
// so that the facts model and the knowledge tables both use it.
#pragma once

#include <string>
#include <vector>

namespace imagelint {

struct GpuSignalWords {
  std::vector<std::string> package_words;       // a CUDA/NVIDIA package's name contains one ("cudnn")
  std::vector<std::string> directory_words;     // a loader directory of CUDA or the driver contains one
  std::vector<std::string> variables;           // environment variables of CUDA images ("CUDA_VERSION")
  std::vector<std::string> variable_prefixes;   // ... by prefix ("NVIDIA_")
  std::vector<std::string> label_prefixes;      // image labels by prefix ("com.nvidia.")
  std::vector<std::string> needed_prefixes;     // DT_NEEDED entries that link CUDA ("libcudart.so")
  std::vector<std::string> base_image_words;    // a FROM reference contains one ("cuda")
  std::vector<std::string> base_image_prefixes; // a FROM reference starts with one ("nvcr.io/nvidia/")
  std::vector<std::string> rocm_words;          // an AMD build says so ("rocm")
};

}  // namespace imagelint
