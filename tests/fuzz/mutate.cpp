#include "fuzz/mutate.h"

#include <algorithm>
#include <fstream>

namespace imagelint::fuzz {

namespace {

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// The quoted part of one dictionary line, unescaped; false when malformed.
bool Token(const std::string& line, std::string* out) {
  const size_t open = line.find('"');
  const size_t close = line.rfind('"');
  if (open == std::string::npos || close <= open) return false;
  out->clear();
  for (size_t i = open + 1; i < close; ++i) {
    if (line[i] != '\\') {
      out->push_back(line[i]);
      continue;
    }
    if (++i >= close) return false;
    if (line[i] == 'x') {
      if (i + 2 >= close) return false;  // two hex digits before the closing quote
      const int high = HexDigit(line[i + 1]), low = HexDigit(line[i + 2]);
      if (high < 0 || low < 0) return false;
      out->push_back(static_cast<char>(high * 16 + low));
      i += 2;
    } else {
      out->push_back(line[i]);  // \\ and \"
    }
  }
  return true;
}

// Values that sit on the edges parsers check (lengths, signs, terminators).
constexpr uint8_t kInteresting[] = {0x00, 0x01, 0x7f, 0x80, 0xff, 0xfe, '\n', '"', '\\', '/', '{', '['};

}  // namespace

std::vector<std::string> ReadDictionary(const std::filesystem::path& file) {
  std::vector<std::string> tokens;
  std::ifstream in(file);
  std::string line, token;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    if (Token(line, &token) && !token.empty()) tokens.push_back(token);
  }
  return tokens;
}

void Mutator::Edit(std::vector<uint8_t>& data) {
  switch (Below(data.empty() ? 2 : 8)) {
    case 0: {  // insert a dictionary token (or an interesting byte)
      const size_t at = Below(data.size() + 1);
      if (!dictionary_.empty()) {
        const std::string& token = dictionary_[Below(dictionary_.size())];
        data.insert(data.begin() + at, token.begin(), token.end());
      } else {
        data.insert(data.begin() + at, kInteresting[Below(sizeof kInteresting)]);
      }
      break;
    }
    case 1: {  // splice: a range of another seed
      const auto& other = seeds_[Below(seeds_.size())];
      if (other.empty()) break;
      const size_t from = Below(other.size()), length = 1 + Below(std::min<size_t>(other.size() - from, 4096));
      data.insert(data.begin() + Below(data.size() + 1), other.begin() + from, other.begin() + from + length);
      break;
    }
    case 2:  // flip one bit
      data[Below(data.size())] ^= static_cast<uint8_t>(1u << Below(8));
      break;
    case 3:  // overwrite a byte with an interesting value
      data[Below(data.size())] = kInteresting[Below(sizeof kInteresting)];
      break;
    case 4: {  // erase a range
      const size_t from = Below(data.size()), length = 1 + Below(std::min<size_t>(data.size() - from, 256));
      data.erase(data.begin() + from, data.begin() + from + length);
      break;
    }
    case 5: {  // duplicate a range in place (lengths, repeated records)
      const size_t from = Below(data.size()), length = 1 + Below(std::min<size_t>(data.size() - from, 256));
      std::vector<uint8_t> copy(data.begin() + from, data.begin() + from + length);
      data.insert(data.begin() + from, copy.begin(), copy.end());
      break;
    }
    case 6:  // truncate
      data.resize(Below(data.size()));
      break;
    default: {  // a little-endian size field made huge or zero
      if (data.size() < 4) break;
      const size_t at = Below(data.size() - 3);
      const uint8_t fill = Below(2) ? 0xff : 0x00;
      for (size_t i = 0; i < 4; ++i) data[at + i] = fill;
      break;
    }
  }
}

std::vector<uint8_t> Mutator::Next(size_t max_size) {
  std::vector<uint8_t> data = seeds_.empty() ? std::vector<uint8_t>() : seeds_[Below(seeds_.size())];
  const size_t edits = 1 + Below(8);
  for (size_t i = 0; i < edits; ++i) Edit(data);
  if (data.size() > max_size) data.resize(max_size);
  return data;
}

}  // namespace imagelint::fuzz
