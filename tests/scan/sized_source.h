// An image of declared layer sizes only, for scheduling tests: the scan's
// layer hook answers for every layer, so nothing is ever opened.
#pragma once

#include <string>
#include <vector>

#include "imagelint/source.h"

namespace imagelint::testing {

class SizedSource final : public ImageSource {
 public:
  explicit SizedSource(const std::vector<int64_t>& sizes) {
    metadata_.ref = "sized";
    for (size_t i = 0; i < sizes.size(); ++i) {
      LayerRef layer;
      layer.digest = "sha256:" + std::string(63, '0') + std::to_string(i);
      layer.size = sizes[i];
      metadata_.layers.push_back(layer);
    }
  }
  const ImageMetadata& Metadata() const override { return metadata_; }
  Result<std::unique_ptr<EntryReader>> OpenLayer(size_t) override { return MakeError("sized", "not readable"); }

 private:
  ImageMetadata metadata_;
};

}  // namespace imagelint::testing
