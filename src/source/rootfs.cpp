#include "source/rootfs.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <vector>

namespace imagelint {
namespace {

constexpr size_t kMaxDepth = 256;
constexpr uint64_t kMaxEntries = 10'000'000;
// Zeros a sparse file's holes may add, per file: the default of
// LayerReadOptions::max_sparse_hole_bytes for a sparse entry of a layer.
constexpr uint64_t kMaxSparseHoleBytes = 256ull << 20;

class RootfsReader final : public EntryReader {
 public:
  RootfsReader(int root_fd, std::string root) : root_(std::move(root)) {
    stack_.push_back({root_fd, "", {}, 0, false});
  }
  ~RootfsReader() override {
    CloseFile();
    for (auto& frame : stack_) ::close(frame.fd);
  }

  Result<std::optional<EntryInfo>> Next() override {
    CloseFile();
    for (;;) {
      if (stack_.empty()) return std::optional<EntryInfo>();
      Frame& frame = stack_.back();
      if (!frame.listed) {
        IMAGELINT_TRY(List(frame));
      }
      if (frame.next >= frame.names.size()) {
        ::close(frame.fd);
        stack_.pop_back();
        continue;
      }
      std::string name = frame.names[frame.next++];
      std::string path = frame.path.empty() ? name : frame.path + "/" + name;
      if (++count_ > kMaxEntries) return MakeError(root_, "too many files");
      struct stat st;
      if (::fstatat(frame.fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
        return MakeError(root_ + "/" + path, std::string("cannot stat: ") + std::strerror(errno));
      }
      EntryInfo info;
      info.path = path;
      info.mode = st.st_mode & 07777;
      if (S_ISDIR(st.st_mode)) {
        info.type = EntryType::kDirectory;
        if (stack_.size() >= kMaxDepth) return MakeError(root_ + "/" + path, "directories nested too deeply");
        int fd = ::openat(frame.fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0) return MakeError(root_ + "/" + path, std::string("cannot open: ") + std::strerror(errno));
        stack_.push_back({fd, path, {}, 0, false});
      } else if (S_ISLNK(st.st_mode)) {
        info.type = EntryType::kSymlink;
        std::vector<char> target(4096);
        ssize_t n = ::readlinkat(frame.fd, name.c_str(), target.data(), target.size());
        if (n < 0) return MakeError(root_ + "/" + path, std::string("cannot read link: ") + std::strerror(errno));
        info.link_target.assign(target.data(), static_cast<size_t>(n));
      } else if (S_ISREG(st.st_mode)) {
        auto key = std::make_pair(st.st_dev, st.st_ino);
        if (st.st_nlink > 1) {
          auto seen = inodes_.find(key);
          if (seen != inodes_.end()) {
            info.type = EntryType::kHardlink;
            info.link_target = seen->second;
            return std::optional<EntryInfo>(std::move(info));
          }
          inodes_[key] = path;
        }
        info.type = EntryType::kRegular;
        info.size = static_cast<uint64_t>(st.st_size);
        // O_NONBLOCK and the type checked again on the open file: a FIFO put
        // in its place after the stat must not block the open or the reads.
        file_fd_ = ::openat(frame.fd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
        if (file_fd_ < 0) return MakeError(root_ + "/" + path, std::string("cannot open: ") + std::strerror(errno));
        file_name_ = root_ + "/" + path;
        struct stat opened;
        if (::fstat(file_fd_, &opened) != 0 || !S_ISREG(opened.st_mode) || opened.st_ino != st.st_ino) {
          CloseFile();
          return MakeError(file_name_, "changed while it was read (now not the regular file it was): not read");
        }
        file_size_ = info.size;
        file_at_ = data_end_ = 0;
        hole_bytes_ = 0;
        // Fewer blocks than bytes: the file may have holes, found by SEEK_DATA.
        maybe_sparse_ = static_cast<uint64_t>(opened.st_blocks) * 512 < file_size_;
        if (!maybe_sparse_) data_end_ = file_size_;
      } else {
        info.type = EntryType::kOther;
      }
      return std::optional<EntryInfo>(std::move(info));
    }
  }

  // The file's bytes up to the size it had when listed (a file that grows
  // while read is not followed). Holes of a sparse file are found with
  // SEEK_DATA / SEEK_HOLE and served as zeros without reading them, up to
  // the same limit per file as a sparse tar entry's.
  Result<size_t> ReadContent(std::span<uint8_t> buffer) override {
    if (file_fd_ < 0 || file_at_ >= file_size_ || buffer.empty()) return size_t{0};
    if (file_at_ >= data_end_) IMAGELINT_TRY(FindData());
    if (file_at_ < hole_end_) {
      const size_t n = static_cast<size_t>(std::min<uint64_t>(hole_end_ - file_at_, buffer.size()));
      std::memset(buffer.data(), 0, n);
      file_at_ += n;
      return n;
    }
    const size_t want = static_cast<size_t>(std::min<uint64_t>(data_end_ - file_at_, buffer.size()));
    for (;;) {
      ssize_t n = ::pread(file_fd_, buffer.data(), want, static_cast<off_t>(file_at_));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return MakeError(file_name_, std::string("read failed: ") + std::strerror(errno));
      if (n == 0) file_size_ = file_at_;  // shrank while read: stop here
      file_at_ += static_cast<uint64_t>(n);
      bytes_ += static_cast<uint64_t>(n);
      return static_cast<size_t>(n);
    }
  }
  uint64_t BlobBytesRead() const override { return bytes_; }
  uint64_t TarBytesRead() const override { return bytes_; }

 private:
  struct Frame {
    int fd;
    std::string path;
    std::vector<std::string> names;
    size_t next;
    bool listed;
  };

  Status List(Frame& frame) {
    int dup_fd = ::dup(frame.fd);
    DIR* dir = dup_fd >= 0 ? ::fdopendir(dup_fd) : nullptr;
    if (!dir) {
      if (dup_fd >= 0) ::close(dup_fd);
      return MakeError(root_ + "/" + frame.path, std::string("cannot list: ") + std::strerror(errno));
    }
    while (dirent* item = ::readdir(dir)) {
      std::string name = item->d_name;
      if (name != "." && name != "..") frame.names.push_back(std::move(name));
    }
    ::closedir(dir);
    std::sort(frame.names.begin(), frame.names.end());
    frame.listed = true;
    return OkStatus();
  }

  // At file_at_, the end of the data read so far: where the next data
  // starts (hole_end_) and ends (data_end_).
  Status FindData() {
    hole_end_ = file_at_;
    data_end_ = file_size_;
    if (!maybe_sparse_) return OkStatus();
    off_t data = ::lseek(file_fd_, static_cast<off_t>(file_at_), SEEK_DATA);
    if (data < 0 && errno == ENXIO) {
      hole_end_ = file_size_;  // a hole to the end
    } else if (data >= 0) {
      hole_end_ = std::min<uint64_t>(static_cast<uint64_t>(data), file_size_);
      off_t hole = ::lseek(file_fd_, data, SEEK_HOLE);
      if (hole > data) data_end_ = std::min<uint64_t>(static_cast<uint64_t>(hole), file_size_);
    }  // else: no SEEK_DATA on this file system, everything is data
    hole_bytes_ += hole_end_ - file_at_;
    if (hole_bytes_ > kMaxSparseHoleBytes) {
      return MakeError(file_name_, "a sparse file whose holes pass " + std::to_string(kMaxSparseHoleBytes) +
                                       " bytes (imagelint's limit of unstored bytes per file, max_sparse_hole_bytes); "
                                       "it holds data up to offset " + std::to_string(file_at_) + " of " +
                                       std::to_string(file_size_) + " bytes");
    }
    return OkStatus();
  }

  void CloseFile() {
    if (file_fd_ >= 0) ::close(file_fd_);
    file_fd_ = -1;
  }

  std::string root_;
  std::vector<Frame> stack_;
  std::map<std::pair<dev_t, ino_t>, std::string> inodes_;
  int file_fd_ = -1;
  std::string file_name_;
  uint64_t file_size_ = 0, file_at_ = 0, data_end_ = 0, hole_end_ = 0, hole_bytes_ = 0;
  bool maybe_sparse_ = false;
  uint64_t bytes_ = 0;
  uint64_t count_ = 0;
};

class RootfsSource final : public ImageSource {
 public:
  RootfsSource(std::string path) : path_(std::move(path)) {
    metadata_.ref = path_;
    metadata_.location = path_;
    metadata_.kind = "rootfs";
    metadata_.config = nlohmann::json::object();
    metadata_.platform = Platform{};
    LayerRef layer;
    layer.media_type = "rootfs";
    metadata_.layers.push_back(layer);
  }
  const ImageMetadata& Metadata() const override { return metadata_; }
  Result<std::unique_ptr<EntryReader>> OpenLayer(size_t index) override {
    if (index != 0) return MakeError(path_, "a root file system has one layer");
    int fd = ::open(path_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return MakeError(path_, std::string("cannot open: ") + std::strerror(errno));
    return std::unique_ptr<EntryReader>(std::make_unique<RootfsReader>(fd, path_));
  }

 private:
  std::string path_;
  ImageMetadata metadata_;
};

}  // namespace

Result<std::unique_ptr<ImageSource>> OpenRootfs(const std::string& path, const OpenOptions& options) {
  (void)options;
  return std::unique_ptr<ImageSource>(std::make_unique<RootfsSource>(path));
}

}  // namespace imagelint
