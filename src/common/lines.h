// Splitting text into lines, for the readers of line-based files (dpkg
// status, pip METADATA, Dockerfiles).
#pragma once

#include <cstddef>
#include <string_view>

namespace imagelint {

// The line of `text` that starts at `pos`, without its "\n" or "\r\n"
// (the last line may have neither); `pos` moves past it. False once `pos` is
// at the end, so "a\nb\n" gives "a" and "b", and "" gives no line.
//   size_t pos = 0; std::string_view line;
//   while (NextLine(text, pos, line)) ...
inline bool NextLine(std::string_view text, size_t& pos, std::string_view& line) {
  if (pos >= text.size()) return false;
  size_t end = text.find('\n', pos);
  if (end == std::string_view::npos) end = text.size();
  line = text.substr(pos, end - pos);
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  pos = end + 1;
  return true;
}

}  // namespace imagelint
