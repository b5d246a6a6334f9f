// Sources: turn a command-line argument into an image (DESIGN.md "Source").
//
// Every input kind (docker-archive tarball, OCI layout directory or archive,
// root file system directory, registry reference) becomes an ImageSource: the
// image's metadata (config, platform, ordered layers) plus a way to open each
// layer's entries as a stream. The layer scanner only ever talks to this
// interface, so it cannot tell a registry from a tarball.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "imagelint/analyzer.h"
#include "imagelint/platform.h"
#include "imagelint/result.h"
#include "imagelint/stream.h"

namespace imagelint {

// An argument that names a root file system explicitly: "rootfs:DIR" (the
// command line's --rootfs DIR). A directory without this prefix is read as a
// root file system only when it looks like one (LooksLikeRootFileSystem in
// src/source/rootfs.h): other directories must be image layouts.
inline constexpr std::string_view kRootfsPrefix = "rootfs:";

// Whether `input` names something on this host rather than a registry image:
// "rootfs:DIR", an absolute or ./ ../ ~/ path, a name ending in an archive,
// JSON or YAML extension (.tar, .tar.gz, .tgz, .tar.zst, .oci, .json,
// .yaml), a Dockerfile or Containerfile name, or a relative path whose first
// directory exists here and does not look like a registry host (no '.' or
// ':', not "localhost"). A missing input that looks local is "no such file
// or directory", never a registry lookup. Purely lexical except for that one
// existence check of the first directory.
bool LooksLikeLocalPath(std::string_view input);

// One layer of the selected image, base first.
struct LayerRef {
  std::string digest;      // digest of the blob as stored (compressed for gzip/zstd layers)
  std::string diff_id;     // digest of the uncompressed tar (config rootfs.diff_ids[i])
  std::string media_type;  // as declared; compression is still sniffed from magic bytes
  int64_t size = -1;       // declared blob size, -1 when unknown
  // Where nothing declares a size (a legacy docker-save layer.tar): the bytes
  // the source holds for the blob. Schedules the scan (largest layer first),
  // never checked against what is read. -1 when unknown.
  int64_t stored_bytes = -1;
  int64_t ScheduleBytes() const { return size >= 0 ? size : stored_bytes; }
  std::string created_by;  // history entry of this layer (empty_layer entries skipped)
};

struct ImageMetadata {
  std::string ref;          // what the user gave, or the tag found in the archive
  std::string digest;       // manifest digest when there is one (else the config digest)
  std::string kind;         // "docker-archive", "oci-layout", "oci-archive", "rootfs", "registry"
  std::string location;     // where it was read from: the path given, or the registry reference
  Platform platform;
  nlohmann::json config;    // the image config JSON (OCI/Docker), {} for a rootfs
  std::vector<LayerRef> layers;
};

// Walks the entries of one layer. The scanner pulls entries one at a time and
// reads each regular file's content through ReadContent before moving on.
class EntryReader {
 public:
  virtual ~EntryReader() = default;
  // Next entry, or nullopt at the end of the layer. Errors: malformed tar,
  // truncated blob, digest mismatch (reported when the end is reached).
  virtual Result<std::optional<EntryInfo>> Next() = 0;
  // Content of the current regular file; 0 at its end.
  virtual Result<size_t> ReadContent(std::span<uint8_t> buffer) = 0;
  // Bytes consumed so far: blob bytes (compressed) and tar bytes (uncompressed).
  virtual uint64_t BlobBytesRead() const = 0;
  virtual uint64_t TarBytesRead() const = 0;
  // After the end of the layer: the digest its bytes were checked against
  // and matched (the diff ID when the tar was hashed, else the blob digest),
  // empty when nothing was checked. The layer cache stores under it, so that
  // no entry is filed under a digest that only a config claimed.
  virtual std::string VerifiedDigest() const { return {}; }
};

struct OpenOptions {
  Platform platform;                                  // --platform, default linux/amd64
  // True when the user named a platform: then a single-platform index of
  // another platform is an error too (otherwise its only image is taken).
  bool platform_explicit = false;
  uint64_t max_uncompressed_layer_bytes = 64ull << 30;  // gzip-bomb limit per layer (overridable)
  uint64_t max_metadata_bytes = 16ull << 20;          // manifests, configs, index.json
  bool verify_digests = true;                         // blob digests and diff IDs
  // Also hash the uncompressed tar of a compressed layer whose blob digest is
  // checked (--verify-diff-ids). Off by default: the verified blob fixes the
  // tar, so its diff ID only re-proves the config's claim (docs/PERFORMANCE.md).
  bool verify_diff_ids = false;
  // --image: which image of an archive or layout that holds several (docker
  // save of several tags, an OCI layout with several ref names): a name as
  // stored (RepoTags, io.containerd.image.name, org.opencontainers.image.ref.name;
  // "ubuntu" matches "docker.io/library/ubuntu:latest") or "@N" (0-based, in
  // stored order). Empty: a container holding several images is an error
  // listing them, never a silent pick of the first.
  std::string image_name;
};

// Names the stored bytes of one layer for VerifiedBlobMemo: the identity of
// the host file holding them (device, inode, size, mtime, ctime, offset in
// an archive) and the digest they are checked against. Rewriting the file
// moves its ctime, which no user can set back, so an equal stamp means the
// bytes were not rewritten in between.
struct StoredBlobStamp {
  std::string key;
  int64_t newest_change_ns = 0;  // the later of the file's mtime and ctime
  bool operator==(const StoredBlobStamp&) const = default;
};

// Remembers stored blobs that were hashed and found to match, so that a warm
// cache need not hash an unchanged multi-GB blob again. Implemented by the
// layer cache; a source asks before hashing and tells after.
class VerifiedBlobMemo {
 public:
  virtual ~VerifiedBlobMemo() = default;
  virtual bool Contains(const StoredBlobStamp& stamp) = 0;
  // The bytes were hashed and matched; `before` and `after` were taken around
  // the hashing. Remembered only when they are equal and the file has not
  // changed in the last moments (a write in the same clock tick as the stat
  // could leave its timestamps unchanged: git's "racy clean" problem).
  virtual void Remember(const StoredBlobStamp& before, const StoredBlobStamp& after) = 0;
};

class ImageSource {
 public:
  virtual ~ImageSource() = default;
  virtual const ImageMetadata& Metadata() const = 0;
  // Opens layer `index` (0 = base). May be called from several threads for
  // different layers at once. The reader verifies the blob digest and the
  // diff ID as bytes pass and fails at the end of the layer on a mismatch.
  virtual Result<std::unique_ptr<EntryReader>> OpenLayer(size_t index) = 0;
  // Before a layer cache may answer for layer `index` without reading it,
  // the source must show that the layer's bytes are still what the image
  // says they are. Returns true when that is established (a local blob hashed
  // against its digest, or a registry whose manifest chain was verified),
  // false when no check cheaper than a full scan exists (the cache then scans
  // the layer again), or an Error when the blob is missing or does not match:
  // a corrupted image must not pass because an earlier copy was cached.
  // `memo` (may be null) lets a local source skip hashing a blob file that
  // has not changed since it was last hashed and found right.
  virtual Result<bool> VerifyLayerForCache(size_t index, VerifiedBlobMemo* memo) { return false; }
  // The stamp of layer `index`'s stored bytes, for sources that read them
  // from host files and verify digests; nullopt otherwise. The cache takes it
  // around a full scan too, since a verified scan proves the bytes as well.
  virtual std::optional<StoredBlobStamp> StoredLayerStamp(size_t index) { return std::nullopt; }
  // For sources that can only be read front to back (a gzip'd tarball): the
  // order of layers in the stream. The scanner then reads them one at a time
  // in that order, so the whole image costs one pass of decompression rather
  // than one pass per layer. nullopt: any order, in parallel.
  virtual std::optional<std::vector<size_t>> SequentialLayerOrder() { return std::nullopt; }
};

}  // namespace imagelint
