#include "imagelint/bytes.h"

#include <cstring>

namespace imagelint {

std::optional<uint64_t> CheckedAdd(uint64_t a, uint64_t b) {
  uint64_t sum = 0;
  if (__builtin_add_overflow(a, b, &sum)) return std::nullopt;
  return sum;
}

std::optional<uint64_t> CheckedMul(uint64_t a, uint64_t b) {
  uint64_t product = 0;
  if (__builtin_mul_overflow(a, b, &product)) return std::nullopt;
  return product;
}

bool ByteView::Contains(uint64_t offset, uint64_t length) const {
  auto end = CheckedAdd(offset, length);
  return end && *end <= size_;
}

std::optional<ByteView> ByteView::Slice(uint64_t offset, uint64_t length) const {
  if (!Contains(offset, length)) return std::nullopt;
  return ByteView(data_ + offset, static_cast<size_t>(length));
}

std::optional<ByteView> ByteView::SliceFrom(uint64_t offset) const {
  if (offset > size_) return std::nullopt;
  return ByteView(data_ + offset, size_ - static_cast<size_t>(offset));
}

namespace {
template <typename T>
std::optional<T> ReadInt(const ByteView& view, uint64_t offset, Endian endian) {
  if (!view.Contains(offset, sizeof(T))) return std::nullopt;
  T value = 0;
  const uint8_t* p = view.data() + offset;
  for (size_t i = 0; i < sizeof(T); ++i) {
    size_t index = endian == Endian::kLittle ? sizeof(T) - 1 - i : i;
    value = static_cast<T>((value << 8) | p[index]);
  }
  return value;
}
}  // namespace

std::optional<uint8_t> ByteView::U8(uint64_t offset) const {
  if (offset >= size_) return std::nullopt;
  return data_[offset];
}
std::optional<uint16_t> ByteView::U16(uint64_t offset, Endian endian) const {
  return ReadInt<uint16_t>(*this, offset, endian);
}
std::optional<uint32_t> ByteView::U32(uint64_t offset, Endian endian) const {
  return ReadInt<uint32_t>(*this, offset, endian);
}
std::optional<uint64_t> ByteView::U64(uint64_t offset, Endian endian) const {
  return ReadInt<uint64_t>(*this, offset, endian);
}

std::optional<std::string_view> ByteView::CString(uint64_t offset, size_t max_length) const {
  if (offset >= size_) return std::nullopt;
  size_t available = size_ - static_cast<size_t>(offset);
  size_t limit = available < max_length ? available : max_length;
  const void* nul = std::memchr(data_ + offset, 0, limit);
  if (nul == nullptr) return std::nullopt;
  size_t length = static_cast<const uint8_t*>(nul) - (data_ + offset);
  return std::string_view(reinterpret_cast<const char*>(data_ + offset), length);
}

bool ByteView::StartsWith(std::string_view prefix) const {
  return prefix.size() <= size_ && std::memcmp(data_, prefix.data(), prefix.size()) == 0;
}

std::string ToHex(std::span<const uint8_t> bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(bytes.size() * 2);
  for (uint8_t byte : bytes) {
    hex.push_back(kDigits[byte >> 4]);
    hex.push_back(kDigits[byte & 15]);
  }
  return hex;
}

}  // namespace imagelint
