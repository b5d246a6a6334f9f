// The build context's prebuilt binaries, read for Dockerfile mode with the
// image analyzers (dockerfile::ContextBinaryReader over ReadHostBinaries).
#pragma once

#include <vector>

#include "imagelint/dockerfile.h"
#include "imagelint/knowledge.h"
#include "imagelint/read_image.h"

namespace imagelint::pipeline {

class ContextBinaries : public dockerfile::ContextBinaryReader {
 public:
  explicit ContextBinaries(const Knowledge& knowledge) : knowledge_(knowledge) {}
  Result<std::vector<facts::Binary>> Read(const std::vector<dockerfile::ContextFile>& files) override {
    std::vector<HostFileInImage> host;
    host.reserve(files.size());
    for (const dockerfile::ContextFile& file : files) host.push_back({file.host_path, file.image_path});
    return ReadHostBinaries(host, knowledge_);
  }

 private:
  const Knowledge& knowledge_;
};

}  // namespace imagelint::pipeline
