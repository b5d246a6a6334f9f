#include "cuda/fatbin.h"

#include <cctype>
#include <cstdio>
#include <algorithm>
#include <cstring>
#include <string_view>
#include <tuple>

#include "cuda/cubin_kernels.h"
#include "cuda/fatbin_decompress.h"
#include "imagelint/bytes.h"

namespace imagelint::cuda {
namespace {

constexpr uint8_t kContainerMagic[8] = {0x50, 0xED, 0x55, 0xBA, 0x01, 0x00, 0x10, 0x00};
constexpr uint8_t kElfMagic[4] = {0x7F, 'E', 'L', 'F'};
constexpr uint16_t kEmCuda = 190;
constexpr uint64_t kFlagDebug = 0x2;
constexpr uint64_t kFlagLz4 = 0x2000;
constexpr uint64_t kFlagZstd = 0x8000;
constexpr uint64_t kFlagArchSpecific = 0x100000;
constexpr uint64_t kFlagFamilySpecific = 0x200000;

uint64_t AlignUp8(uint64_t value) {
  if (value > UINT64_MAX - 7) return UINT64_MAX;
  return (value + 7) & ~uint64_t{7};
}

std::string Hex(uint64_t value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "0x%llx", static_cast<unsigned long long>(value));
  return buffer;
}

// Reads "X.Y" after `directive` in PTX text (".version 8.4", ".target sm_90a").
std::string PtxDirective(std::string_view text, std::string_view directive) {
  size_t at = text.find(directive);
  if (at == std::string_view::npos) return "";
  size_t i = at + directive.size();
  while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
  size_t start = i;
  while (i < text.size() && i - start < 32 &&
         (std::isalnum(static_cast<unsigned char>(text[i])) || text[i] == '.' || text[i] == '_'))
    ++i;
  return std::string(text.substr(start, i - start));
}

int VariantRank(const std::string& variant) { return variant == "a" ? 2 : variant == "f" ? 1 : 0; }

}  // namespace

EntryCategory CategoryOf(uint16_t kind) {
  switch (kind) {
    case 2: case 4: case 0x10: return EntryCategory::kSass;
    case 1: case 0x40: return EntryCategory::kPtx;
    case 8: return EntryCategory::kLtoir;
    default: return EntryCategory::kOther;
  }
}

std::string_view CategoryName(EntryCategory category) {
  switch (category) {
    case EntryCategory::kSass: return "sass";
    case EntryCategory::kPtx: return "ptx";
    case EntryCategory::kLtoir: return "ltoir";
    case EntryCategory::kOther: break;
  }
  return "other";
}

std::string_view CompressionName(Compression compression) {
  switch (compression) {
    case Compression::kNone: break;
    case Compression::kLz4: return "lz4";
    case Compression::kZstd: return "zstd";
    case Compression::kLz4AndZstd: return "lz4+zstd";
  }
  return "none";
}

std::string EntryArchName(const FatbinEntry& entry) {
  std::string prefix;
  switch (CategoryOf(entry.kind)) {
    case EntryCategory::kSass: prefix = "sm_"; break;
    case EntryCategory::kPtx: prefix = "compute_"; break;
    case EntryCategory::kLtoir: prefix = "lto_"; break;
    case EntryCategory::kOther: prefix = "kind" + Hex(entry.kind) + "_"; break;
  }
  return prefix + std::to_string(entry.arch) + entry.variant;
}

std::string EntryIsa(const FatbinEntry& entry) {
  if (CategoryOf(entry.kind) != EntryCategory::kPtx) return "";
  if (entry.version_major == 0 && entry.version_minor == 0) return "";
  return std::to_string(entry.version_major) + "." + std::to_string(entry.version_minor);
}

std::string ToolkitFromCubinVersion(uint32_t e_version) {
  // Cubins carry toolkit major*10+minor (102 = 10.2, 129 = 12.9); 1 means "unknown".
  if (e_version < 20 || e_version > 999) return "";
  return std::to_string(e_version / 10) + "." + std::to_string(e_version % 10);
}

uint32_t CubinSmFromFlags(uint32_t e_flags, uint8_t abi_version) {
  if (abi_version == 7) return e_flags & 0xFF;
  if (abi_version == 8) return (e_flags >> 8) & 0xFF;
  uint32_t low = e_flags & 0xFF;
  if (low >= 0x14 && low <= 0x5A) return low;
  return (e_flags >> 8) & 0xFF;
}

bool CubinIsArchSpecific(uint32_t e_flags, uint8_t abi_version) {
  constexpr uint32_t kAcceleratorsAbi7 = 0x800;  // EF_CUDA_ACCELERATORS_V1
  constexpr uint32_t kAcceleratorsAbi8 = 0x8;    // EF_CUDA_ACCELERATORS
  return (abi_version == 7 && (e_flags & kAcceleratorsAbi7)) || (abi_version == 8 && (e_flags & kAcceleratorsAbi8));
}

FatbinScanner::FatbinScanner(uint64_t file_size, FatbinLimits limits) : file_size_(file_size), limits_(limits) {}

void FatbinScanner::AddProblem(uint64_t offset, std::string message) {
  ++problem_count_;
  if (problems_.size() < limits_.max_problems) problems_.push_back({offset, std::move(message)});
}

// A limit that stops the scan is always recorded, past max_problems too: it
// says why the rest of the file is not in the facts.
void FatbinScanner::AddStop(uint64_t offset, std::string message) {
  ++problem_count_;
  problems_.push_back({offset, std::move(message)});
}

void FatbinScanner::Collect(Want want, uint64_t length) {
  want_ = want;
  want_length_ = length;
  state_ = State::kCollect;
  if (buffer_.size() >= want_length_) OnCollected();
}

void FatbinScanner::ResumeSearchAt(uint64_t offset) {
  offset = AlignUp8(offset);
  buffer_.clear();
  carry_.clear();
  if (offset <= pos_) {
    // Already there (or a lying size sent us backwards: never re-read, go on).
    state_ = State::kSearch;
    return;
  }
  skip_remaining_ = offset - pos_;
  payload_skip_after_ = 0;
  state_ = State::kSkip;
  want_ = Want::kContainerHeader;  // after the skip: search
}

void FatbinScanner::EndContainer(uint64_t resume_at) {
  ResumeSearchAt(resume_at);
}

void FatbinScanner::FinishEntry() {
  entries_.push_back(std::move(current_));
  ++containers_.back().entries;
  buffer_.clear();
  if (payload_skip_after_ > pos_) {  // the rest of its payload was not collected
    skip_remaining_ = payload_skip_after_ - pos_;
    want_ = Want::kPayload;
    state_ = State::kSkip;
  } else {
    StartEntry(payload_skip_after_);
  }
}

void FatbinScanner::StartEntry(uint64_t offset) {
  buffer_.clear();
  if (offset >= container_end_) {
    EndContainer(std::max(offset, container_offset_ + 16));
    return;
  }
  if (container_end_ - offset < 64) {
    AddProblem(offset, "fatbin container at " + std::to_string(container_offset_) + ": " +
                           std::to_string(container_end_ - offset) +
                           " trailing bytes are too short for an entry header");
    EndContainer(container_end_);
    return;
  }
  entry_offset_ = offset;
  if (offset > pos_) {
    skip_remaining_ = offset - pos_;
    state_ = State::kSkip;
    want_ = Want::kEntryFixed;  // after the skip: collect the entry header
    return;
  }
  Collect(Want::kEntryFixed, 64);
}

void FatbinScanner::SearchChunk(std::span<const uint8_t>& chunk) {
  auto matches_at = [&](const uint8_t* word, uint64_t offset) -> bool {
    if (std::memcmp(word, kContainerMagic, 8) == 0) {
      if (containers_.size() >= limits_.max_containers) {
        AddStop(offset, "more than " + std::to_string(limits_.max_containers) +
                               " fatbin containers; the rest of the file is not scanned");
        state_ = State::kDone;
        return true;
      }
      container_offset_ = offset;
      Collect(Want::kContainerHeader, 16);
      return true;
    }
    if (offset != 0 && std::memcmp(word, kElfMagic, 4) == 0 && word[4] == 2 && word[5] == 1) {
      container_offset_ = offset;
      Collect(Want::kCubinHeader, 64);
      return true;
    }
    return false;
  };

  if (!carry_.empty()) {
    size_t take = std::min<size_t>(8 - carry_.size(), chunk.size());
    carry_.insert(carry_.end(), chunk.begin(), chunk.begin() + take);
    pos_ += take;
    chunk = chunk.subspan(take);
    if (carry_.size() < 8) return;
    std::vector<uint8_t> word = std::move(carry_);
    carry_.clear();
    buffer_ = word;
    if (matches_at(word.data(), pos_ - 8)) return;
    buffer_.clear();
  }
  size_t i = static_cast<size_t>((8 - pos_ % 8) % 8);
  const uint8_t* p = chunk.data();
  size_t n = chunk.size();
  if (i >= n) {
    pos_ += n;
    chunk = {};
    return;
  }
  uint64_t magic_word;
  std::memcpy(&magic_word, kContainerMagic, 8);
  uint32_t elf_word;
  std::memcpy(&elf_word, kElfMagic, 4);
  for (; i + 8 <= n; i += 8) {
    uint64_t word;
    std::memcpy(&word, p + i, 8);
    if (word == magic_word || static_cast<uint32_t>(word) == elf_word) {
      uint64_t offset = pos_ + i;
      buffer_.assign(p + i, p + i + 8);
      pos_ = offset + 8;
      chunk = chunk.subspan(i + 8);
      if (matches_at(p + i, offset)) return;
      buffer_.clear();
      i = static_cast<size_t>(-8);  // restart on the remaining chunk (already aligned)
      p = chunk.data();
      n = chunk.size();
    }
  }
  carry_.assign(p + i, p + n);
  pos_ += n;
  chunk = {};
}

void FatbinScanner::Consume(std::span<const uint8_t> chunk) {
  while (!chunk.empty() && state_ != State::kDone) {
    switch (state_) {
      case State::kSearch:
        SearchChunk(chunk);
        break;
      case State::kCollect: {
        size_t take = static_cast<size_t>(std::min<uint64_t>(want_length_ - buffer_.size(), chunk.size()));
        buffer_.insert(buffer_.end(), chunk.begin(), chunk.begin() + take);
        pos_ += take;
        chunk = chunk.subspan(take);
        if (buffer_.size() >= want_length_) OnCollected();
        break;
      }
      case State::kSkip: {
        size_t take = static_cast<size_t>(std::min<uint64_t>(skip_remaining_, chunk.size()));
        pos_ += take;
        skip_remaining_ -= take;
        chunk = chunk.subspan(take);
        if (skip_remaining_ == 0) {
          if (want_ == Want::kEntryFixed) {
            Collect(Want::kEntryFixed, 64);
          } else if (want_ == Want::kPayload) {
            // Payload skipped: go to the next entry.
            StartEntry(payload_skip_after_);
          } else {
            state_ = State::kSearch;
          }
        }
        break;
      }
      case State::kDone:
        break;
    }
  }
}

void FatbinScanner::OnCollected() {
  ByteView view(buffer_.data(), buffer_.size());
  switch (want_) {
    case Want::kContainerHeader: {
      uint64_t fat_size = *view.U64(8);
      uint64_t offset = container_offset_;
      if (fat_size == 0) {
        AddProblem(offset, "fatbin container declares no entries (size 0)");
        ResumeSearchAt(offset + 16);
        return;
      }
      auto end = CheckedAdd(offset + 16, fat_size);
      containers_.push_back({offset, end ? 16 + fat_size : UINT64_MAX, 0});
      if (!end || *end > file_size_) {
        AddProblem(offset, "fatbin container declares " + std::to_string(fat_size) +
                               " bytes of entries, past the end of the file (size " +
                               std::to_string(file_size_) + ")");
        container_end_ = file_size_;
      } else {
        container_end_ = *end;
      }
      StartEntry(offset + 16);
      return;
    }
    case Want::kEntryFixed: {
      FatbinEntry entry;
      entry.offset = entry_offset_;
      entry.kind = *view.U16(0);
      uint16_t version = *view.U16(2);
      uint32_t header_size = *view.U32(4);
      entry.payload_size = *view.U64(8);
      entry.compressed_size = *view.U32(16);
      entry.version_minor = *view.U16(24);
      entry.version_major = *view.U16(26);
      entry.arch = *view.U32(28);
      entry.flags = *view.U64(40);
      entry.uncompressed_size = *view.U64(56);
      uint64_t e = entry_offset_;
      if (version != 0x0101) {
        AddProblem(e, "fatbin entry has version " + Hex(version) + " (expected 0x101); rest of container skipped");
        EndContainer(e + 8);
        return;
      }
      if (header_size < 64 || header_size > limits_.max_entry_header) {
        AddProblem(e, "fatbin entry header size " + std::to_string(header_size) + " is out of range");
        EndContainer(e + 8);
        return;
      }
      auto end = CheckedAdd(e + header_size, entry.payload_size);
      if (!end || *end > container_end_) {
        AddProblem(e, "fatbin entry (" + std::to_string(entry.payload_size) +
                          " payload bytes) overruns its container, which ends at " + std::to_string(container_end_));
        EndContainer(e + header_size);
        return;
      }
      if (entries_.size() >= limits_.max_entries) {
        AddStop(e, "more than " + std::to_string(limits_.max_entries) +
                          " fatbin entries; the rest of the file is not scanned");
        state_ = State::kDone;
        return;
      }
      if (entry.payload_size == 0) AddProblem(e, "fatbin entry has a zero-length payload");
      if (entry.payload_size % 8 != 0)
        AddProblem(e, "fatbin entry payload size " + std::to_string(entry.payload_size) + " is not a multiple of 8");
      bool lz4 = entry.flags & kFlagLz4, zstd = entry.flags & kFlagZstd;
      entry.compression = lz4 && zstd ? Compression::kLz4AndZstd
                          : lz4       ? Compression::kLz4
                          : zstd      ? Compression::kZstd
                                      : Compression::kNone;
      if (lz4 && zstd) AddProblem(e, "fatbin entry claims both LZ4 and zstd compression");
      if (entry.flags & kFlagArchSpecific) entry.variant = "a";
      else if (entry.flags & kFlagFamilySpecific) entry.variant = "f";
      current_ = std::move(entry);
      if (header_size > 64) {
        Collect(Want::kEntryTail, header_size);
        return;
      }
      [[fallthrough]];
    }
    case Want::kEntryTail: {
      uint32_t header_size = *view.U32(4);
      uint32_t id_offset = *view.U32(32), id_length = *view.U32(36);
      if (id_offset != 0 && id_length != 0) {
        if (auto name = view.Slice(id_offset, std::min<uint32_t>(id_length, 4096))) {
          std::string_view text = name->AsString();
          current_.identifier = std::string(text.substr(0, text.find('\0')));
        } else {
          AddProblem(current_.offset, "fatbin entry identifier lies outside its header");
        }
      }
      FatbinEntry& entry = current_;
      uint64_t payload_offset = entry.offset + header_size;
      payload_skip_after_ = payload_offset + entry.payload_size;
      uint64_t inspect = 0;
      EntryCategory category = CategoryOf(entry.kind);
      bool sass = category == EntryCategory::kSass;
      bool wanted = sass || category == EntryCategory::kPtx;
      if (entry.compression == Compression::kNone) {
        // A small cubin is read whole so its kernels can be counted; of a
        // bigger one only the start (its header and notes).
        uint64_t window = sass && entry.payload_size <= limits_.whole_cubin_bytes ? entry.payload_size
                                                                                  : limits_.inspect_bytes;
        inspect = wanted ? std::min(entry.payload_size, window) : 0;
      } else if (entry.compressed_size > entry.payload_size) {
        AddProblem(entry.offset, "compressed size " + std::to_string(entry.compressed_size) +
                                     " exceeds the stored payload (" + std::to_string(entry.payload_size) +
                                     " bytes): it would overlap the next entry");
      } else if (entry.uncompressed_size > limits_.max_uncompressed_size) {
        AddProblem(entry.offset, "declared uncompressed size " + std::to_string(entry.uncompressed_size) +
                                     " exceeds the limit of " + std::to_string(limits_.max_uncompressed_size));
      } else if (entry.compressed_size == 0 || entry.uncompressed_size == 0) {
        AddProblem(entry.offset, "compressed fatbin entry with zero compressed or uncompressed size");
      } else if (wanted) {
        // Only the start of the payload is decoded, so only the input that can
        // produce it is collected: LZ4 needs at most N + N/255 + 16 bytes for N
        // bytes of output; zstd at most one full block (128 KiB) plus headers.
        uint64_t need = entry.compressed_size;
        bool whole = sass && entry.uncompressed_size <= limits_.whole_cubin_bytes;
        if (!whole && entry.uncompressed_size > limits_.inspect_bytes) {
          uint64_t bound = entry.compression == Compression::kLz4 ? limits_.inspect_bytes + limits_.inspect_bytes / 255 + 64
                                                      : limits_.inspect_bytes + 160 * 1024;
          need = std::min(need, bound);
        }
        if (need <= limits_.max_compressed_collect) inspect = need;
      }
      buffer_.clear();
      if (inspect == 0) {
        FinishEntry();
        return;
      }
      Collect(Want::kPayload, inspect);
      return;
    }
    case Want::kPayload: {
      InspectPayload(current_, buffer_, current_.offset);
      FinishEntry();
      return;
    }
    case Want::kCubinHeader: {
      uint64_t offset = container_offset_;
      uint16_t machine = *view.U16(18);
      if (machine == kEmCuda) {
        FatbinEntry entry;
        entry.offset = offset;
        entry.kind = 2;
        entry.embedded = true;
        uint8_t abi = *view.U8(8);
        uint32_t e_flags = *view.U32(48);
        entry.arch = CubinSmFromFlags(e_flags, abi);
        if (CubinIsArchSpecific(e_flags, abi)) entry.variant = "a";
        entry.toolkit = ToolkitFromCubinVersion(*view.U32(20));
        if (entries_.size() < limits_.max_entries) entries_.push_back(std::move(entry));
        ResumeSearchAt(offset + 64);
      } else {
        ResumeSearchAt(offset + 8);
      }
      return;
    }
  }
}

void FatbinScanner::InspectPayload(FatbinEntry& entry, std::span<const uint8_t> bytes, uint64_t offset) {
  std::vector<uint8_t> decoded;
  std::span<const uint8_t> plain = bytes;
  const EntryCategory category = CategoryOf(entry.kind);
  if (entry.compression == Compression::kLz4 || entry.compression == Compression::kZstd) {
    bool whole = category == EntryCategory::kSass && entry.uncompressed_size <= limits_.whole_cubin_bytes;
    uint64_t window = whole ? entry.uncompressed_size : limits_.inspect_bytes;
    bool partial = entry.uncompressed_size > window;
    DecompressResult result = entry.compression == Compression::kLz4
                                  ? DecompressLz4Block(bytes, entry.uncompressed_size, window, partial)
                                  : DecompressZstd(bytes, entry.uncompressed_size, window, partial);
    if (result.error) {
      AddProblem(offset, "fatbin entry " + EntryArchName(entry) + ": " + *result.error);
      return;
    }
    decoded = std::move(result.data);
    plain = decoded;
  } else if (entry.compression != Compression::kNone) {
    return;
  }
  ByteView view(plain);
  if (category == EntryCategory::kSass) {
    if (!view.StartsWith(std::string_view("\x7f" "ELF", 4))) {
      AddProblem(offset, "fatbin entry " + EntryArchName(entry) + ": payload is not an ELF cubin");
      return;
    }
    if (auto version = view.U32(20)) entry.toolkit = ToolkitFromCubinVersion(*version);
    if (auto flags = view.U32(48)) entry.cubin_flags = *flags;
    if (auto abi = view.U8(8)) entry.cubin_abi = *abi;
    if (auto extent = CubinExtent(view); extent && *extent <= view.size()) entry.kernels = CountCubinKernels(view);
    // cuobjdump names a cubin "sm_XYa" when its e_flags carry the accelerator
    // bit even if the fatbin flag is clear (cuBLAS 12.4 has such entries); the
    // bit never removes a/f.
    if (entry.variant.empty() && CubinIsArchSpecific(entry.cubin_flags, entry.cubin_abi)) entry.variant = "a";
    std::string_view text = view.AsString();
    constexpr std::string_view kBanner = "Cuda compilation tools, release ";
    size_t at = text.find(kBanner);
    if (at != std::string_view::npos) {
      size_t end = text.find('\0', at);
      if (end != std::string_view::npos && end - at < 200) {
        entry.tkinfo = std::string(text.substr(at, end - at));
        // "release 13.0, V13.0.88": more precise than e_version, which CUDA 13 sets to 1.
        unsigned major = 0, minor = 0;
        if (std::sscanf(entry.tkinfo.c_str() + kBanner.size(), "%u.%u", &major, &minor) == 2 && major < 100 &&
            minor < 100)
          entry.toolkit = std::to_string(major) + "." + std::to_string(minor);
      }
    }
  } else if (category == EntryCategory::kPtx) {
    std::string_view text = view.AsString();
    if (entry.version_major == 0 && entry.version_minor == 0) {
      std::string version = PtxDirective(text, ".version");
      unsigned major = 0, minor = 0;
      if (std::sscanf(version.c_str(), "%u.%u", &major, &minor) == 2 && major < 100 && minor < 100) {
        entry.version_major = static_cast<uint16_t>(major);
        entry.version_minor = static_cast<uint16_t>(minor);
      }
    }
    std::string target = PtxDirective(text, ".target");
    if (entry.variant.empty() && target.size() > 3 && target.rfind("sm_", 0) == 0) {
      char last = target.back();
      if (last == 'a' || last == 'f') entry.variant = std::string(1, last);
    }
  }
}

void FatbinScanner::Finish(bool complete) {
  if (state_ == State::kCollect && want_ != Want::kCubinHeader) {
    std::string what = want_ == Want::kContainerHeader ? "fatbin container header"
                       : want_ == Want::kPayload       ? "fatbin entry payload"
                                                       : "fatbin entry header";
    AddProblem(pos_, "file ends inside a " + what + (complete ? "" : " (file was cut short)"));
  } else if (state_ == State::kSkip && want_ != Want::kContainerHeader && skip_remaining_ > 0) {
    AddProblem(pos_, "file ends inside a fatbin container (" + std::to_string(skip_remaining_) +
                         " bytes missing)");
  }
  state_ = State::kDone;
}

nlohmann::json FatbinScanner::Summary(const std::map<uint64_t, std::pair<uint64_t, std::string>>& sections) const {
  using nlohmann::json;
  json out = json::object();
  out["containers"] = containers_.size();
  out["entries"] = entries_.size();
  auto section_of = [&](uint64_t offset) -> std::string {
    if (sections.empty()) return "(no section headers)";
    auto it = sections.upper_bound(offset);
    if (it != sections.begin()) {
      --it;
      if (offset < it->first + it->second.first) return it->second.second;
    }
    return "(outside sections)";
  };
  json by_section = json::object();
  for (const Container& container : containers_) {
    std::string name = section_of(container.offset);
    by_section[name] = by_section.value(name, 0) + 1;
  }
  out["sections"] = by_section;
  // Architectures per section: cuobjdump lists only what the runtime registers
  // (.nv_fatbin / __nv_relfatbin); libraries such as cuFFT keep thousands more
  // containers in .data/.rodata and load them themselves.
  json section_archs = json::object();
  for (const FatbinEntry& entry : entries_) {
    json& row = section_archs[section_of(entry.offset)];
    if (!row.is_object()) row = json::object();
    std::string name = EntryArchName(entry);
    row[name] = row.value(name, 0) + 1;
  }
  out["section_archs"] = section_archs;
  // (category, arch, variant rank, variant, isa) -> count
  using GroupKey = std::tuple<EntryCategory, uint32_t, int, std::string, std::string>;
  std::map<GroupKey, uint64_t> groups;
  // Kernels per group, while every entry of the group has a known count.
  std::map<GroupKey, std::optional<uint64_t>> kernels;
  std::map<std::string, uint64_t> compression;
  std::set<std::string> toolkits, tkinfo;
  uint64_t debug = 0, embedded = 0;
  for (const FatbinEntry& entry : entries_) {
    GroupKey key{CategoryOf(entry.kind), entry.arch, VariantRank(entry.variant), EntryArchName(entry),
                   EntryIsa(entry)};
    bool first = groups[key]++ == 0;
    std::optional<uint64_t>& sum = kernels[key];
    if (first) sum = entry.kernels;
    else if (sum && entry.kernels) *sum += *entry.kernels;
    else sum.reset();
    compression[std::string(CompressionName(entry.compression))]++;
    if (!entry.toolkit.empty()) toolkits.insert(entry.toolkit);
    if (!entry.tkinfo.empty() && tkinfo.size() < 8) tkinfo.insert(entry.tkinfo);
    if (entry.flags & kFlagDebug) ++debug;
    if (entry.embedded) ++embedded;
  }
  std::map<EntryCategory, json> rows;
  for (EntryCategory category : {EntryCategory::kSass, EntryCategory::kPtx}) rows[category] = json::array();
  for (const auto& [key, count] : groups) {
    const auto& [category, arch, rank, name, isa] = key;
    json row = {{"arch", name}, {"count", count}};
    if (category == EntryCategory::kPtx) row["isa"] = isa;
    if (auto sum = kernels.at(key); category == EntryCategory::kSass && sum) row["kernels"] = *sum;
    json& list = rows[category];
    if (list.is_null()) list = json::array();
    list.push_back(row);
  }
  // sass and ptx always; ltoir and other when there are any.
  for (const auto& [category, list] : rows) out[std::string(CategoryName(category))] = list;
  out["compression"] = compression;
  out["debug_entries"] = debug;
  out["embedded_cubins"] = embedded;
  out["toolkits"] = toolkits;
  out["tkinfo"] = tkinfo;
  return out;
}

}  // namespace imagelint::cuda
