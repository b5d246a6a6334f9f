// Shared by the plan tests: the seeds' pools and Dockerfiles (worked
// examples 1 and 4 of docs/plan.md), and a scan that re-verifies a fix.
#pragma once

#include <string>

#include "imagelint/pipeline.h"
#include "imagelint/plan.h"
#include "support/test_support.h"

namespace imagelint::plan_fixture {

// Example 1's GeForce pool (R460, a mid-2021 toolkit that mounts compat
// libraries whose major differs) and example 4's A100 on R460.
inline constexpr const char* kSeedFleet = R"(pools:
  - name: rtx3090-460
    gpu: NVIDIA GeForce RTX 3090
    driver: "460.67"
    container_toolkit: "1.4.0"
  - name: a100-460
    gpu: NVIDIA A100-PCIE-40GB
    driver: "460.32.03"
    container_toolkit: "1.5.1"
)";

// Example 1: an 11.3 base whose cuda-compat-11-3 (libcuda 465.19.01) is
// newer than R460 -> 804 on GeForce.
inline constexpr const char* kCompatBase =
    "FROM nvidia/cuda:11.3.0-cudnn8-devel-ubuntu20.04\n"
    "RUN apt-get update && apt-get install -y python3-pip && pip3 install torch==1.12.1+cu113 -f "
    "https://download.pytorch.org/whl/torch_stable.html\n";

// Example 4: PyTorch 1.12.1 from PyPI (CUDA 10.2 build, no sm_80) -> 209 on A100.
inline constexpr const char* kPypiTorch =
    "FROM nvidia/cuda:10.2-base-ubuntu18.04\n"
    "RUN apt-get update && apt-get install -y python3-pip && pip3 install torch==1.12.1\n";

// Applies a one-hunk -U0 diff of plan::UnifiedDiff to `text`.
inline std::string ApplyDiff(const std::string& text, const std::string& diff) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    lines.push_back(text.substr(start, end - start));
    start = end == std::string::npos ? text.size() : end + 1;
  }
  size_t at = diff.find("@@ -");
  size_t old_start = std::stoul(diff.substr(at + 4));
  size_t old_count = std::stoul(diff.substr(diff.find(',', at) + 1));
  std::vector<std::string> added;
  size_t pos = diff.find('\n', at) + 1;
  while (pos < diff.size()) {
    size_t end = diff.find('\n', pos);
    std::string line = diff.substr(pos, end - pos);
    if (!line.empty() && line[0] == '+') added.push_back(line.substr(1));
    pos = end + 1;
  }
  size_t first = old_count == 0 ? old_start : old_start - 1;  // 0-based index of the first changed line
  lines.erase(lines.begin() + static_cast<long>(first), lines.begin() + static_cast<long>(first + old_count));
  lines.insert(lines.begin() + static_cast<long>(first), added.begin(), added.end());
  std::string out;
  for (const std::string& line : lines) out += line + "\n";
  return out;
}

}  // namespace imagelint::plan_fixture
