// `imagelint --version`: the version, the commit the binary was built from,
// and the revision of the knowledge tables it reads (cmake/BuildInfo.cmake
// defines the revision; the binary computes it again over the tables it
// actually loads, so a table edited since the build shows).
#pragma once

#include <filesystem>
#include <string>

#include "cli/environment.h"
#include "imagelint/result.h"

namespace imagelint::cli {

// First 12 hex digits of sha256 over "<sha256>  <name>\n" for each *.yaml
// in `dir` in byte order of the names, i.e.
// (cd DIR && LC_ALL=C sha256sum *.yaml | sha256sum). Errors name the file.
Result<std::string> KnowledgeRevision(const std::filesystem::path& dir);

// "imagelint 0.1.0\ncommit ...\nknowledge ...\ndata ...\n" (no trailing newline).
std::string VersionText(const Environment& environment);

}  // namespace imagelint::cli
