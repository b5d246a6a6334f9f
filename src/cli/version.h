// `imagelint --version`: the version, the commit the binary was built from,
// and the knowledge bundle it reads: revision, as-of date, age, schema and
// digest (imagelint::KnowledgeDigest; cmake/BuildInfo.cmake records the
// first 12 hex digits of the built-in tables' digest, so tables edited or
// updated since the build show as "built with ...").
#pragma once

#include <filesystem>
#include <string>

#include "cli/environment.h"
#include "imagelint/result.h"

namespace imagelint::cli {

// "imagelint 0.1.0\ncommit ...\nknowledge ...\ndata ...\n" (no trailing newline).
std::string VersionText(const Environment& environment);

}  // namespace imagelint::cli
