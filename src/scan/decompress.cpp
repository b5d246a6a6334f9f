// Decompression by magic bytes: ISA-L igzip for gzip (about twice libarchive's
// zlib speed), libzstd streaming for zstd, plain bytes otherwise. Every
// stream counts what it produced and stops at the caller's limit (gzip bombs).
#include <isa-l/igzip_lib.h>
#include <zstd.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "common/io_buffer.h"
#include "scan/streams.h"
#include "imagelint/scan.h"

namespace imagelint {
namespace {

constexpr size_t kInputChunk = 1024 * 1024;  // fewer, larger reads: less kernel time per byte

std::string LimitMessage(uint64_t limit) {
  return "decompressed size exceeds the limit of " + std::to_string(limit) +
         " bytes (possible decompression bomb; raise it with --max-layer-bytes)";
}

class GzipStream final : public ByteStream {
 public:
  GzipStream(std::unique_ptr<ByteStream> input, uint64_t limit)
      : input_(std::move(input)), limit_(limit), in_(kInputChunk) {
    isal_inflate_init(&state_);
    state_.crc_flag = ISAL_GZIP;
  }

  Result<size_t> Read(std::span<uint8_t> buffer) override {
    if (buffer.empty() || done_) return size_t{0};
    for (;;) {
      if (state_.avail_in == 0 && !input_eof_) {
        // Inflated in place where the input holds the bytes (a read-ahead
        // chunk); igzip only reads next_in.
        auto view = input_->ReadView(in_.span());
        if (!view.ok()) return view.error();
        if (view->empty()) {
          input_eof_ = true;
        } else {
          consumed_before_ += in_used_;
          in_used_ = view->size();
          state_.next_in = const_cast<uint8_t*>(view->data());
          state_.avail_in = static_cast<uint32_t>(view->size());
        }
      }
      if (state_.block_state == ISAL_BLOCK_FINISH) {
        // One member ended; another may follow (multi-member gzip, eStargz).
        if (state_.avail_in == 0 && input_eof_) {
          done_ = true;
          return size_t{0};
        }
        if (state_.avail_in == 0) continue;
        if (state_.next_in[0] == 0) {  // zero padding after the stream is tolerated
          if (!AllZero(state_.next_in, state_.avail_in)) return Garbage();
          state_.avail_in = 0;
          continue;
        }
        if (state_.next_in[0] != 0x1f) return Garbage();
        uint8_t* next = state_.next_in;
        uint32_t avail = state_.avail_in;
        isal_inflate_reset(&state_);
        state_.crc_flag = ISAL_GZIP;
        state_.next_in = next;
        state_.avail_in = avail;
      }
      size_t want = std::min<size_t>(buffer.size(), 1u << 30);
      state_.next_out = buffer.data();
      state_.avail_out = static_cast<uint32_t>(want);
      int rc = isal_inflate(&state_);
      size_t produced = want - state_.avail_out;
      if (rc < 0) {
        return MakeErrorAt(input_->Name(), Position(), "corrupt gzip data (igzip error " + std::to_string(rc) + ")");
      }
      if (produced > 0) {
        total_out_ += produced;
        if (total_out_ > limit_) return MakeError(input_->Name(), LimitMessage(limit_));
        return produced;
      }
      if (state_.block_state != ISAL_BLOCK_FINISH && state_.avail_in == 0 && input_eof_) {
        return MakeErrorAt(input_->Name(), Position(), "truncated gzip stream");
      }
      if (rc > ISAL_END_INPUT && ++stalls_ > 16) {
        return MakeErrorAt(input_->Name(), Position(), "malformed gzip header (igzip code " + std::to_string(rc) + ")");
      }
    }
  }
  std::string Name() const override { return input_->Name(); }

 private:
  static bool AllZero(const uint8_t* data, size_t size) {
    return std::all_of(data, data + size, [](uint8_t b) { return b == 0; });
  }
  Error Garbage() { return MakeErrorAt(input_->Name(), Position(), "unexpected bytes after the gzip stream"); }
  uint64_t Position() const { return consumed_before_ + (in_used_ - state_.avail_in); }

  std::unique_ptr<ByteStream> input_;
  uint64_t limit_;
  IoBuffer in_;
  inflate_state state_{};
  bool input_eof_ = false;
  bool done_ = false;
  uint64_t total_out_ = 0;
  uint64_t consumed_before_ = 0;
  size_t in_used_ = 0;
  int stalls_ = 0;
};

class ZstdStream final : public ByteStream {
 public:
  ZstdStream(std::unique_ptr<ByteStream> input, uint64_t limit)
      : input_(std::move(input)), limit_(limit), in_(kInputChunk), context_(ZSTD_createDCtx()) {
    ZSTD_DCtx_setParameter(context_, ZSTD_d_windowLogMax, 27);  // at most a 128 MiB window
  }
  ~ZstdStream() override { ZSTD_freeDCtx(context_); }

  Result<size_t> Read(std::span<uint8_t> buffer) override {
    if (buffer.empty() || done_) return size_t{0};
    for (;;) {
      if (zin_.pos == zin_.size && !input_eof_) {
        auto view = input_->ReadView(in_.span());
        if (!view.ok()) return view.error();
        consumed_before_ += zin_.size;
        if (view->empty()) {
          input_eof_ = true;
          zin_ = {in_.data(), 0, 0};
        } else {
          zin_ = {view->data(), view->size(), 0};
        }
      }
      if (zin_.pos == zin_.size && input_eof_) {
        if (last_hint_ != 0) return MakeErrorAt(input_->Name(), consumed_before_, "truncated zstd stream");
        done_ = true;
        return size_t{0};
      }
      ZSTD_outBuffer output{buffer.data(), buffer.size(), 0};
      size_t hint = ZSTD_decompressStream(context_, &output, &zin_);
      if (ZSTD_isError(hint)) {
        return MakeErrorAt(input_->Name(), consumed_before_ + zin_.pos,
                           std::string("corrupt zstd data: ") + ZSTD_getErrorName(hint));
      }
      last_hint_ = hint;
      if (output.pos > 0) {
        total_out_ += output.pos;
        if (total_out_ > limit_) return MakeError(input_->Name(), LimitMessage(limit_));
        return output.pos;
      }
    }
  }
  std::string Name() const override { return input_->Name(); }

 private:
  std::unique_ptr<ByteStream> input_;
  uint64_t limit_;
  IoBuffer in_;
  ZSTD_DCtx* context_;
  ZSTD_inBuffer zin_{nullptr, 0, 0};
  bool input_eof_ = false;
  bool done_ = false;
  size_t last_hint_ = 0;
  uint64_t total_out_ = 0;
  uint64_t consumed_before_ = 0;
};

class LimitedStream final : public ByteStream {
 public:
  LimitedStream(std::unique_ptr<ByteStream> input, uint64_t limit) : input_(std::move(input)), limit_(limit) {}
  Result<size_t> Read(std::span<uint8_t> buffer) override {
    auto n = input_->Read(buffer);
    if (!n.ok()) return n;
    total_ += *n;
    if (total_ > limit_) return MakeError(input_->Name(), LimitMessage(limit_));
    return n;
  }
  Result<std::span<const uint8_t>> ReadView(std::span<uint8_t> scratch) override {
    auto view = input_->ReadView(scratch);
    if (!view.ok()) return view;
    total_ += view->size();
    if (total_ > limit_) return MakeError(input_->Name(), LimitMessage(limit_));
    return view;
  }
  std::string Name() const override { return input_->Name(); }

 private:
  std::unique_ptr<ByteStream> input_;
  uint64_t limit_;
  uint64_t total_ = 0;
};

}  // namespace

Result<size_t> PeekStream::Read(std::span<uint8_t> buffer) {
  if (position_ < head_.size()) {
    size_t n = std::min(buffer.size(), head_.size() - position_);
    std::memcpy(buffer.data(), head_.data() + position_, n);
    position_ += n;
    return n;
  }
  return input_->Read(buffer);
}

Result<std::span<const uint8_t>> PeekStream::ReadView(std::span<uint8_t> scratch) {
  if (position_ < head_.size()) {
    size_t n = std::min(scratch.size(), head_.size() - position_);
    std::span<const uint8_t> view(head_.data() + position_, n);
    position_ += n;
    return view;
  }
  return input_->ReadView(scratch);
}

Result<std::unique_ptr<PeekStream>> PeekStream::Open(std::unique_ptr<ByteStream> input, size_t want) {
  auto stream = std::unique_ptr<PeekStream>(new PeekStream(std::move(input)));
  stream->head_.resize(want);
  size_t have = 0;
  while (have < want) {
    auto n = stream->input_->Read(std::span<uint8_t>(stream->head_).subspan(have));
    if (!n.ok()) return n.error();
    if (*n == 0) break;
    have += *n;
  }
  stream->head_.resize(have);
  return stream;
}

Codec SniffCodec(std::span<const uint8_t> head) {
  if (head.size() >= 2 && head[0] == 0x1f && head[1] == 0x8b) return Codec::kGzip;
  if (head.size() >= 4 && head[0] == 0x28 && head[1] == 0xb5 && head[2] == 0x2f && head[3] == 0xfd) {
    return Codec::kZstd;
  }
  return Codec::kNone;
}

std::string_view CodecName(Codec codec) {
  switch (codec) {
    case Codec::kGzip: return "gzip";
    case Codec::kZstd: return "zstd";
    case Codec::kNone: return "none";
  }
  return "none";
}

std::unique_ptr<ByteStream> Decompressor(std::unique_ptr<ByteStream> input, Codec codec,
                                         uint64_t limit) {
  switch (codec) {
    case Codec::kGzip: return std::make_unique<GzipStream>(std::move(input), limit);
    case Codec::kZstd: return std::make_unique<ZstdStream>(std::move(input), limit);
    case Codec::kNone: return std::make_unique<LimitedStream>(std::move(input), limit);
  }
  return nullptr;
}

Result<std::unique_ptr<ByteStream>> OpenDecompressed(std::unique_ptr<ByteStream> input, uint64_t limit) {
  auto peek = PeekStream::Open(std::move(input), 4);
  if (!peek.ok()) return peek.error();
  Codec codec = SniffCodec((*peek)->Head());
  return Decompressor(std::move(*peek), codec, limit);
}

}  // namespace imagelint
