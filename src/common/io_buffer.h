// Page-aligned byte buffers for read()/pread() destinations and for the
// chunks that reading threads hand each other.
//
// Why aligned: the kernel copies page-cache bytes into the buffer with
// `rep movsb`, whose speed on this project's benchmark machine (AMD EPYC)
// depends on the destination's alignment. A 512 KiB std::vector comes from
// mmap at 16 bytes past a page boundary, and reading a 1.4 GB layer into it
// cost ~3x the kernel copy time of a page-aligned buffer (docs/PERFORMANCE.md,
// "Aligned read buffers"); heap buffers are aligned by chance.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <new>
#include <span>

namespace imagelint {

class IoBuffer {
 public:
  static constexpr size_t kAlignment = 4096;

  explicit IoBuffer(size_t size) : size_(size) {
    const size_t rounded = (size + kAlignment - 1) / kAlignment * kAlignment;
    bytes_.reset(static_cast<uint8_t*>(std::aligned_alloc(kAlignment, rounded == 0 ? kAlignment : rounded)));
    if (!bytes_) throw std::bad_alloc();
  }

  uint8_t* data() { return bytes_.get(); }
  const uint8_t* data() const { return bytes_.get(); }
  size_t size() const { return size_; }
  std::span<uint8_t> span() { return {bytes_.get(), size_}; }
  std::span<const uint8_t> first(size_t n) const { return {bytes_.get(), n}; }

 private:
  struct Free {
    void operator()(uint8_t* bytes) const { std::free(bytes); }
  };
  std::unique_ptr<uint8_t, Free> bytes_;
  size_t size_;
};

}  // namespace imagelint
