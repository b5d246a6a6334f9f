// A root file system directory on the host, read as a one-layer image.
#pragma once

#include <memory>
#include <string>

#include "imagelint/source.h"

namespace imagelint {

// Symlinks inside the directory are recorded, never followed; files are
// opened relative to their parent directory with O_NOFOLLOW.
Result<std::unique_ptr<ImageSource>> OpenRootfs(const std::string& path, const OpenOptions& options);

// Whether a directory that is no image layout is recognisably a root file
// system: it has an os-release file (etc/os-release or usr/lib/os-release,
// freedesktop.org os-release(5)), or a dynamic loader (ld-linux*, ld-musl-*,
// ld64.so.*) directly in lib64/, lib/, usr/lib64/ or usr/lib/. Only real
// directories inside `path` are looked at (symlinks are not followed), so
// the check never leaves it. Anything else (a source repository, an empty
// directory) must be named as a root file system with "rootfs:DIR".
bool LooksLikeRootFileSystem(const std::string& path);

}  // namespace imagelint
