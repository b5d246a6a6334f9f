// A trivial content analyzer: file type by magic bytes + sha256 of small files.
#pragma once

#include <memory>

#include "imagelint/analyzer.h"

namespace imagelint {

std::unique_ptr<FileAnalyzer> MakeContentAnalyzer();

}  // namespace imagelint
