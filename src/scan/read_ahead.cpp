// ReadAhead: a ByteStream read by a producer thread into a bounded queue.
#include <condition_variable>
#include <cstring>
#include <deque>
#include <mutex>
#include <optional>
#include <thread>

#include "common/io_buffer.h"
#include "scan/critical_cpu.h"
#include "scan/helper_thread.h"
#include "scan/streams.h"

namespace imagelint {
namespace {

class ReadAheadStream final : public ByteStream {
 public:
  ReadAheadStream(std::unique_ptr<ByteStream> input, bool (*start_now)(), bool critical)
      : input_(std::move(input)), start_now_(start_now), name_(input_->Name()), critical_(critical) {}
  ~ReadAheadStream() override { AbandonAndJoin(producer_, mutex_, changed_, abandon_); }
  ReadAheadStream(const ReadAheadStream&) = delete;
  ReadAheadStream& operator=(const ReadAheadStream&) = delete;

  Result<size_t> Read(std::span<uint8_t> buffer) override {
    auto view = ReadView(buffer);
    if (!view.ok()) return view.error();
    if (view->data() != buffer.data()) std::memcpy(buffer.data(), view->data(), view->size());
    return view->size();
  }

  // The rest of the current chunk (at most scratch.size() bytes), which stays
  // valid until the next call: libarchive parses the chunks in place.
  Result<std::span<const uint8_t>> ReadView(std::span<uint8_t> scratch) override {
    if (!producer_.joinable()) {
      if (!start_now_ || direct_reads_++ % kRecheckEvery != 0 || !start_now_()) return input_->ReadView(scratch);
      Start();
    }
    if (!current_ || taken_ == current_->size) {
      if (current_) Release(std::move(current_));
      std::unique_lock<std::mutex> lock(mutex_);
      changed_.wait(lock, [&] { return !queue_.empty() || finished_; });
      if (queue_.empty()) {  // the producer stopped: its end or its error
        if (error_) return *error_;
        return std::span<const uint8_t>();
      }
      current_ = std::move(queue_.front());
      queue_.pop_front();
      taken_ = 0;
      changed_.notify_all();
    }
    size_t n = std::min(scratch.size(), current_->size - taken_);
    std::span<const uint8_t> view(current_->bytes.data() + taken_, n);
    taken_ += n;
    return view;
  }

  std::string Name() const override { return name_; }

 private:
  static constexpr size_t kChunkBytes = 1024 * 1024;
  static constexpr size_t kSlots = 8;
  static constexpr uint64_t kRecheckEvery = 16;
  struct Chunk {
    IoBuffer bytes{kChunkBytes};
    size_t size = 0;
  };

  void Start() {
    for (size_t i = 0; i < kSlots; ++i) free_.push_back(std::make_unique<Chunk>());
    producer_ = std::thread([this] { Produce(); });
  }

  void Release(std::unique_ptr<Chunk> chunk) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      free_.push_back(std::move(chunk));
    }
    changed_.notify_all();
  }

  // Fills free chunks until the end, an error, or the reader is gone. The
  // input is touched by this thread alone from Start() on.
  void Produce() {
    if (critical_) EnterCriticalPath();
    for (;;) {
      std::unique_ptr<Chunk> chunk;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        changed_.wait(lock, [&] { return abandon_ || !free_.empty(); });
        if (abandon_) return;
        chunk = std::move(free_.back());
        free_.pop_back();
      }
      // A short read is fine: the chunk goes out as it is.
      auto n = input_->Read(chunk->bytes.span());
      std::lock_guard<std::mutex> lock(mutex_);
      if (!n.ok() || *n == 0) {
        if (!n.ok()) error_ = n.error();
        finished_ = true;
        changed_.notify_all();
        return;
      }
      chunk->size = *n;
      queue_.push_back(std::move(chunk));
      changed_.notify_all();
    }
  }

  std::unique_ptr<ByteStream> input_;
  bool (*start_now_)();
  std::string name_;
  bool critical_;
  uint64_t direct_reads_ = 0;
  std::unique_ptr<Chunk> current_;
  size_t taken_ = 0;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<std::unique_ptr<Chunk>> queue_;
  std::vector<std::unique_ptr<Chunk>> free_;
  std::optional<Error> error_;
  bool finished_ = false;
  bool abandon_ = false;
  // Last: stopped (destructor) before the members it uses go.
  std::thread producer_;
};

}  // namespace

std::unique_ptr<ByteStream> ReadAhead(std::unique_ptr<ByteStream> input, bool (*start_now)(), bool critical) {
  return std::make_unique<ReadAheadStream>(std::move(input), start_now, critical);
}

}  // namespace imagelint
