// The one bounded read of a whole small file or stream named by the user (a
// list of images, a Dockerfile, a report, a plan, a facts document): never
// more than `limit` bytes are held, and a larger input is an error naming it.
#pragma once

#include <cstddef>
#include <istream>
#include <string>

#include "imagelint/result.h"

namespace imagelint {

// Errors: "<path>: cannot read the <what>", "<path>: <what> larger than <limit>"
// (the limit in MiB when it is a whole number of them, else in bytes).
Result<std::string> ReadBoundedFile(const std::string& path, size_t limit, const std::string& what);
// The same for an open stream (standard input); `name` stands for it in errors.
Result<std::string> ReadBoundedStream(std::istream& in, size_t limit, const std::string& name, const std::string& what);

}  // namespace imagelint
