// The one bounded read of a whole small file or stream (a list of images, a
// Dockerfile, a report, a plan, a facts document, a rule or knowledge table, a
// configuration, a PEM file): never more than `limit` bytes are held, and
// what stops the read is an error naming the file and what is wrong with it.
#pragma once

#include <cstddef>
#include <istream>
#include <string>

#include "imagelint/result.h"

namespace imagelint {

// Which files a read opens. A path the user types for a list or a document may
// be a pipe (`--images-from <(cmd)`, /dev/stdin); a file imagelint looks up by
// itself (a rule file, a configuration, a credential store) must be regular, so
// that a FIFO planted there cannot hold the run.
enum class FileKinds { kRegularOnly, kAnyReadable };

// Errors, each with the path as subject:
//   "cannot read the <what>: <strerror>"          (cannot open, or a read fails)
//   "<what> is not a regular file (a FIFO)"        (kRegularOnly)
//   "<what> larger than <limit>"                   (the limit in MiB when whole, else in bytes)
Result<std::string> ReadBoundedFile(const std::string& path, size_t limit, const std::string& what,
                                    FileKinds kinds = FileKinds::kAnyReadable);
// The same for an open stream (standard input); `name` stands for it in errors.
Result<std::string> ReadBoundedStream(std::istream& in, size_t limit, const std::string& name, const std::string& what);

// At most the first `limit` bytes of a regular file, "" when it cannot be read:
// enough to tell what kind of file it is without holding all of it.
std::string ReadFileHead(const std::string& path, size_t limit);

// "4 MiB", "16384 bytes": a limit as the errors above write it.
std::string LimitText(size_t limit);

}  // namespace imagelint
