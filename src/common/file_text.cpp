#include "common/file_text.h"

#include <fstream>

namespace imagelint {
namespace {

std::string LimitText(size_t limit) {
  constexpr size_t kMiB = size_t{1} << 20;
  if (limit >= kMiB && limit % kMiB == 0) return std::to_string(limit / kMiB) + " MiB";
  return std::to_string(limit) + " bytes";
}

}  // namespace

Result<std::string> ReadBoundedStream(std::istream& in, size_t limit, const std::string& name, const std::string& what) {
  std::string text;
  char chunk[65536];
  while (in.read(chunk, sizeof chunk) || in.gcount() > 0) {
    text.append(chunk, static_cast<size_t>(in.gcount()));
    if (text.size() > limit) return MakeError(name, what + " larger than " + LimitText(limit));
  }
  if (in.bad()) return MakeError(name, "cannot read the " + what);
  return text;
}

Result<std::string> ReadBoundedFile(const std::string& path, size_t limit, const std::string& what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return MakeError(path, "cannot read the " + what);
  return ReadBoundedStream(in, limit, path, what);
}

}  // namespace imagelint
