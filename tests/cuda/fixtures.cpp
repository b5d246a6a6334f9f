#include "cuda/fixtures.h"

#include <stdexcept>

#include "imagelint/facts.h"
#include "imagelint/knowledge.h"
#include "support/test_support.h"
#include "support/checkout_knowledge.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>
#include <span>

#include <lz4.h>
#include <zstd.h>

namespace imagelint::cuda::testing {

void Put16(Bytes& b, size_t o, uint16_t v, bool little) {
  if (b.size() < o + 2) b.resize(o + 2);
  for (int i = 0; i < 2; ++i) b[o + (little ? i : 1 - i)] = static_cast<uint8_t>(v >> (8 * i));
}
void Put32(Bytes& b, size_t o, uint32_t v, bool little) {
  if (b.size() < o + 4) b.resize(o + 4);
  for (int i = 0; i < 4; ++i) b[o + (little ? i : 3 - i)] = static_cast<uint8_t>(v >> (8 * i));
}
void Put64(Bytes& b, size_t o, uint64_t v, bool little) {
  if (b.size() < o + 8) b.resize(o + 8);
  for (int i = 0; i < 8; ++i) b[o + (little ? i : 7 - i)] = static_cast<uint8_t>(v >> (8 * i));
}
void Append(Bytes& b, const Bytes& more) { b.insert(b.end(), more.begin(), more.end()); }
void Pad(Bytes& b, size_t alignment) {
  while (b.size() % alignment) b.push_back(0);
}

Bytes MakeCubin(uint32_t sm, uint32_t e_version, uint8_t abi, const std::string& body, bool accelerators) {
  Bytes b(64, 0);
  b[0] = 0x7F, b[1] = 'E', b[2] = 'L', b[3] = 'F', b[4] = 2, b[5] = 1, b[6] = 1;
  b[7] = abi == 8 ? 0x41 : 0x33;
  b[8] = abi;
  Put16(b, 16, 2);
  Put16(b, 18, 190);
  Put32(b, 20, e_version);
  uint32_t flags = abi == 7 ? (sm | (sm << 16) | 0x500 | (accelerators ? 0x800 : 0))
                            : (0x06000000 | (sm << 8) | (accelerators ? 0x8 : 0) | 0x2);
  Put32(b, 48, flags);
  Put16(b, 52, 64);
  b.insert(b.end(), body.begin(), body.end());
  b.push_back(0);
  Pad(b, 8);
  return b;
}

Bytes PtxText(const std::string& target, const std::string& version) {
  std::string text = "\n\n\n.version " + version + "\n.target " + target + "\n.address_size 64\n\n";
  Bytes b(text.begin(), text.end());
  b.push_back(0);
  return b;
}

Bytes MakeEntry(const EntrySpec& spec) {
  Bytes stored = spec.payload;
  uint64_t compressed = 0, uncompressed = 0;
  uint64_t flags = spec.flags;
  if (spec.compression == "lz4") {
    Bytes out(LZ4_compressBound(static_cast<int>(spec.payload.size())));
    int n = LZ4_compress_default(reinterpret_cast<const char*>(spec.payload.data()), reinterpret_cast<char*>(out.data()),
                                 static_cast<int>(spec.payload.size()), static_cast<int>(out.size()));
    out.resize(n);
    stored = out;
    flags |= 0x2000;
  } else if (spec.compression == "zstd") {
    Bytes out(ZSTD_compressBound(spec.payload.size()));
    size_t n = ZSTD_compress(out.data(), out.size(), spec.payload.data(), spec.payload.size(), 3);
    out.resize(n);
    stored = out;
    flags |= 0x8000;
  }
  if (spec.compression != "none") {
    compressed = stored.size();
    uncompressed = spec.payload.size();
    if (spec.corrupt_payload) {
      // Garbage that no decoder accepts: LZ4 offsets of zero / bad zstd blocks.
      for (size_t i = spec.compression == "zstd" ? 6 : 0; i < stored.size(); ++i) stored[i] = 0xFF;
    }
  }
  Bytes header(64, 0);
  if (!spec.identifier.empty()) {
    header.insert(header.end(), spec.identifier.begin(), spec.identifier.end());
    header.push_back(0);
    Pad(header, 8);
    Put32(header, 32, 64);
    Put32(header, 36, static_cast<uint32_t>(spec.identifier.size()));
  }
  uint64_t padded = (stored.size() + 7) & ~uint64_t{7};
  Put16(header, 0, spec.kind);
  Put16(header, 2, spec.version_override.value_or(0x0101));
  Put32(header, 4, spec.header_size_override.value_or(static_cast<uint32_t>(header.size())));
  Put64(header, 8, spec.padded_override.value_or(padded));
  Put32(header, 16, static_cast<uint32_t>(spec.compressed_override.value_or(compressed)));
  Put16(header, 24, spec.minor);
  Put16(header, 26, spec.major);
  Put32(header, 28, spec.arch);
  Put64(header, 40, flags);
  Put64(header, 56, spec.uncompressed_override.value_or(uncompressed));
  Bytes out = header;
  Append(out, stored);
  out.resize(header.size() + padded, 0);
  return out;
}

Bytes MakeContainer(const std::vector<Bytes>& entries, std::optional<uint64_t> fat_size_override) {
  Bytes body;
  for (const Bytes& entry : entries) Append(body, entry);
  Bytes out(16, 0);
  Put32(out, 0, 0xBA55ED50);
  Put16(out, 4, 1);
  Put16(out, 6, 16);
  Put64(out, 8, fat_size_override.value_or(body.size()));
  Append(out, body);
  return out;
}

namespace {
Bytes NoteBytes(const NoteSpec& note, bool little) {
  Bytes out(12, 0);
  Put32(out, 0, static_cast<uint32_t>(note.owner.size() + 1), little);
  Put32(out, 4, static_cast<uint32_t>(note.desc.size()), little);
  Put32(out, 8, note.type, little);
  out.insert(out.end(), note.owner.begin(), note.owner.end());
  out.push_back(0);
  Pad(out, 4);
  Append(out, note.desc);
  Pad(out, 4);
  return out;
}
}  // namespace

Bytes MakeElf(const ElfSpec& spec) {
  const bool e64 = spec.elf64, le = spec.little;
  const size_t ehsize = e64 ? 64 : 52, phent = e64 ? 56 : 32, shent = e64 ? 64 : 40;
  Bytes alloc_notes;
  for (const NoteSpec& note : spec.notes)
    if (note.allocated) Append(alloc_notes, NoteBytes(note, le));
  const size_t nph = 2 + (alloc_notes.empty() ? 0 : 1) + (spec.interp.empty() ? 0 : 1);
  Bytes b(ehsize + nph * phent, 0);

  struct Sec {
    std::string name;
    uint32_t type;
    uint64_t offset, size;
  };
  std::vector<Sec> secs;
  // .dynstr
  Bytes dynstr(1, 0);
  auto add_str = [&](const std::string& s) {
    uint64_t at = dynstr.size();
    dynstr.insert(dynstr.end(), s.begin(), s.end());
    dynstr.push_back(0);
    return at;
  };
  std::vector<std::pair<int64_t, uint64_t>> dyn;
  for (const auto& n : spec.needed) dyn.push_back({1, add_str(n)});
  if (!spec.soname.empty()) dyn.push_back({14, add_str(spec.soname)});
  if (!spec.runpath.empty()) dyn.push_back({29, add_str(spec.runpath)});
  if (!spec.rpath.empty()) dyn.push_back({15, add_str(spec.rpath)});
  uint64_t interp_off = b.size();
  if (!spec.interp.empty()) {
    b.insert(b.end(), spec.interp.begin(), spec.interp.end());
    b.push_back(0);
  }
  Pad(b, 8);
  uint64_t dynstr_off = b.size();
  Append(b, dynstr);
  secs.push_back({".dynstr", 3, dynstr_off, dynstr.size()});
  uint64_t notes_off = 0;
  if (!alloc_notes.empty()) {
    Pad(b, 4);
    notes_off = b.size();
    Append(b, alloc_notes);
    secs.push_back({".note.test", 7, notes_off, alloc_notes.size()});
  }
  if (!spec.rodata.empty()) {
    Pad(b, 8);
    secs.push_back({".rodata", 1, b.size(), spec.rodata.size()});
    Append(b, spec.rodata);
  }
  if (!spec.fatbin.empty()) {
    Pad(b, 8);
    secs.push_back({spec.fatbin_section, 1, b.size(), spec.fatbin.size()});
    Append(b, spec.fatbin);
  }
  if (!spec.extra_text.empty()) {
    secs.push_back({".comment", 1, b.size(), spec.extra_text.size()});
    b.insert(b.end(), spec.extra_text.begin(), spec.extra_text.end());
  }
  Pad(b, 8);
  uint64_t dynamic_off = b.size();
  dyn.push_back({5, dynstr_off});
  dyn.push_back({10, dynstr.size()});
  dyn.push_back({0, 0});
  for (auto& [tag, val] : dyn) {
    size_t at = b.size();
    if (e64) {
      Put64(b, at, static_cast<uint64_t>(tag), le);
      Put64(b, at + 8, val, le);
    } else {
      Put32(b, at, static_cast<uint32_t>(tag), le);
      Put32(b, at + 4, static_cast<uint32_t>(val), le);
    }
  }
  uint64_t dynamic_size = b.size() - dynamic_off;
  secs.push_back({".dynamic", 6, dynamic_off, dynamic_size});
  uint64_t load_end = b.size();
  for (const NoteSpec& note : spec.notes) {
    if (note.allocated) continue;
    Pad(b, 4);
    Bytes bytes = NoteBytes(note, le);
    secs.push_back({note.section, 7, b.size(), bytes.size()});
    Append(b, bytes);
  }
  // .shstrtab
  Bytes shstr(1, 0);
  std::vector<uint32_t> name_offsets;
  secs.push_back({".shstrtab", 3, 0, 0});
  for (auto& s : secs) {
    name_offsets.push_back(static_cast<uint32_t>(shstr.size()));
    shstr.insert(shstr.end(), s.name.begin(), s.name.end());
    shstr.push_back(0);
  }
  secs.back().offset = b.size();
  secs.back().size = shstr.size();
  Append(b, shstr);
  Pad(b, 8);
  uint64_t shoff = b.size();
  size_t shnum = secs.size() + 1;
  b.resize(shoff + shnum * shent, 0);
  for (size_t i = 0; i < secs.size(); ++i) {
    size_t at = shoff + (i + 1) * shent;
    Put32(b, at, name_offsets[i], le);
    Put32(b, at + 4, secs[i].type, le);
    if (e64) {
      Put64(b, at + 16, secs[i].type == 3 && i + 1 == secs.size() ? 0 : secs[i].offset, le);
      Put64(b, at + 24, secs[i].offset, le);
      Put64(b, at + 32, secs[i].size, le);
    } else {
      Put32(b, at + 12, static_cast<uint32_t>(secs[i].offset), le);
      Put32(b, at + 16, static_cast<uint32_t>(secs[i].offset), le);
      Put32(b, at + 20, static_cast<uint32_t>(secs[i].size), le);
    }
  }
  // ELF header
  b[0] = 0x7F, b[1] = 'E', b[2] = 'L', b[3] = 'F';
  b[4] = e64 ? 2 : 1;
  b[5] = le ? 1 : 2;
  b[6] = 1;
  Put16(b, 16, spec.type, le);
  Put16(b, 18, spec.machine, le);
  Put32(b, 20, 1, le);
  if (e64) {
    Put64(b, 32, ehsize, le);
    Put64(b, 40, shoff, le);
    Put16(b, 52, static_cast<uint16_t>(ehsize), le);
    Put16(b, 54, static_cast<uint16_t>(phent), le);
    Put16(b, 56, static_cast<uint16_t>(nph), le);
    Put16(b, 58, static_cast<uint16_t>(shent), le);
    Put16(b, 60, static_cast<uint16_t>(shnum), le);
    Put16(b, 62, static_cast<uint16_t>(shnum - 1), le);
  } else {
    Put32(b, 28, static_cast<uint32_t>(ehsize), le);
    Put32(b, 32, static_cast<uint32_t>(shoff), le);
    Put16(b, 40, static_cast<uint16_t>(ehsize), le);
    Put16(b, 42, static_cast<uint16_t>(phent), le);
    Put16(b, 44, static_cast<uint16_t>(nph), le);
    Put16(b, 46, static_cast<uint16_t>(shent), le);
    Put16(b, 48, static_cast<uint16_t>(shnum), le);
    Put16(b, 50, static_cast<uint16_t>(shnum - 1), le);
  }
  // Program headers: LOAD (identity mapping), DYNAMIC, NOTE.
  auto put_ph = [&](size_t index, uint32_t type, uint64_t offset, uint64_t size) {
    size_t at = ehsize + index * phent;
    Put32(b, at, type, le);
    if (e64) {
      Put64(b, at + 8, offset, le);
      Put64(b, at + 16, offset, le);
      Put64(b, at + 24, offset, le);
      Put64(b, at + 32, size, le);
      Put64(b, at + 40, size, le);
    } else {
      Put32(b, at + 4, static_cast<uint32_t>(offset), le);
      Put32(b, at + 8, static_cast<uint32_t>(offset), le);
      Put32(b, at + 12, static_cast<uint32_t>(offset), le);
      Put32(b, at + 16, static_cast<uint32_t>(size), le);
      Put32(b, at + 20, static_cast<uint32_t>(size), le);
    }
  };
  put_ph(0, 1, 0, load_end);
  put_ph(1, 2, dynamic_off, dynamic_size);
  if (!alloc_notes.empty()) put_ph(2, 4, notes_off, alloc_notes.size());
  if (!spec.interp.empty()) put_ph(nph - 1, 3, interp_off, spec.interp.size() + 1);
  return b;
}

nlohmann::json ScanBytes(const Bytes& bytes, size_t chunk, ElfLimits limits, bool complete, const std::string& path) {
  ElfScanner scanner(path, bytes.size(), limits);
  if (chunk == 0) chunk = std::max<size_t>(bytes.size(), 1);
  for (size_t at = 0; at < bytes.size(); at += chunk)
    scanner.Consume(std::span<const uint8_t>(bytes.data() + at, std::min(chunk, bytes.size() - at)));
  return scanner.Finish(complete);
}

}  // namespace imagelint::cuda::testing

namespace imagelint::cuda::testing {

void AddMemoryFile(HostTree& tree, const std::string& path, const std::vector<uint8_t>& bytes, size_t layer) {
  CudaFile file;
  file.path = path;
  file.size = bytes.size();
  file.layer = layer;
  EntryInfo info;
  info.path = path;
  info.size = bytes.size();
  std::span<const uint8_t> head(bytes.data(), std::min<size_t>(bytes.size(), kHeadBytes));
  for (auto& analyzer : MakeCudaAnalyzers(imagelint::testing::CheckoutKnowledge().CapturedPackageNames())) {
    auto sink = analyzer->Open(info, head);
    if (!sink) continue;
    for (size_t at = 0; at < bytes.size(); at += 1 << 20) {
      if (!sink->Consume(std::span<const uint8_t>(bytes.data() + at, std::min<size_t>(1 << 20, bytes.size() - at))))
        break;
    }
    nlohmann::json result = sink->Finish(true);
    if (result.is_null()) continue;
    tree.results.push_back(result);
    if (analyzer->Name() == kElfAnalyzerName) file.elf = &tree.results.back();
    else file.text = &tree.results.back();
  }
  tree.input.files.push_back(file);
}

void AddSymlink(HostTree& tree, const std::string& path, const std::string& target, size_t layer) {
  CudaFile file;
  file.path = path;
  file.type = EntryType::kSymlink;
  file.link_target = target;
  file.layer = layer;
  tree.input.files.push_back(file);
}

void AddHostDirectory(HostTree& tree, const std::filesystem::path& root, const std::string& prefix, size_t layer,
                      const std::vector<std::string>& only) {
  namespace fs = std::filesystem;
  for (const auto& item : fs::recursive_directory_iterator(root)) {
    std::string relative = prefix + item.path().lexically_relative(root).string();
    if (!only.empty()) {
      bool keep = false;
      for (const auto& needle : only) keep |= relative.find(needle) != std::string::npos;
      if (!keep) continue;
    }
    if (item.is_symlink()) {
      AddSymlink(tree, relative, fs::read_symlink(item.path()).string(), layer);
    } else if (item.is_regular_file()) {
      std::ifstream in(item.path(), std::ios::binary);
      std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      AddMemoryFile(tree, relative, bytes, layer);
    }
  }
}

nlohmann::json CudaFactsJson(const HostTree& tree) {
  static const imagelint::Knowledge knowledge = [] {
    auto loaded = imagelint::Knowledge::LoadDefault(imagelint::testing::SourceDir());
    if (!loaded.ok()) throw std::runtime_error(loaded.error().ToString());
    return std::move(*loaded);
  }();
  imagelint::facts::Facts facts;
  AddCudaFacts(tree.input, knowledge, facts);
  return imagelint::facts::WriteFacts(facts);
}

}  // namespace imagelint::cuda::testing
