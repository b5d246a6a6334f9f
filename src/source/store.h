// Where the files of an image container live: a tar archive (plain or
// gzip'd; indexed once, members read by offset) or an OCI layout directory.
// Paths are the container's own ("index.json", "blobs/sha256/<hex>").
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <memory>
#include <string>
#include <vector>

#include "imagelint/result.h"
#include "imagelint/source.h"
#include "imagelint/stream.h"

namespace imagelint {

// Message of the Error for a path the store does not hold.
inline constexpr const char* kNotInStore = "not found in the image container";

class FileStore {
 public:
  virtual ~FileStore() = default;
  virtual bool Exists(const std::string& path) const = 0;
  // The member's bytes, at most `limit` of them (an Error when larger).
  virtual Result<std::vector<uint8_t>> ReadSmall(const std::string& path, uint64_t limit) const = 0;
  // A stream over the member; may be called from several threads at once.
  virtual Result<std::unique_ptr<ByteStream>> Open(const std::string& path) const = 0;
  // Stamp of the host file (and place in it) holding `path`, without the
  // digest part (see StoredBlobStamp); nullopt when it cannot be established
  // (missing member, stat failure).
  virtual std::optional<StoredBlobStamp> Identity(const std::string& path) const = 0;
  // The member's size in bytes; nullopt when it is missing.
  virtual std::optional<uint64_t> StoredSize(const std::string& path) const = 0;
  // Where `path`'s bytes start in a store that can only be read front to
  // back (a gzip'd archive); nullopt for stores that seek, or bytes in memory.
  // Readers that open members in increasing order of it pay for one pass.
  virtual std::optional<uint64_t> SequentialOffset(const std::string& path) const { return std::nullopt; }
  // How many member reads had to decompress the archive from its start.
  virtual uint64_t RestartsFromStart() const { return 0; }
  // "image.tar:blobs/sha256/..." for messages.
  virtual std::string Describe(const std::string& path) const = 0;
  virtual std::string Location() const = 0;
};

struct ArchiveMember {
  std::string name;      // cleaned
  char type = '0';       // '0' file, '1' hard link, '2' symlink, '5' directory
  uint64_t offset = 0;   // of the data, in the uncompressed tar
  uint64_t size = 0;
  std::string link;      // raw link target
};

// Indexes a tar archive on the host (optionally gzip-compressed as a whole).
Result<std::unique_ptr<FileStore>> OpenArchiveStore(const std::string& path, uint64_t metadata_limit);
// An OCI layout directory on the host.
std::unique_ptr<FileStore> OpenDirectoryStore(const std::string& path);

}  // namespace imagelint
