// File stores: tar archives indexed once (our own small ustar/pax/GNU header
// reader, so that every member is a byte range we can hand to a layer thread),
// and OCI layout directories.
#include "source/store.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <mutex>

#include "imagelint/bytes.h"
#include "imagelint/scan.h"
#include "scan/streams.h"

namespace imagelint {
namespace {

constexpr size_t kBlock = 512;
constexpr uint64_t kMaxHeaderData = 1 << 20;     // pax / GNU long-name records
// A docker save holds a few members per layer; these bound what indexing a
// hostile archive (a million long names in a few KB of gzip) can hold.
constexpr uint64_t kMaxMembers = 1 << 20;
constexpr uint64_t kMaxMemberNameBytes = 64ull << 20;
constexpr uint64_t kCaptureEach = 1 << 20;       // gzip'd archives: members kept in memory
constexpr uint64_t kCaptureTotal = 64ull << 20;
constexpr int kMaxLinkHops = 16;

int64_t Nanoseconds(const struct timespec& t) { return static_cast<int64_t>(t.tv_sec) * 1000000000 + t.tv_nsec; }

// dev:ino:size:mtime:ctime of a regular file.
std::optional<StoredBlobStamp> StampOf(const struct stat& st) {
  if (!S_ISREG(st.st_mode)) return std::nullopt;
  StoredBlobStamp identity;
  identity.key = std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino) + ":" + std::to_string(st.st_size) +
                 ":" + std::to_string(Nanoseconds(st.st_mtim)) + ":" + std::to_string(Nanoseconds(st.st_ctim));
  identity.newest_change_ns = std::max(Nanoseconds(st.st_mtim), Nanoseconds(st.st_ctim));
  return identity;
}

// Of a host file (following symlinks, as open does).
std::optional<StoredBlobStamp> HostFileStamp(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  return StampOf(st);
}

// Of a file already open (the directory store's confined opens).
std::optional<StoredBlobStamp> OpenFileStamp(int fd) {
  struct stat st;
  if (::fstat(fd, &st) != 0) return std::nullopt;
  return StampOf(st);
}

// Sequential input with skipping (seek for plain files, read-and-drop for gzip).
class TarInput {
 public:
  virtual ~TarInput() = default;
  // Fills `buffer` completely; returns the bytes read (less only at the end).
  virtual Result<size_t> ReadFull(std::span<uint8_t> buffer) = 0;
  virtual Status Skip(uint64_t bytes) = 0;
  uint64_t offset = 0;
};

class FileRangeStream final : public ByteStream {
 public:
  FileRangeStream(int fd, uint64_t offset, uint64_t size, std::string name)
      : fd_(fd), position_(offset), end_(offset + size), name_(std::move(name)) {}
  ~FileRangeStream() override { ::close(fd_); }
  Result<size_t> Read(std::span<uint8_t> buffer) override {
    if (position_ >= end_) return size_t{0};
    size_t want = static_cast<size_t>(std::min<uint64_t>(buffer.size(), end_ - position_));
    for (;;) {
      ssize_t n = ::pread(fd_, buffer.data(), want, static_cast<off_t>(position_));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return MakeError(name_, std::string("read failed: ") + std::strerror(errno));
      if (n == 0) return MakeErrorAt(name_, position_, "file ends early (truncated archive)");
      position_ += static_cast<uint64_t>(n);
      return static_cast<size_t>(n);
    }
  }
  std::string Name() const override { return name_; }

 private:
  int fd_;
  uint64_t position_;
  uint64_t end_;
  std::string name_;
};

class FileTarInput final : public TarInput {
 public:
  FileTarInput(int fd, uint64_t size) : fd_(fd), size_(size) {}
  Result<size_t> ReadFull(std::span<uint8_t> buffer) override {
    size_t done = 0;
    while (done < buffer.size()) {
      ssize_t n = ::pread(fd_, buffer.data() + done, buffer.size() - done, static_cast<off_t>(offset));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return MakeError("", std::string("read failed: ") + std::strerror(errno));
      if (n == 0) break;
      done += static_cast<size_t>(n);
      offset += static_cast<uint64_t>(n);
    }
    return done;
  }
  Status Skip(uint64_t bytes) override {
    auto end = CheckedAdd(offset, bytes);
    if (!end || *end > size_) return MakeErrorAt("", offset, "archive is truncated (a member runs past the end of the file)");
    offset = *end;
    return OkStatus();
  }

 private:
  int fd_;
  uint64_t size_;
};

class StreamTarInput final : public TarInput {
 public:
  explicit StreamTarInput(std::unique_ptr<ByteStream> stream) : stream_(std::move(stream)) {}
  Result<size_t> ReadFull(std::span<uint8_t> buffer) override {
    size_t done = 0;
    while (done < buffer.size()) {
      auto n = stream_->Read(buffer.subspan(done));
      if (!n.ok()) return n.error();
      if (*n == 0) break;
      done += *n;
    }
    offset += done;
    return done;
  }
  Status Skip(uint64_t bytes) override {
    std::vector<uint8_t> scratch(static_cast<size_t>(std::min<uint64_t>(bytes, 256 * 1024)));
    while (bytes > 0) {
      size_t want = static_cast<size_t>(std::min<uint64_t>(bytes, scratch.size()));
      auto n = ReadFull(std::span<uint8_t>(scratch).first(want));
      if (!n.ok()) return n.error();
      if (*n < want) return MakeErrorAt("", offset, "archive is truncated (a member runs past the end)");
      bytes -= want;
    }
    return OkStatus();
  }

 private:
  std::unique_ptr<ByteStream> stream_;
};

std::optional<uint64_t> ParseNumber(ByteView field) {
  if (field.empty()) return std::nullopt;
  if (field.data()[0] & 0x80) {  // base-256
    uint64_t value = 0;
    for (size_t i = 1; i < field.size(); ++i) {
      if (value >> 56) return std::nullopt;
      value = (value << 8) | field.data()[i];
    }
    if (field.data()[0] != 0x80) return std::nullopt;
    return value;
  }
  uint64_t value = 0;
  size_t i = 0;
  while (i < field.size() && field.data()[i] == ' ') ++i;
  bool any = false;
  for (; i < field.size(); ++i) {
    uint8_t c = field.data()[i];
    if (c == 0 || c == ' ') break;
    if (c < '0' || c > '7') return std::nullopt;
    if (value >> 60) return std::nullopt;
    value = value * 8 + (c - '0');
    any = true;
  }
  if (!any) return uint64_t{0};
  return value;
}

std::string Field(const uint8_t* header, size_t offset, size_t length) {
  const char* start = reinterpret_cast<const char*>(header + offset);
  return std::string(start, strnlen(start, length));
}

bool ChecksumOk(const uint8_t* header) {
  auto stored = ParseNumber(ByteView(header + 148, 8));
  if (!stored) return false;
  uint64_t unsigned_sum = 0;
  int64_t signed_sum = 0;
  for (size_t i = 0; i < kBlock; ++i) {
    uint8_t b = (i >= 148 && i < 156) ? ' ' : header[i];
    unsigned_sum += b;
    signed_sum += static_cast<int8_t>(b);
  }
  return *stored == unsigned_sum || static_cast<int64_t>(*stored) == signed_sum;
}

void ParsePax(const std::string& data, std::map<std::string, std::string>& out) {
  size_t pos = 0;
  while (pos < data.size()) {
    size_t space = data.find(' ', pos);
    if (space == std::string::npos) return;
    uint64_t length = 0;
    for (size_t i = pos; i < space; ++i) {
      if (data[i] < '0' || data[i] > '9' || length > (1u << 24)) return;
      length = length * 10 + static_cast<uint64_t>(data[i] - '0');
    }
    if (length == 0 || pos + length > data.size()) return;
    std::string record = data.substr(space + 1, pos + length - space - 2);  // without the newline
    size_t equals = record.find('=');
    if (equals != std::string::npos) out[record.substr(0, equals)] = record.substr(equals + 1);
    pos += length;
  }
}

struct IndexResult {
  std::vector<ArchiveMember> members;
  std::map<std::string, std::vector<uint8_t>> captured;  // gzip'd archives only
};

Result<IndexResult> IndexTar(TarInput& input, const std::string& name, bool capture) {
  IndexResult result;
  uint8_t header[kBlock];
  std::map<std::string, std::string> pax;
  std::string long_name;
  std::string long_link;
  uint64_t captured_total = 0;
  uint64_t name_bytes = 0;
  for (;;) {
    uint64_t header_offset = input.offset;
    auto n = input.ReadFull(std::span<uint8_t>(header, kBlock));
    if (!n.ok()) return WithSubject(n.error(), name);
    if (*n == 0 && header_offset == 0) return MakeError(name, "empty file (not an image archive)");
    if (*n < kBlock) {
      if (*n == 0 && !result.members.empty()) break;  // no end-of-archive blocks: tolerated
      return MakeErrorAt(name, header_offset, "archive is truncated inside a tar header");
    }
    if (std::all_of(header, header + kBlock, [](uint8_t b) { return b == 0; })) break;
    if (!ChecksumOk(header)) {
      return MakeErrorAt(name, header_offset,
                         header_offset == 0 ? "not a tar archive or OCI layout (unrecognised content)"
                                            : "corrupt tar header (bad checksum)");
    }
    auto size = ParseNumber(ByteView(header + 124, 12));
    if (!size) return MakeErrorAt(name, header_offset, "corrupt tar header (bad size field)");
    char type = static_cast<char>(header[156]);
    if (pax.count("size")) {
      uint64_t value = 0;
      for (char c : pax["size"]) {
        if (c < '0' || c > '9' || value > (1ull << 58)) return MakeErrorAt(name, header_offset, "bad pax size");
        value = value * 10 + static_cast<uint64_t>(c - '0');
      }
      if (type != 'x' && type != 'g') size = value;
    }
    uint64_t padded = (*size + kBlock - 1) / kBlock * kBlock;
    if (*size > (1ull << 62)) return MakeErrorAt(name, header_offset, "absurd member size " + std::to_string(*size));
    if (type == 'x' || type == 'g' || type == 'L' || type == 'K') {
      if (*size > kMaxHeaderData) return MakeErrorAt(name, header_offset, "oversized extended header");
      std::string data(static_cast<size_t>(padded), '\0');
      auto got = input.ReadFull(std::span<uint8_t>(reinterpret_cast<uint8_t*>(data.data()), data.size()));
      if (!got.ok()) return WithSubject(got.error(), name);
      if (*got < padded) return MakeErrorAt(name, header_offset, "archive is truncated inside an extended header");
      data.resize(static_cast<size_t>(*size));
      if (type == 'x') ParsePax(data, pax);
      if (type == 'L') long_name = std::string(data.c_str());
      if (type == 'K') long_link = std::string(data.c_str());
      continue;
    }
    std::string raw_name;
    if (pax.count("path")) {
      raw_name = pax["path"];
    } else if (!long_name.empty()) {
      raw_name = long_name;
    } else {
      raw_name = Field(header, 0, 100);
      if (std::memcmp(header + 257, "ustar", 5) == 0) {
        std::string prefix = Field(header, 345, 155);
        if (!prefix.empty()) raw_name = prefix + "/" + raw_name;
      }
    }
    std::string link = pax.count("linkpath") ? pax["linkpath"] : !long_link.empty() ? long_link : Field(header, 157, 100);
    pax.clear();
    long_name.clear();
    long_link.clear();

    ArchiveMember member;
    member.type = type == 0 ? '0' : type;
    member.offset = input.offset;
    member.size = *size;
    member.link = link;
    auto clean = CleanEntryPath(raw_name);
    bool keep = clean.ok() && !clean->empty();
    if (keep) member.name = *clean;

    if (capture && keep && member.type == '0' && *size <= kCaptureEach && captured_total + *size <= kCaptureTotal) {
      std::vector<uint8_t> data(static_cast<size_t>(padded));
      auto got = input.ReadFull(data);
      if (!got.ok()) return WithSubject(got.error(), name);
      if (*got < padded) return MakeErrorAt(name, member.offset, "archive is truncated inside " + member.name);
      data.resize(static_cast<size_t>(*size));
      captured_total += *size;
      result.captured[member.name] = std::move(data);
    } else {
      auto skipped = input.Skip(padded);
      if (!skipped.ok()) {
        return MakeErrorAt(name, member.offset,
                           "archive is truncated: member " + (keep ? member.name : raw_name) + " declares " +
                               std::to_string(*size) + " bytes");
      }
    }
    if (keep) {
      name_bytes += member.name.size() + member.link.size();
      result.members.push_back(std::move(member));
    }
    if (result.members.size() > kMaxMembers) {
      return MakeError(name, "more than " + std::to_string(kMaxMembers) + " archive members (imagelint's limit)");
    }
    if (name_bytes > kMaxMemberNameBytes) {
      return MakeError(name, "more than " + std::to_string(kMaxMemberNameBytes) +
                                 " bytes of member names (imagelint's limit)");
    }
  }
  return result;
}

class ArchiveStore final : public FileStore {
 public:
  ArchiveStore(std::string path, bool gzip, IndexResult index)
      : path_(std::move(path)), gzip_(gzip), captured_(std::move(index.captured)) {
    for (auto& member : index.members) members_[member.name] = std::move(member);  // last one wins
  }

  bool Exists(const std::string& path) const override { return Find(path).ok(); }

  Result<std::vector<uint8_t>> ReadSmall(const std::string& path, uint64_t limit) const override {
    auto member = Find(path);
    if (!member.ok()) return member.error();
    if ((*member)->size > limit) {
      return MakeError(Describe(path), "larger than the limit of " + std::to_string(limit) + " bytes");
    }
    auto stream = OpenMember(**member);
    if (!stream.ok()) return stream.error();
    return ReadAll(**stream, limit);
  }

  Result<std::unique_ptr<ByteStream>> Open(const std::string& path) const override {
    auto member = Find(path);
    if (!member.ok()) return member.error();
    return OpenMember(**member);
  }

  std::optional<uint64_t> StoredSize(const std::string& path) const override {
    auto member = Find(path);
    if (!member.ok()) return std::nullopt;
    return (*member)->size;
  }

  // The archive file's identity plus where the member's bytes lie in it.
  std::optional<StoredBlobStamp> Identity(const std::string& path) const override {
    auto member = Find(path);
    if (!member.ok()) return std::nullopt;
    auto identity = HostFileStamp(path_);
    if (!identity) return std::nullopt;
    identity->key += std::string(gzip_ ? ":gzip@" : ":@") + std::to_string((*member)->offset) + "+" +
                     std::to_string((*member)->size);
    return identity;
  }

  std::optional<uint64_t> SequentialOffset(const std::string& path) const override {
    auto member = Find(path);
    if (!gzip_ || !member.ok() || captured_.count((*member)->name)) return std::nullopt;
    return (*member)->offset;
  }
  uint64_t RestartsFromStart() const override { return cursors_->inflated_from_start.load(); }

  std::string Describe(const std::string& path) const override { return path_ + ":" + path; }
  std::string Location() const override { return path_; }

 private:
  Result<const ArchiveMember*> Find(const std::string& raw) const {
    auto clean = CleanEntryPath(raw);
    if (!clean.ok()) return MakeError(Describe(raw), clean.error().message);
    std::string path = *clean;
    for (int hop = 0; hop <= kMaxLinkHops; ++hop) {
      auto it = members_.find(path);
      if (it == members_.end()) return MakeError(Describe(raw), kNotInStore);
      const ArchiveMember& member = it->second;
      if (member.type == '0' || member.type == '7') return &member;
      if (member.type == '1') {
        path = member.link;
      } else if (member.type == '2') {
        std::string dir = path.find('/') == std::string::npos ? "" : path.substr(0, path.rfind('/') + 1);
        path = member.link.empty() || member.link[0] == '/' ? member.link : dir + member.link;
      } else {
        return MakeError(Describe(raw), "not a regular file in the archive");
      }
      auto next = CleanEntryPath(path);
      if (!next.ok()) return MakeError(Describe(raw), "link leaves the archive: " + member.link);
      path = *next;
    }
    return MakeError(Describe(raw), "too many levels of links in the archive");
  }

  Result<std::unique_ptr<ByteStream>> OpenMember(const ArchiveMember& member) const {
    std::string name = Describe(member.name);
    if (auto it = captured_.find(member.name); it != captured_.end()) {
      return MemoryStream(it->second, name);
    }
    if (!gzip_) {
      int fd = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
      if (fd < 0) return MakeError(path_, std::string("cannot open: ") + std::strerror(errno));
      return std::unique_ptr<ByteStream>(std::make_unique<FileRangeStream>(fd, member.offset, member.size, name));
    }
    // A gzip'd archive cannot seek. Continue the decompressor a previous
    // member left behind when it stopped before this one (members read in
    // archive order cost one pass in all); else decompress from the start.
    std::unique_ptr<StreamTarInput> input = cursors_->TakeAtOrBefore(member.offset);
    if (!input) {
      auto file = OpenHostFile(path_);
      if (!file.ok()) return file.error();
      input = std::make_unique<StreamTarInput>(Decompressor(std::move(*file), Codec::kGzip, UINT64_MAX));
      cursors_->inflated_from_start++;
    }
    IMAGELINT_TRY(input->Skip(member.offset - input->offset));
    return std::unique_ptr<ByteStream>(std::make_unique<SliceStream>(std::move(input), member.size, name, cursors_));
  }

  // Decompressors parked between members of a gzip'd archive, by position.
  struct CursorPool {
    std::mutex mutex;
    std::vector<std::unique_ptr<StreamTarInput>> parked;
    std::atomic<uint64_t> inflated_from_start{0};
    static constexpr size_t kMaxParked = 4;

    std::unique_ptr<StreamTarInput> TakeAtOrBefore(uint64_t offset) {
      std::lock_guard<std::mutex> lock(mutex);
      auto best = parked.end();
      for (auto it = parked.begin(); it != parked.end(); ++it) {
        if ((*it)->offset <= offset && (best == parked.end() || (*it)->offset > (*best)->offset)) best = it;
      }
      if (best == parked.end()) return nullptr;
      auto input = std::move(*best);
      parked.erase(best);
      return input;
    }
    void Park(std::unique_ptr<StreamTarInput> input) {
      std::lock_guard<std::mutex> lock(mutex);
      if (parked.size() >= kMaxParked) parked.erase(parked.begin());  // oldest out
      parked.push_back(std::move(input));
    }
  };

  class SliceStream final : public ByteStream {
   public:
    SliceStream(std::unique_ptr<StreamTarInput> input, uint64_t size, std::string name,
                std::shared_ptr<CursorPool> pool)
        : input_(std::move(input)), left_(size), name_(std::move(name)), pool_(std::move(pool)) {}
    ~SliceStream() override {
      if (input_ && healthy_) pool_->Park(std::move(input_));
    }
    Result<size_t> Read(std::span<uint8_t> buffer) override {
      if (left_ == 0) return size_t{0};
      size_t want = static_cast<size_t>(std::min<uint64_t>(buffer.size(), left_));
      auto n = input_->ReadFull(buffer.first(want));
      if (!n.ok()) {
        healthy_ = false;
        return WithSubject(n.error(), name_);
      }
      if (*n == 0) {
        healthy_ = false;
        return MakeError(name_, "archive is truncated");
      }
      left_ -= *n;
      return *n;
    }
    std::string Name() const override { return name_; }

   private:
    std::unique_ptr<StreamTarInput> input_;
    uint64_t left_;
    std::string name_;
    std::shared_ptr<CursorPool> pool_;
    bool healthy_ = true;  // a decompressor that failed is never reused
  };

  std::string path_;
  bool gzip_;
  std::map<std::string, ArchiveMember> members_;
  std::map<std::string, std::vector<uint8_t>> captured_;
  std::shared_ptr<CursorPool> cursors_ = std::make_shared<CursorPool>();
};

// An OCI layout or an extracted `docker save` on the host. Paths come from
// the image's own JSON (manifest.json names its layer files), and the
// directory may hold symlinks (skopeo's <id>/layer.tar -> ../<diffid>.tar):
// every open resolves inside the directory as if it were the root
// (openat2 RESOLVE_IN_ROOT), so neither "../" nor a symlink to /etc/shadow
// reaches a host file outside it.
class DirectoryStore final : public FileStore {
 public:
  DirectoryStore(std::string path, int root_fd) : path_(std::move(path)), root_fd_(root_fd) {}
  ~DirectoryStore() override {
    if (root_fd_ >= 0) ::close(root_fd_);
  }
  bool Exists(const std::string& path) const override {
    auto fd = OpenInside(path);
    if (!fd.ok()) return false;
    struct stat st;
    bool regular = ::fstat(*fd, &st) == 0 && S_ISREG(st.st_mode);
    ::close(*fd);
    return regular;
  }
  Result<std::vector<uint8_t>> ReadSmall(const std::string& path, uint64_t limit) const override {
    auto stream = Open(path);
    if (!stream.ok()) return stream.error();
    return ReadAll(**stream, limit);
  }
  Result<std::unique_ptr<ByteStream>> Open(const std::string& path) const override {
    auto fd = OpenInside(path);
    if (!fd.ok()) return fd.error();
    struct stat st;
    if (::fstat(*fd, &st) != 0 || !S_ISREG(st.st_mode)) {
      ::close(*fd);
      return MakeError(Describe(path), "not a regular file (" + FileTypePhrase(st.st_mode) + "): not read");
    }
    return std::unique_ptr<ByteStream>(
        std::make_unique<FileRangeStream>(*fd, 0, static_cast<uint64_t>(st.st_size), Describe(path)));
  }
  std::optional<uint64_t> StoredSize(const std::string& path) const override {
    auto fd = OpenInside(path);
    if (!fd.ok()) return std::nullopt;
    struct stat st;
    const bool regular = ::fstat(*fd, &st) == 0 && S_ISREG(st.st_mode);
    ::close(*fd);
    if (!regular) return std::nullopt;
    return static_cast<uint64_t>(st.st_size);
  }
  std::optional<StoredBlobStamp> Identity(const std::string& path) const override {
    auto fd = OpenInside(path);
    if (!fd.ok()) return std::nullopt;
    auto stamp = OpenFileStamp(*fd);
    ::close(*fd);
    return stamp;
  }
  std::string Describe(const std::string& path) const override { return path_ + "/" + path; }
  std::string Location() const override { return path_; }

 private:
  Result<int> OpenInside(const std::string& path) const {
    auto clean = CleanEntryPath(path);
    if (!clean.ok()) return MakeError(Describe(path), clean.error().message);
    if (root_fd_ < 0) return MakeError(path_, "cannot open the directory");
    struct open_how how {};
    // O_NONBLOCK: a FIFO where index.json should be would block the open
    // forever; callers check the type before reading (regular files only).
    how.flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK;
    how.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS;
    for (;;) {
      long fd = ::syscall(SYS_openat2, root_fd_, clean->c_str(), &how, sizeof how);
      if (fd >= 0) return static_cast<int>(fd);
      if (errno == EINTR || errno == EAGAIN) continue;
      if (errno == ENOENT || errno == ENOTDIR) return MakeError(Describe(path), kNotInStore);
      if (errno == ENOSYS) return MakeError(path_, "this kernel cannot open files confined to a directory (openat2, Linux >= 5.6)");
      return MakeError(Describe(path), std::string("cannot open: ") + std::strerror(errno));
    }
  }
  std::string path_;
  int root_fd_;
};

}  // namespace

Result<std::unique_ptr<FileStore>> OpenArchiveStore(const std::string& path, uint64_t metadata_limit) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);  // a FIFO must not block the open
  if (fd < 0) return MakeError(path, std::string("cannot open: ") + std::strerror(errno));
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return MakeError(path, "not a regular file (" + FileTypePhrase(st.st_mode) + "): not read");
  }
  uint8_t magic[2] = {0, 0};
  ssize_t got = ::pread(fd, magic, 2, 0);
  bool gzip = got == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
  Result<IndexResult> index = MakeError(path, "unreachable");
  if (gzip) {
    ::close(fd);
    auto file = OpenHostFile(path);
    if (!file.ok()) return file.error();
    StreamTarInput input(Decompressor(std::move(*file), Codec::kGzip, UINT64_MAX));
    index = IndexTar(input, path, true);
  } else {
    FileTarInput input(fd, static_cast<uint64_t>(st.st_size));
    index = IndexTar(input, path, false);
    ::close(fd);
  }
  if (!index.ok()) return index.error();
  (void)metadata_limit;
  return std::unique_ptr<FileStore>(std::make_unique<ArchiveStore>(path, gzip, std::move(*index)));
}

std::unique_ptr<FileStore> OpenDirectoryStore(const std::string& path) {
  return std::make_unique<DirectoryStore>(path, ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
}

}  // namespace imagelint
