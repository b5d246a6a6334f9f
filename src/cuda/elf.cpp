#include "cuda/elf.h"

#include <algorithm>
#include <cstring>
#include <set>
#include <string_view>

#include "common/json.h"
#include "common/text.h"
#include "imagelint/bytes.h"

namespace imagelint::cuda {
namespace {

constexpr uint32_t kPtLoad = 1, kPtDynamic = 2, kPtInterp = 3, kPtNote = 4;
constexpr int64_t kDtNull = 0, kDtNeeded = 1, kDtStrtab = 5, kDtStrsz = 10, kDtSoname = 14, kDtRpath = 15,
                  kDtRunpath = 29;
constexpr uint32_t kShtNote = 7, kShtNobits = 8, kShtSymtab = 2;

enum RegionKind { kPhdrs = 1, kDynamic, kInterp, kNote, kShdrs, kStrtab };

// Strings that only the CUDA runtime itself carries (see docs/cuda-facts.md,
// "static cudart"): the error-name table and the driver entry point lookup.
constexpr std::string_view kMarkers[] = {"cudaErrorInsufficientDriver", "cuGetProcAddress"};
constexpr size_t kMarkerMax = 27;

}  // namespace

std::string_view MachineName(uint16_t machine) {
  switch (machine) {
    case 3: return "i386";
    case 8: return "mips";
    case 20: return "ppc";
    case 21: return "ppc64";
    case 40: return "arm";
    case 62: return "x86_64";
    case 183: return "aarch64";
    case 190: return "cuda";
    case 243: return "riscv";
    default: return "unknown";
  }
}

struct ElfScanner::Region {
  int kind = 0;
  uint64_t offset = 0;
  uint64_t length = 0;
  std::vector<uint8_t> data;
  bool done = false;
};

ElfScanner::ElfScanner(std::string path, uint64_t file_size, ElfLimits limits)
    : path_(std::move(path)), file_size_(file_size), limits_(limits) {
  fatbin_ = std::make_unique<FatbinScanner>(file_size, limits_.fatbin);
  prefix_limit_ = std::min(limits_.prefix_bytes, file_size_);
  tail_offset_ = UINT64_MAX;
}

ElfScanner::~ElfScanner() = default;

void ElfScanner::AddProblem(uint64_t offset, std::string message) {
  ++problem_count_;
  if (problems_.size() < limits_.fatbin.max_problems) problems_.push_back({offset, std::move(message)});
}

std::optional<std::span<const uint8_t>> ElfScanner::Retained(uint64_t offset, uint64_t length) const {
  auto end = CheckedAdd(offset, length);
  if (!end) return std::nullopt;
  if (*end <= prefix_.size()) return std::span<const uint8_t>(prefix_.data() + offset, length);
  if (tail_offset_ != UINT64_MAX && offset >= tail_offset_ && *end <= tail_offset_ + tail_.size())
    return std::span<const uint8_t>(tail_.data() + (offset - tail_offset_), length);
  return std::nullopt;
}

std::optional<uint64_t> ElfScanner::VaddrToOffset(uint64_t vaddr) const {
  for (const Load& load : loads_) {
    if (vaddr >= load.vaddr && vaddr - load.vaddr < load.filesz) return load.offset + (vaddr - load.vaddr);
  }
  return std::nullopt;
}

void ElfScanner::AddRegion(int kind, uint64_t offset, uint64_t length, const char* what) {
  auto end = CheckedAdd(offset, length);
  if (!end || *end > file_size_) {
    AddProblem(offset, std::string(what) + " (" + std::to_string(length) + " bytes at offset " +
                           std::to_string(offset) + ") extends past the end of the file (size " +
                           std::to_string(file_size_) + ")");
    return;
  }
  if (length > limits_.max_region) {
    AddProblem(offset, std::string(what) + " is " + std::to_string(length) + " bytes, over the limit of " +
                           std::to_string(limits_.max_region) + "; not read");
    return;
  }
  auto region = std::make_unique<Region>();
  region->kind = kind;
  region->offset = offset;
  region->length = length;
  if (offset < pos_) {
    auto kept = Retained(offset, std::min(length, pos_ - offset));
    if (!kept) {
      AddProblem(offset, std::string(what) + " lies before bytes already streamed past and outside the kept "
                                             "windows; not read");
      return;
    }
    region->data.assign(kept->begin(), kept->end());
  }
  regions_.push_back(std::move(region));
  if (regions_.back()->data.size() == length) {
    regions_.back()->done = true;
    OnRegion(*regions_.back());
  }
}

void ElfScanner::ParseElfHeader() {
  header_parsed_ = true;
  ByteView view(header_.data(), header_.size());
  if (view.StartsWith(std::string_view("\x50\xED\x55\xBA", 4))) {
    is_fatbin_file_ = true;
    prefix_limit_ = 0;
    return;
  }
  if (!view.StartsWith(std::string_view("\x7f" "ELF", 4))) return;
  is_elf_ = true;
  if (header_.size() < 16) {
    AddProblem(header_.size(), "truncated ELF identification (" + std::to_string(header_.size()) + " bytes)");
    return;
  }
  uint8_t elf_class = header_[4], data = header_[5];
  if (elf_class != 1 && elf_class != 2) {
    AddProblem(4, "unknown ELF class " + std::to_string(elf_class));
    return;
  }
  if (data != 1 && data != 2) {
    AddProblem(5, "unknown ELF byte order " + std::to_string(data));
    return;
  }
  elf64_ = elf_class == 2;
  little_ = data == 1;
  osabi_ = header_[7];
  abi_version_ = header_[8];
  size_t need = elf64_ ? 64 : 52;
  if (header_.size() < need) {
    AddProblem(header_.size(), "truncated ELF header (" + std::to_string(header_.size()) + " of " +
                                   std::to_string(need) + " bytes)");
    return;
  }
  Endian e = little_ ? Endian::kLittle : Endian::kBig;
  type_ = *view.U16(16, e);
  machine_ = *view.U16(18, e);
  version_ = *view.U32(20, e);
  // ELF32 and ELF64 headers differ only in the width of e_entry, e_phoff and
  // e_shoff (4 or 8 bytes from offset 24); e_flags and the 16-bit fields
  // follow them in the same order.
  uint64_t word = elf64_ ? 8 : 4;
  auto word_at = [&](uint64_t offset) { return elf64_ ? *view.U64(offset, e) : uint64_t{*view.U32(offset, e)}; };
  phoff_ = word_at(24 + word);
  shoff_ = word_at(24 + 2 * word);
  const uint64_t flags_at = 24 + 3 * word;
  flags_ = *view.U32(flags_at, e);
  phentsize_ = *view.U16(flags_at + 6, e);
  phnum_ = *view.U16(flags_at + 8, e);
  shentsize_ = *view.U16(flags_at + 10, e);
  shnum_ = *view.U16(flags_at + 12, e);
  shstrndx_ = *view.U16(flags_at + 14, e);
  uint16_t want_ph = elf64_ ? 56 : 32, want_sh = elf64_ ? 64 : 40;
  if (phnum_ != 0) {
    if (phentsize_ != want_ph) {
      AddProblem(flags_at + 6, "program header entry size " + std::to_string(phentsize_) + " (expected " +
                                       std::to_string(want_ph) + ")");
    } else if (phnum_ == 0xFFFF) {
      AddProblem(flags_at + 8, "extended program header count (PN_XNUM) is not supported");
    } else {
      AddRegion(kPhdrs, phoff_, uint64_t{phnum_} * phentsize_, "program header table");
    }
  }
  if (shoff_ != 0 && shnum_ != 0) {
    if (shentsize_ != want_sh) {
      AddProblem(flags_at + 10, "section header entry size " + std::to_string(shentsize_) + " (expected " +
                                       std::to_string(want_sh) + ")");
    } else {
      uint64_t table = uint64_t{shnum_} * shentsize_;
      auto end = CheckedAdd(shoff_, table);
      if (!end || *end > file_size_) {
        AddProblem(shoff_, "section header table (" + std::to_string(shnum_) + " entries at offset " +
                               std::to_string(shoff_) + ") extends past the end of the file (size " +
                               std::to_string(file_size_) + ")");
      } else {
        tail_offset_ = shoff_ > limits_.tail_window ? shoff_ - limits_.tail_window : 0;
        // Bytes before the current chunk went only to header_ (it holds all of them).
        if (tail_offset_ < pos_) tail_.assign(header_.begin() + tail_offset_, header_.begin() + pos_);
        AddRegion(kShdrs, shoff_, table, "section header table");
      }
    }
  }
}

void ElfScanner::OnRegion(Region& region) {
  switch (region.kind) {
    case kPhdrs:
      ParseProgramHeaders(region.data);
      break;
    case kDynamic:
      ParseDynamic(region.data, region.offset);
      break;
    case kInterp: {
      std::string text(region.data.begin(), region.data.end());
      interp_ = text.substr(0, text.find('\0'));
      break;
    }
    case kNote:
      ParseNotes(region.data.data(), region.data.size(), region.offset);
      break;
    case kShdrs:
      ParseSectionHeaders(region.data);
      break;
    case kStrtab:
      // The string table came after PT_DYNAMIC (unusual layouts): it is now in
      // the region itself; treat it as retained prefix-like data.
      ResolveDynamicStrings();
      break;
  }
  region.data.shrink_to_fit();
}

void ElfScanner::ParseProgramHeaders(const std::vector<uint8_t>& bytes) {
  ByteView view(bytes.data(), bytes.size());
  Endian e = little_ ? Endian::kLittle : Endian::kBig;
  size_t size = elf64_ ? 56 : 32;
  std::vector<std::tuple<int, uint64_t, uint64_t, const char*>> wanted;
  for (uint64_t i = 0; i < phnum_ && i < limits_.max_program_headers; ++i) {
    uint64_t base = i * size;
    uint32_t type = *view.U32(base, e);
    uint64_t offset, vaddr, filesz;
    if (elf64_) {
      offset = *view.U64(base + 8, e);
      vaddr = *view.U64(base + 16, e);
      filesz = *view.U64(base + 32, e);
    } else {
      offset = *view.U32(base + 4, e);
      vaddr = *view.U32(base + 8, e);
      filesz = *view.U32(base + 16, e);
    }
    auto end = CheckedAdd(offset, filesz);
    if (type == kPtLoad) {
      if (!end || *end > file_size_) {
        AddProblem(phoff_ + base, "PT_LOAD segment at offset " + std::to_string(offset) + " (" +
                                      std::to_string(filesz) + " bytes) extends past the end of the file");
      }
      loads_.push_back({offset, vaddr, filesz});
    } else if (type == kPtDynamic) {
      has_dynamic_ = true;
      dynamic_offset_ = offset;
      wanted.emplace_back(kDynamic, offset, filesz, "PT_DYNAMIC segment");
    } else if (type == kPtInterp) {
      has_interp_ = true;
      wanted.emplace_back(kInterp, offset, std::min<uint64_t>(filesz, 4096), "PT_INTERP segment");
    } else if (type == kPtNote && filesz > 0) {
      wanted.emplace_back(kNote, offset, filesz, "PT_NOTE segment");
    }
  }
  if (has_dynamic_) {
    prefix_limit_ = std::min(prefix_limit_, dynamic_offset_);
  } else {
    prefix_limit_ = 0;
  }
  if (prefix_.size() > prefix_limit_) {
    // Keep what is already there: AddRegion below may still need it.
  }
  for (auto& [kind, offset, length, what] : wanted) AddRegion(kind, offset, length, what);
  if (!has_dynamic_) {
    prefix_.clear();
    prefix_.shrink_to_fit();
  }
}

void ElfScanner::ParseDynamic(const std::vector<uint8_t>& bytes, uint64_t offset) {
  ByteView view(bytes.data(), bytes.size());
  Endian e = little_ ? Endian::kLittle : Endian::kBig;
  size_t size = elf64_ ? 16 : 8;
  uint64_t count = bytes.size() / size;
  for (uint64_t i = 0; i < count && i < limits_.max_dynamic_entries; ++i) {
    int64_t tag;
    uint64_t value;
    if (elf64_) {
      tag = static_cast<int64_t>(*view.U64(i * size, e));
      value = *view.U64(i * size + 8, e);
    } else {
      tag = static_cast<int32_t>(*view.U32(i * size, e));
      value = *view.U32(i * size + 4, e);
    }
    if (tag == kDtNull) break;
    if (tag == kDtStrtab) strtab_vaddr_ = value;
    if (tag == kDtStrsz) strsz_ = value;
    if (tag == kDtNeeded || tag == kDtSoname || tag == kDtRpath || tag == kDtRunpath) dyn_.push_back({tag, value});
  }
  if (!strtab_vaddr_ || !strsz_) {
    if (!dyn_.empty()) AddProblem(offset, "dynamic section has names but no DT_STRTAB/DT_STRSZ");
    dynamic_done_ = true;
    return;
  }
  auto strtab = VaddrToOffset(*strtab_vaddr_);
  if (!strtab) {
    AddProblem(offset, "DT_STRTAB address " + std::to_string(*strtab_vaddr_) + " is in no PT_LOAD segment");
    dynamic_done_ = true;
    return;
  }
  if (Retained(*strtab, *strsz_)) {
    ResolveDynamicStrings();
  } else if (*strtab >= pos_) {
    AddRegion(kStrtab, *strtab, *strsz_, "dynamic string table");
  } else {
    AddProblem(*strtab, "dynamic string table lies outside the first " + std::to_string(limits_.prefix_bytes) +
                            " bytes kept while streaming; NEEDED/SONAME/RUNPATH not read");
    dynamic_done_ = true;
  }
}

void ElfScanner::ResolveDynamicStrings() {
  if (dynamic_done_) return;
  auto strtab = VaddrToOffset(*strtab_vaddr_);
  std::optional<std::span<const uint8_t>> bytes = Retained(*strtab, *strsz_);
  if (!bytes) {
    for (auto& region : regions_) {
      if (region->kind == kStrtab && region->done) bytes = std::span<const uint8_t>(region->data);
    }
  }
  if (!bytes) return;
  dynamic_done_ = true;
  ByteView view(bytes->data(), bytes->size());
  for (const DynRef& ref : dyn_) {
    auto text = view.CString(ref.value);
    if (!text) {
      AddProblem(*strtab + ref.value, "dynamic entry names a string outside the string table");
      continue;
    }
    std::string value(*text);
    if (ref.tag == kDtNeeded) needed_.push_back(value);
    else if (ref.tag == kDtSoname) soname_ = value;
    else if (ref.tag == kDtRpath) rpath_ = SplitNonEmpty(value, ':');
    else if (ref.tag == kDtRunpath) runpath_ = SplitNonEmpty(value, ':');
  }
  // The prefix has served its purpose.
  prefix_limit_ = 0;
  prefix_.clear();
  prefix_.shrink_to_fit();
}

void ElfScanner::ParseNotes(const uint8_t* data, uint64_t size, uint64_t offset) {
  ByteView view(data, size);
  Endian e = little_ ? Endian::kLittle : Endian::kBig;
  uint64_t at = 0;
  size_t count = 0;
  while (at + 12 <= size && count < limits_.max_notes) {
    uint32_t namesz = *view.U32(at, e), descsz = *view.U32(at + 4, e), type = *view.U32(at + 8, e);
    uint64_t name_at = at + 12;
    uint64_t desc_at = name_at + ((uint64_t{namesz} + 3) & ~uint64_t{3});
    uint64_t next = desc_at + ((uint64_t{descsz} + 3) & ~uint64_t{3});
    if (!view.Contains(name_at, namesz) || !view.Contains(desc_at, descsz)) {
      AddProblem(offset + at, "ELF note overruns its section/segment");
      return;
    }
    ++count;
    std::string owner(reinterpret_cast<const char*>(data + name_at), namesz);
    owner = owner.substr(0, owner.find('\0'));
    std::string_view desc(reinterpret_cast<const char*>(data + desc_at), descsz);
    nlohmann::json note = {{"owner", owner}, {"type", type}, {"size", descsz}, {"offset", offset + at}};
    bool duplicate = false;
    for (const auto& existing : notes_) duplicate |= existing["offset"] == offset + at;
    if (!duplicate) {
      if (owner == "GNU" && type == 3) {
        note["build_id"] = ToHex({data + desc_at, descsz});
      } else if (owner == "NVIDIA Corporation" && !desc.empty() && desc.front() == '{') {
        std::string text(desc.substr(0, desc.find('\0')));
        // Depth-capped: the note is copied into the facts and dumped, both recursive.
        auto parsed_note = ParseJson(text, "NVIDIA note");
        if (!parsed_note.ok()) {
          std::string why = parsed_note.error().message;
          if (why.rfind("not valid JSON: ", 0) == 0) why.erase(0, 16);
          AddProblem(offset + desc_at, "NVIDIA note holds invalid JSON: " + why);
          note["text"] = text.substr(0, 512);
        } else {
          const nlohmann::json& parsed = *parsed_note;
          note["json"] = parsed;
          if (parsed.is_object() && (parsed.contains("CUDA Version") || parsed.contains("Driver")))
            fwd_compat_ = parsed;
        }
      }
      notes_.push_back(note);
    }
    if (next <= at) break;
    at = next;
  }
}

void ElfScanner::ParseSectionHeaders(const std::vector<uint8_t>& bytes) {
  ByteView view(bytes.data(), bytes.size());
  Endian e = little_ ? Endian::kLittle : Endian::kBig;
  size_t size = elf64_ ? 64 : 40;
  struct Section {
    uint32_t name, type;
    uint64_t offset, size;
  };
  std::vector<Section> sections;
  for (uint64_t i = 0; i < shnum_ && i < limits_.max_section_headers; ++i) {
    uint64_t base = i * size;
    Section s;
    s.name = *view.U32(base, e);
    s.type = *view.U32(base + 4, e);
    if (elf64_) {
      s.offset = *view.U64(base + 24, e);
      s.size = *view.U64(base + 32, e);
    } else {
      s.offset = *view.U32(base + 16, e);
      s.size = *view.U32(base + 20, e);
    }
    sections.push_back(s);
  }
  std::optional<std::span<const uint8_t>> names;
  if (shstrndx_ < sections.size()) names = Retained(sections[shstrndx_].offset, sections[shstrndx_].size);
  for (size_t i = 0; i < sections.size(); ++i) {
    const Section& s = sections[i];
    std::string name;
    if (names) {
      ByteView name_view(names->data(), names->size());
      if (auto text = name_view.CString(s.name, 256)) name = std::string(*text);
    }
    if (s.type == kShtSymtab) has_symtab_ = true;
    auto end = CheckedAdd(s.offset, s.size);
    if (s.type != kShtNobits && s.type != 0 && (!end || *end > file_size_)) {
      AddProblem(shoff_ + i * size, "section " + std::to_string(i) + (name.empty() ? "" : " (" + name + ")") +
                                        " at offset " + std::to_string(s.offset) + " (" + std::to_string(s.size) +
                                        " bytes) extends past the end of the file");
      continue;
    }
    if (s.type == kShtNobits || s.size == 0) continue;
    if (!name.empty()) sections_[s.offset] = {s.size, name};
    static const std::set<std::string> kInteresting = {".nv_fatbin", "__nv_relfatbin", ".nvFatBinSegment",
                                                        "__nv_module_id", ".note.cuda.fwd_compatibility",
                                                        ".symtab", ".llvm.offloading"};
    if (kInteresting.count(name)) section_names_.push_back(name);
    if (s.type == kShtNote || name == ".note.cuda.fwd_compatibility") {
      if (auto bytes_of = Retained(s.offset, s.size)) ParseNotes(bytes_of->data(), bytes_of->size(), s.offset);
    }
  }
}

void ElfScanner::Consume(std::span<const uint8_t> chunk) {
  if (chunk.empty()) return;
  uint64_t chunk_offset = pos_;
  size_t n = chunk.size();
  if (!header_parsed_) {
    size_t take = std::min<size_t>(64 - header_.size(), n);
    header_.insert(header_.end(), chunk.begin(), chunk.begin() + take);
    if (header_.size() >= 64 || header_.size() >= file_size_) ParseElfHeader();
  }
  if (chunk_offset < prefix_limit_) {
    size_t take = static_cast<size_t>(std::min<uint64_t>(prefix_limit_ - chunk_offset, n));
    prefix_.insert(prefix_.end(), chunk.begin(), chunk.begin() + take);
  }
  if (tail_offset_ != UINT64_MAX && chunk_offset + n > tail_offset_ && chunk_offset < shoff_) {
    uint64_t from = std::max(chunk_offset, tail_offset_);
    uint64_t to = std::min(chunk_offset + n, shoff_);
    if (tail_.size() == from - tail_offset_)
      tail_.insert(tail_.end(), chunk.begin() + (from - chunk_offset), chunk.begin() + (to - chunk_offset));
  }
  // Regions may add regions (program headers -> PT_DYNAMIC); index loop sees them.
  for (size_t i = 0; i < regions_.size(); ++i) {
    Region& region = *regions_[i];
    if (region.done) continue;
    uint64_t next = region.offset + region.data.size();
    if (next < chunk_offset || next >= chunk_offset + n) continue;
    size_t from = static_cast<size_t>(next - chunk_offset);
    size_t take = static_cast<size_t>(std::min<uint64_t>(region.length - region.data.size(), n - from));
    region.data.insert(region.data.end(), chunk.begin() + from, chunk.begin() + from + take);
    if (region.data.size() == region.length) {
      region.done = true;
      pos_ = chunk_offset + from + take;  // lets AddRegion tell past from future
      OnRegion(region);
    }
  }
  pos_ = chunk_offset + n;
  fatbin_->Consume(chunk);
  if (is_elf_ && machine_ != 190 && markers_found_.size() < std::size(kMarkers)) {
    // Search the seam with the previous chunk, then the chunk itself.
    std::string_view seam_text;
    std::vector<uint8_t> seam = marker_carry_;
    seam.insert(seam.end(), chunk.begin(), chunk.begin() + std::min(n, kMarkerMax - 1));
    std::string_view text(reinterpret_cast<const char*>(chunk.data()), n);
    std::string_view seam_view(reinterpret_cast<const char*>(seam.data()), seam.size());
    for (std::string_view marker : kMarkers) {
      if (std::find(markers_found_.begin(), markers_found_.end(), marker) != markers_found_.end()) continue;
      if (seam_view.find(marker) != std::string_view::npos ||
          memmem(text.data(), text.size(), marker.data(), marker.size()) != nullptr)
        markers_found_.emplace_back(marker);
    }
    size_t keep = std::min(n, kMarkerMax - 1);
    if (n >= kMarkerMax - 1) {
      marker_carry_.assign(chunk.end() - keep, chunk.end());
    } else {
      marker_carry_.insert(marker_carry_.end(), chunk.begin(), chunk.end());
      if (marker_carry_.size() > kMarkerMax - 1)
        marker_carry_.erase(marker_carry_.begin(), marker_carry_.end() - (kMarkerMax - 1));
    }
  }
}

nlohmann::json ElfScanner::Finish(bool complete) {
  using nlohmann::json;
  if (!header_parsed_) ParseElfHeader();
  fatbin_->Finish(complete);
  if (!complete) AddProblem(pos_, "file was cut short after " + std::to_string(pos_) + " bytes");
  for (const auto& region : regions_) {
    if (!region->done && complete) {
      AddProblem(region->offset, "file ended before region at offset " + std::to_string(region->offset) +
                                     " was complete");
    }
  }
  json out = json::object();
  if (is_fatbin_file_) {
    out["format"] = "fatbin";
  } else if (is_elf_) {
    out["format"] = "elf";
    out["class"] = elf64_ ? 64 : 32;
    out["endian"] = little_ ? "little" : "big";
    out["machine"] = std::string(MachineName(machine_));
    out["type"] = type_ == 1 ? "rel" : type_ == 2 ? "exec" : type_ == 3 ? "dyn" : type_ == 4 ? "core" : "other";
    if (machine_ == 190) {
      json cubin = {{"arch", "sm_" + std::to_string(CubinSmFromFlags(flags_, abi_version_))},
                    {"abi_version", abi_version_},
                    {"e_flags", flags_}};
      std::string toolkit = ToolkitFromCubinVersion(version_);
      if (!toolkit.empty()) cubin["toolkit"] = toolkit;
      out["cubin"] = cubin;
    }
    if (!interp_.empty()) out["interp"] = interp_;
    out["dynamic"] = has_dynamic_;
    if (!soname_.empty()) out["soname"] = soname_;
    out["needed"] = needed_;
    if (!rpath_.empty()) out["rpath"] = rpath_;
    if (!runpath_.empty()) out["runpath"] = runpath_;
    json notes = json::array();
    for (const auto& note : notes_) {
      if (note.contains("build_id")) out["build_id"] = note["build_id"];
      else notes.push_back(note);
    }
    if (!notes.empty()) out["notes"] = notes;
    if (!fwd_compat_.is_null()) out["fwd_compat"] = fwd_compat_;
    if (!section_names_.empty()) out["sections"] = section_names_;
    if (has_symtab_) out["symtab"] = true;
    if (!markers_found_.empty()) out["cudart_markers"] = markers_found_;
  } else {
    out["format"] = "unknown";
  }
  const auto& entries = fatbin_->Entries();
  if (!fatbin_->Containers().empty() || !entries.empty()) {
    json summary = fatbin_->Summary(sections_);
    std::set<std::string> sass_set;
    std::map<std::pair<uint32_t, std::string>, std::string> sass_sorted;
    std::map<std::tuple<uint32_t, std::string, std::string>, json> ptx_sorted;
    for (const FatbinEntry& entry : entries) {
      EntryCategory category = CategoryOf(entry.kind);
      if (category == EntryCategory::kSass) sass_sorted[{entry.arch, entry.variant}] = EntryArchName(entry);
      if (category == EntryCategory::kPtx)
        ptx_sorted[{entry.arch, entry.variant, EntryIsa(entry)}] = {{"arch", EntryArchName(entry)},
                                                                    {"isa", EntryIsa(entry)}};
    }
    json sass = json::array(), ptx = json::array();
    for (const auto& [key, name] : sass_sorted) sass.push_back(name);
    for (const auto& [key, row] : ptx_sorted) ptx.push_back(row);
    out["sass"] = sass;
    out["ptx"] = ptx;
    out["fatbin"] = summary;
  } else if (machine_ == 190 && is_elf_) {
    out["sass"] = json::array({out["cubin"]["arch"]});
    out["ptx"] = json::array();
  }
  std::vector<Problem> all = problems_;
  for (const Problem& problem : fatbin_->Problems()) all.push_back(problem);
  std::sort(all.begin(), all.end(), [](const Problem& a, const Problem& b) { return a.offset < b.offset; });
  if (!all.empty()) {
    json problems = json::array();
    for (const Problem& problem : all) problems.push_back({{"offset", problem.offset}, {"message", problem.message}});
    out["problems"] = problems;
    uint64_t total = problem_count_ + fatbin_->ProblemCount();
    if (total > all.size()) out["problem_count"] = total;
  }
  return out;
}

}  // namespace imagelint::cuda
