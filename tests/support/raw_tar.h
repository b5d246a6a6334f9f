// Plain ustar archives with names written byte for byte, for inputs that
// libarchive's writer refuses (names that are not UTF-8 in a pax header) or
// that must be exactly so (fuzz seeds). Names and link targets < 100 bytes.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace imagelint::testing {

struct RawEntry {
  std::string name;
  char type = '0';  // '0' file, '1' hard link, '2' symlink, '5' directory
  std::string content;
  std::string link;
};

inline std::vector<uint8_t> UstarTar(const std::vector<RawEntry>& entries) {
  std::vector<uint8_t> out;
  for (const auto& e : entries) {
    uint8_t header[512] = {};
    std::memcpy(header, e.name.data(), std::min<size_t>(e.name.size(), 100));
    std::snprintf(reinterpret_cast<char*>(header + 100), 8, "%07o", e.type == '5' ? 0755 : 0644);
    std::snprintf(reinterpret_cast<char*>(header + 108), 8, "%07o", 0);
    std::snprintf(reinterpret_cast<char*>(header + 116), 8, "%07o", 0);
    std::snprintf(reinterpret_cast<char*>(header + 124), 12, "%011zo", e.content.size());
    std::snprintf(reinterpret_cast<char*>(header + 136), 12, "%011o", 0);
    header[156] = static_cast<uint8_t>(e.type);
    std::memcpy(header + 157, e.link.data(), std::min<size_t>(e.link.size(), 100));
    std::memcpy(header + 257, "ustar\0" "00", 8);
    std::memset(header + 148, ' ', 8);
    unsigned sum = 0;
    for (uint8_t b : header) sum += b;
    std::snprintf(reinterpret_cast<char*>(header + 148), 8, "%06o", sum);
    out.insert(out.end(), header, header + 512);
    out.insert(out.end(), e.content.begin(), e.content.end());
    out.resize((out.size() + 511) / 512 * 512);
  }
  out.resize(out.size() + 1024);
  return out;
}

}  // namespace imagelint::testing
