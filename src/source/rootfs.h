// A root file system directory on the host, read as a one-layer image.
#pragma once

#include <memory>
#include <string>

#include "imagelint/source.h"

namespace imagelint {

// Symlinks inside the directory are recorded, never followed; files are
// opened relative to their parent directory with O_NOFOLLOW.
Result<std::unique_ptr<ImageSource>> OpenRootfs(const std::string& path, const OpenOptions& options);

}  // namespace imagelint
