// Bounds-checked views over untrusted bytes.
//
// Every parser of image content (tar headers, ELF, fatbin, JSON blobs) reads
// through ByteView so that a lying size or offset becomes an error value, never
// a read past a buffer. Arithmetic on sizes taken from the input goes through
// CheckedAdd / CheckedMul for the same reason.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace imagelint {

enum class Endian { kLittle, kBig };

std::optional<uint64_t> CheckedAdd(uint64_t a, uint64_t b);
std::optional<uint64_t> CheckedMul(uint64_t a, uint64_t b);

class ByteView {
 public:
  ByteView() = default;
  ByteView(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  explicit ByteView(std::span<const uint8_t> span) : data_(span.data()), size_(span.size()) {}
  explicit ByteView(std::string_view text)
      : data_(reinterpret_cast<const uint8_t*>(text.data())), size_(text.size()) {}

  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  std::span<const uint8_t> span() const { return {data_, size_}; }
  std::string_view AsString() const { return {reinterpret_cast<const char*>(data_), size_}; }

  // [offset, offset+length) or nothing when it does not fit.
  std::optional<ByteView> Slice(uint64_t offset, uint64_t length) const;
  // [offset, end) or nothing when offset > size.
  std::optional<ByteView> SliceFrom(uint64_t offset) const;
  // Whether [offset, offset+length) lies inside the view (overflow-safe).
  bool Contains(uint64_t offset, uint64_t length) const;

  std::optional<uint8_t> U8(uint64_t offset) const;
  std::optional<uint16_t> U16(uint64_t offset, Endian endian = Endian::kLittle) const;
  std::optional<uint32_t> U32(uint64_t offset, Endian endian = Endian::kLittle) const;
  std::optional<uint64_t> U64(uint64_t offset, Endian endian = Endian::kLittle) const;
  // NUL-terminated string starting at offset, at most max_length bytes long;
  // nothing when there is no NUL inside the view within that length.
  std::optional<std::string_view> CString(uint64_t offset, size_t max_length = 4096) const;

  bool StartsWith(std::string_view prefix) const;

 private:
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
};

// Lowercase hex of bytes (for digests and for messages about magic numbers).
std::string ToHex(std::span<const uint8_t> bytes);

}  // namespace imagelint
