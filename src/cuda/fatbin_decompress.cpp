#include "cuda/fatbin_decompress.h"

#include <lz4.h>
#include <zstd.h>

namespace imagelint::cuda {
namespace {

// How many bytes of a payload declaring `declared_size` to decode: all, or
// with `partial` (an inspection window) at most `max_output`. False, with
// result.error set, when all of it is wanted and it exceeds the limit.
bool DecodeTarget(uint64_t declared_size, uint64_t max_output, bool partial, DecompressResult& result,
                  uint64_t& target) {
  target = declared_size;
  if (target <= max_output) return true;
  if (!partial) {
    result.error = "declared uncompressed size " + std::to_string(declared_size) + " exceeds limit " +
                   std::to_string(max_output);
    return false;
  }
  target = max_output;
  return true;
}

}  // namespace

DecompressResult DecompressLz4Block(std::span<const uint8_t> input, uint64_t declared_size,
                                    uint64_t max_output, bool partial) {
  DecompressResult result;
  if (input.size() > static_cast<uint64_t>(LZ4_MAX_INPUT_SIZE)) {
    result.error = "LZ4 payload too large";
    return result;
  }
  uint64_t target = 0;
  if (!DecodeTarget(declared_size, max_output, partial, result, target)) return result;
  result.data.resize(target);
  if (target == 0) return result;
  int produced;
  if (target == declared_size) {
    produced = LZ4_decompress_safe(reinterpret_cast<const char*>(input.data()),
                                   reinterpret_cast<char*>(result.data.data()), static_cast<int>(input.size()),
                                   static_cast<int>(target));
    if (produced >= 0 && static_cast<uint64_t>(produced) != declared_size) {
      result.error = "LZ4 payload decodes to " + std::to_string(produced) + " bytes, header says " +
                     std::to_string(declared_size);
      result.data.resize(static_cast<size_t>(produced));
      return result;
    }
  } else {
    produced = LZ4_decompress_safe_partial(reinterpret_cast<const char*>(input.data()),
                                           reinterpret_cast<char*>(result.data.data()),
                                           static_cast<int>(input.size()), static_cast<int>(target),
                                           static_cast<int>(target));
  }
  if (produced < 0) {
    result.error = "corrupt LZ4 block (decoder stopped at input byte " + std::to_string(-produced) + ")";
    result.data.clear();
    return result;
  }
  result.data.resize(static_cast<size_t>(produced));
  return result;
}

DecompressResult DecompressZstd(std::span<const uint8_t> input, uint64_t declared_size, uint64_t max_output,
                                bool partial) {
  DecompressResult result;
  unsigned long long frame_size = ZSTD_getFrameContentSize(input.data(), input.size());
  if (frame_size == ZSTD_CONTENTSIZE_ERROR) {
    result.error = "corrupt zstd payload (no valid frame header)";
    return result;
  }
  if (frame_size != ZSTD_CONTENTSIZE_UNKNOWN && frame_size != declared_size) {
    result.error = "zstd frame holds " + std::to_string(frame_size) + " bytes, entry header says " +
                   std::to_string(declared_size);
    return result;
  }
  uint64_t target = 0;
  if (!DecodeTarget(declared_size, max_output, partial, result, target)) return result;
  result.data.resize(target);
  ZSTD_DCtx* context = ZSTD_createDCtx();
  if (context == nullptr) {
    result.error = "zstd: out of memory";
    return result;
  }
  // Window limit keeps a hostile frame from asking for gigabytes of history.
  ZSTD_DCtx_setParameter(context, ZSTD_d_windowLogMax, 27);
  ZSTD_inBuffer in{input.data(), input.size(), 0};
  ZSTD_outBuffer out{result.data.data(), result.data.size(), 0};
  bool finished = false;
  while (out.pos < out.size || target == 0) {
    size_t code = ZSTD_decompressStream(context, &out, &in);
    if (ZSTD_isError(code)) {
      result.error = std::string("corrupt zstd payload: ") + ZSTD_getErrorName(code) + " (near input byte " +
                     std::to_string(in.pos) + ")";
      break;
    }
    if (code == 0) {
      finished = true;
      break;
    }
    if (in.pos == in.size && out.pos < out.size) {
      // Decoder wants more input than the entry holds.
      size_t before = out.pos;
      code = ZSTD_decompressStream(context, &out, &in);
      if (ZSTD_isError(code) || out.pos == before) {
        result.error = "truncated zstd payload (" + std::to_string(out.pos) + " of " +
                       std::to_string(declared_size) + " bytes decoded)";
        break;
      }
    }
    if (target == 0) break;
  }
  ZSTD_freeDCtx(context);
  if (!result.error && finished && target == declared_size && out.pos != declared_size) {
    result.error = "zstd payload decodes to " + std::to_string(out.pos) + " bytes, header says " +
                   std::to_string(declared_size);
  }
  if (result.error) {
    result.data.clear();
  } else {
    result.data.resize(out.pos);
  }
  return result;
}

}  // namespace imagelint::cuda
