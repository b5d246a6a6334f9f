// The seam between the layer scanner and content analyzers.
//
// The scanner walks every entry of every layer exactly once. For each regular
// file it reads the first bytes (the "head"), asks every registered analyzer
// whether it wants the file, and then streams the file's bytes, in order, to
// the sinks that said yes. Analyzers never see a host path and never get the
// whole file at once: a 1 GiB library passes through in chunks, so an
// analyzer that needs data from far into a file keeps its own bounded state.
//
// An analyzer's result for one file is plain JSON, stored with the layer's
// results under the analyzer's name, so per-layer results can be cached by
// layer digest + analyzer name + analyzer version.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

namespace imagelint {

enum class EntryType { kRegular, kDirectory, kSymlink, kHardlink, kOther };

std::string_view EntryTypeName(EntryType type);  // "file", "dir", "symlink", "hardlink", "other"

// One tar entry (or rootfs directory entry), as the image stores it.
struct EntryInfo {
  std::string path;         // cleaned, relative to the image root: "usr/lib/libcuda.so.1"
  EntryType type = EntryType::kRegular;
  uint64_t size = 0;        // bytes of content (regular files only)
  uint32_t mode = 0;        // permission bits
  std::string link_target;  // symlink target verbatim, or hard-link target path (cleaned)
};

// Receives one file's bytes. Used from a single thread at a time.
class FileSink {
 public:
  virtual ~FileSink() = default;
  // Chunks arrive in order and cover the file from byte 0 (the head is
  // delivered again as part of the first chunks). Return false once the sink
  // has seen enough; the scanner then stops feeding it.
  virtual bool Consume(std::span<const uint8_t> chunk) = 0;
  // Called exactly once. `complete` is false when the entry was cut short
  // (truncated layer). Returns the facts for this file, or a null JSON value
  // when there is nothing to report. Problems with the file's own bytes are
  // reported inside the JSON (e.g. {"problems":[{"offset":..,"message":..}]}),
  // never thrown: one bad file must not stop the scan of the image.
  virtual nlohmann::json Finish(bool complete) = 0;
};

// A content analyzer. Open() is called from several scanner threads at once
// and must be thread-safe; sinks are per file.
class FileAnalyzer {
 public:
  virtual ~FileAnalyzer() = default;
  // Key of this analyzer's results in a layer entry's `analysis` map.
  virtual std::string_view Name() const = 0;
  // Bumped whenever the analyzer's output changes; part of cache keys.
  virtual int Version() const = 0;
  // What else its results depend on (a digest of the knowledge rows it
  // filters by), "" for nothing; part of cache keys like Version().
  virtual std::string CacheTag() const { return {}; }
  // `head` holds the first min(entry.size, kHeadBytes) bytes of the file.
  // Returns nullptr when the analyzer has no interest in this file.
  virtual std::unique_ptr<FileSink> Open(const EntryInfo& entry, std::span<const uint8_t> head) = 0;
};

inline constexpr size_t kHeadBytes = 4096;

}  // namespace imagelint
