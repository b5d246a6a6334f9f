#include "imagelint/scan.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <optional>
#include <thread>

#include "common/io_buffer.h"
#include "common/json_memory.h"
#include "scan/critical_cpu.h"

namespace imagelint {
namespace {

constexpr size_t kContentChunk = 256 * 1024;

struct ActiveSink {
  std::string name;
  std::unique_ptr<FileSink> sink;
  bool wants_more = true;
};

// The image in messages: the file or reference it was read from.
std::string Where(const ImageMetadata& metadata) {
  return metadata.location.empty() ? metadata.ref : metadata.location;
}

std::string FactBytesMessage(uint64_t limit, const std::string& where, const std::string& per) {
  return "more than " + std::to_string(limit >> 20) + " MiB of facts kept from the contents of files in " + where +
         " (ld.so.conf text, package metadata, ELF and fatbin summaries; imagelint's limit " + per +
         ", ScanLimits::max_fact_bytes_" + (per == "per layer" ? "per_layer" : "per_image") + ")";
}

// The memory of the facts analyzers kept from one entry's contents.
uint64_t FactBytes(const LayerEntry& entry) { return entry.analysis.empty() ? 0 : EstimateJsonMemory(entry.analysis); }

bool AllSinksStopped(const std::vector<ActiveSink>& sinks) {
  return std::none_of(sinks.begin(), sinks.end(), [](const ActiveSink& s) { return s.wants_more; });
}

// Reads one regular file's content once and fans it out to interested sinks.
Status AnalyzeFile(EntryReader& reader, LayerEntry& entry, const std::vector<FileAnalyzer*>& analyzers,
                   std::span<uint8_t> buffer) {
  size_t head_want = static_cast<size_t>(std::min<uint64_t>(entry.info.size, kHeadBytes));
  size_t filled = 0;
  bool eof = false;
  while (filled < head_want) {
    auto n = reader.ReadContent(buffer.subspan(filled));
    if (!n.ok()) return n.error();
    if (*n == 0) {
      eof = true;
      break;
    }
    filled += *n;
  }
  std::span<const uint8_t> head(buffer.data(), std::min(filled, head_want));
  std::vector<ActiveSink> sinks;
  for (FileAnalyzer* analyzer : analyzers) {
    auto sink = analyzer->Open(entry.info, head);
    if (sink) sinks.push_back({std::string(analyzer->Name()), std::move(sink), true});
  }
  if (sinks.empty()) return OkStatus();  // the reader skips the rest

  uint64_t total = 0;
  auto feed = [&](std::span<const uint8_t> chunk) {
    bool any = false;
    for (auto& active : sinks) {
      if (active.wants_more) active.wants_more = active.sink->Consume(chunk);
      any = any || active.wants_more;
    }
    return any;
  };
  bool more = filled == 0 || feed(std::span<const uint8_t>(buffer.data(), filled));
  total += filled;
  Status status = OkStatus();
  while (more && !eof) {
    auto n = reader.ReadContent(buffer);
    if (!n.ok()) {
      status = n.error();
      break;
    }
    if (*n == 0) break;
    total += *n;
    more = feed(std::span<const uint8_t>(buffer.data(), *n));
  }
  bool complete = status.ok() && (total == entry.info.size || AllSinksStopped(sinks));
  for (auto& active : sinks) {
    nlohmann::json facts = active.sink->Finish(complete);
    if (!facts.is_null()) entry.analysis[active.name] = std::move(facts);
  }
  return status;
}

}  // namespace

ImageBudget::ImageBudget(size_t layers, const ScanLimits& limits, std::string image)
    : limits_(limits), image_(std::move(image)), entries_(layers), name_bytes_(layers), fact_bytes_(layers) {}

Status ImageBudget::Set(size_t index, const LayerLoad& load) {
  if (index >= entries_.size()) return OkStatus();
  uint64_t old_entries = entries_[index].exchange(load.entries);
  uint64_t old_bytes = name_bytes_[index].exchange(load.name_bytes);
  uint64_t old_facts = fact_bytes_[index].exchange(load.fact_bytes);
  uint64_t total_entries = total_entries_ += load.entries - old_entries;  // unsigned wrap-around cancels out
  uint64_t total_bytes = total_name_bytes_ += load.name_bytes - old_bytes;
  uint64_t total_facts = total_fact_bytes_ += load.fact_bytes - old_facts;
  if (total_entries > limits_.max_entries_per_image) {
    return MakeError(image_, "more than " + std::to_string(limits_.max_entries_per_image) +
                                 " entries in the image's layers (imagelint's limit per image)");
  }
  if (total_bytes > limits_.max_name_bytes_per_image) {
    return MakeError(image_, "more than " + std::to_string(limits_.max_name_bytes_per_image) +
                                 " bytes of entry names and link targets in the image's layers (imagelint's limit "
                                 "per image)");
  }
  if (total_facts > limits_.max_fact_bytes_per_image) {
    return MakeError(image_, FactBytesMessage(limits_.max_fact_bytes_per_image, "the image's layers", "per image"));
  }
  return OkStatus();
}

std::atomic<int>& RunningLayerScans() {
  static std::atomic<int> running{0};
  return running;
}

namespace {
thread_local bool on_critical_path = false;
}  // namespace

bool OnCriticalPath() { return on_critical_path; }
CriticalPathScope::CriticalPathScope(bool critical) : previous_(on_critical_path) { on_critical_path = critical; }
CriticalPathScope::~CriticalPathScope() { on_critical_path = previous_; }

Result<LayerResult> ScanLayer(ImageSource& source, size_t index, const std::vector<FileAnalyzer*>& analyzers,
                              const ScanOptions& options) {
  const ImageMetadata& metadata = source.Metadata();
  if (index >= metadata.layers.size()) return MakeError(metadata.ref, "no layer " + std::to_string(index));
  auto reader = source.OpenLayer(index);
  if (!reader.ok()) return reader.error();
  LayerResult result;
  result.digest = metadata.layers[index].digest;
  result.diff_id = metadata.layers[index].diff_id;
  IoBuffer buffer(kContentChunk);
  const ScanLimits& limits = options.limits;
  const std::string layer_name = "layer " + std::to_string(index) + " (" +
                                 (result.digest.empty() ? result.diff_id : result.digest) + ")";
  uint64_t name_bytes = 0;
  uint64_t fact_bytes = 0;
  for (;;) {
    auto next = (*reader)->Next();
    if (!next.ok()) return next.error();
    if (!next->has_value()) break;
    LayerEntry entry;
    entry.info = std::move(**next);
    name_bytes += entry.info.path.size() + entry.info.link_target.size();
    if (result.entries.size() >= limits.max_entries_per_layer) {
      return MakeError(Where(metadata), layer_name + ": more than " + std::to_string(limits.max_entries_per_layer) +
                                       " entries in one layer (imagelint's limit per layer)");
    }
    if (name_bytes > limits.max_name_bytes_per_layer) {
      return MakeError(Where(metadata), layer_name + ": more than " + std::to_string(limits.max_name_bytes_per_layer) +
                                       " bytes of entry names and link targets in one layer (imagelint's limit "
                                       "per layer)");
    }
    if (entry.info.type == EntryType::kRegular && entry.info.size > 0 && !analyzers.empty()) {
      IMAGELINT_TRY(AnalyzeFile(**reader, entry, analyzers, buffer.span()));
      fact_bytes += FactBytes(entry);
      if (fact_bytes > limits.max_fact_bytes_per_layer) {
        return MakeError(Where(metadata),
                         layer_name + " (at " + entry.info.path + "): " +
                             FactBytesMessage(limits.max_fact_bytes_per_layer, "one layer", "per layer"));
      }
    }
    if (options.budget && result.entries.size() % 4096 == 4095) {
      IMAGELINT_TRY(options.budget->Set(index, {result.entries.size() + 1, name_bytes, fact_bytes}));
    }
    result.entries.push_back(std::move(entry));
  }
  result.blob_bytes = (*reader)->BlobBytesRead();
  result.tar_bytes = (*reader)->TarBytesRead();
  result.verified_digest = (*reader)->VerifiedDigest();
  if (options.budget) IMAGELINT_TRY(options.budget->Set(index, {result.entries.size(), name_bytes, fact_bytes}));
  return result;
}

namespace {

// What a layer served by a cache holds (the cache stores what ScanLayer kept).
LayerLoad LoadOf(const LayerResult& layer) {
  LayerLoad load;
  load.entries = layer.entries.size();
  for (const auto& entry : layer.entries) {
    load.name_bytes += entry.info.path.size() + entry.info.link_target.size();
    load.fact_bytes += FactBytes(entry);
  }
  return load;
}

// One layer through the configured scanner, with the image's budget charged
// for what it returned (a cache may answer without ScanLayer), and with no
// exception leaving the worker thread (std::thread would terminate): an
// allocation failure becomes an Error naming the layer.
Result<LayerResult> ScanOneLayer(ImageSource& source, size_t index, const std::vector<FileAnalyzer*>& analyzers,
                                 const ScanOptions& options) {
  const ImageMetadata& metadata = source.Metadata();
  try {
    Result<LayerResult> result = options.layer_scanner ? options.layer_scanner(source, index, analyzers, options)
                                                       : ScanLayer(source, index, analyzers, options);
    if (result.ok() && options.budget) {
      if (result->entries.size() > options.limits.max_entries_per_layer) {
        return MakeError(Where(metadata), "layer " + std::to_string(index) + ": more than " +
                                           std::to_string(options.limits.max_entries_per_layer) +
                                           " entries in one layer (imagelint's limit per layer)");
      }
      IMAGELINT_TRY(options.budget->Set(index, LoadOf(*result)));
    }
    return result;
  } catch (const std::bad_alloc&) {
    return MakeError(Where(metadata), "layer " + std::to_string(index) + ": out of memory while scanning it");
  } catch (const std::exception& e) {
    return MakeError(Where(metadata), "layer " + std::to_string(index) + ": " + e.what());
  }
}

}  // namespace

Result<ScannedImage> ScanImage(ImageSource& source, const std::vector<FileAnalyzer*>& analyzers,
                               const ScanOptions& options) {
  const ImageMetadata& metadata = source.Metadata();
  const size_t count = metadata.layers.size();
  std::vector<std::optional<Result<LayerResult>>> results(count);

  // Biggest layers first so that one huge layer does not start last.
  std::vector<size_t> order(count);
  for (size_t i = 0; i < count; ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return metadata.layers[a].ScheduleBytes() > metadata.layers[b].ScheduleBytes();
  });

  int jobs = options.jobs;
  if (jobs <= 0) jobs = static_cast<int>(std::clamp(std::thread::hardware_concurrency(), 1u, 4u));
  jobs = static_cast<int>(std::min<size_t>(static_cast<size_t>(jobs), std::max<size_t>(count, 1)));
  // A source read front to back (gzip'd tarball): one layer at a time, in
  // stream order, so that its single decompressor moves forward only.
  if (auto sequential = source.SequentialLayerOrder(); sequential && sequential->size() == count) {
    order = std::move(*sequential);
    jobs = 1;
  }

  ImageBudget budget(count, options.limits, Where(metadata));
  ScanOptions layer_options = options;
  layer_options.budget = &budget;
  std::atomic<size_t> next{0};
  std::atomic<bool> failed{false};
  std::mutex progress_mutex;
  ScanProgress progress;
  progress.layers_total = count;
  // Counted for all workers before any starts, so the first layer opened
  // already sees how many run beside it; each worker leaves when it is out
  // of layers, so the last big layer may get a helper hashing thread.
  RunningLayerScans() += jobs;
  const bool big_critical_path =
      jobs > 1 && count > 1 && metadata.layers[order[0]].ScheduleBytes() >= static_cast<int64_t>(kBigLayerBytes);
  // While the big layer is read, the workers keep off one CPU, which is its
  // critical thread's (src/scan/critical_cpu.h); the first worker to finish
  // the big layer gives it back.
  std::unique_ptr<CriticalCpu> critical_cpu = big_critical_path ? CriticalCpu::Reserve() : nullptr;
  auto worker = [&]() {
    if (critical_cpu) critical_cpu->JoinOthers();
    struct Leave {
      CriticalCpu* critical_cpu;
      ~Leave() {
        if (critical_cpu) critical_cpu->Leave();
        RunningLayerScans()--;
      }
    } leave{critical_cpu.get()};
    for (;;) {
      size_t slot = next.fetch_add(1);
      if (slot >= count || failed.load()) return;
      size_t index = order[slot];
      // The largest layer, opened first: the one whose inflating bounds the scan.
      CriticalPathScope critical(slot == 0 && count > 1 && jobs > 1);
      if (slot != 0 && big_critical_path) YieldToCriticalPath();
      Result<LayerResult> result = ScanOneLayer(source, index, analyzers, layer_options);
      if (slot == 0 && critical_cpu) critical_cpu->Release();
      if (!result.ok()) failed.store(true);
      uint64_t bytes = result.ok() ? result->blob_bytes : 0;
      results[index].emplace(std::move(result));
      if (options.progress) {
        std::lock_guard<std::mutex> lock(progress_mutex);
        progress.layers_done++;
        progress.blob_bytes_done += bytes;
        options.progress(progress);
      }
    }
  };
  if (jobs <= 1) {
    worker();
  } else {
    std::vector<std::thread> threads;
    for (int i = 0; i < jobs; ++i) threads.emplace_back(worker);
    for (auto& thread : threads) thread.join();
  }

  ScannedImage image;
  image.metadata = metadata;
  for (size_t i = 0; i < count; ++i) {
    if (results[i] && !results[i]->ok()) return results[i]->error();
  }
  for (size_t i = 0; i < count; ++i) {
    if (!results[i]) return MakeError(metadata.ref, "layer " + std::to_string(i) + " was not scanned");
    image.layers.push_back(std::move(results[i]->value()));
  }
  auto tree = ImageTree::BuildBounded(image.layers, options.limits.tree);
  if (!tree.ok()) return WithSubject(tree.error(), Where(metadata));
  image.tree = std::move(*tree);
  return image;
}

}  // namespace imagelint
