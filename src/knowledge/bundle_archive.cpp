// A knowledge bundle as a file: pack (a deterministic tar of the table
// files), unpack (hostile bytes, bounded) and the store of updated bundles
// in the cache directory (docs/knowledge.md "Bundle").
#include "common/archive_library.h"

#include <algorithm>
#include <fstream>
#include <memory>
#include <random>
#include <set>

#include "imagelint/knowledge_bundle.h"
#include "knowledge/tables.h"

namespace imagelint {

namespace fs = std::filesystem;

namespace {

constexpr size_t kMaxBundleEntries = 256;

std::set<std::string> TableFiles() {
  std::set<std::string> files;
  for (const auto& info : KnowledgeTables()) files.insert(info.file);
  return files;
}

struct ArchiveCloser {
  void operator()(archive* a) const { Archive().archive_write_free(a); }
};
struct ReaderCloser {
  void operator()(archive* a) const { Archive().archive_read_free(a); }
};

la_ssize_t AppendTo(archive*, void* data, const void* buffer, size_t length) {
  static_cast<std::string*>(data)->append(static_cast<const char*>(buffer), length);
  return static_cast<la_ssize_t>(length);
}

std::string ArchiveDigestHex(const std::string& digest) { return digest.substr(digest.find(':') + 1); }

}  // namespace

fs::path KnowledgeBundlesDirectory(const std::string& cache_dir) {
  return cache_dir.empty() ? fs::path() : fs::path(cache_dir) / "knowledge-bundles";
}

Result<KnowledgeBundle> PackKnowledge(const fs::path& dir, std::string* tar) {
  auto knowledge = Knowledge::Load(dir);
  if (!knowledge.ok()) return knowledge.error();
  if (auto library = LoadArchive(); !library.ok()) return library.error();
  std::unique_ptr<archive, ArchiveCloser> writer(Archive().archive_write_new());
  tar->clear();
  if (Archive().archive_write_set_format_ustar(writer.get()) != ARCHIVE_OK ||
      Archive().archive_write_open(writer.get(), tar, nullptr, AppendTo, nullptr) != ARCHIVE_OK)
    return MakeError(dir.string(), std::string("cannot write a tar: ") + Archive().archive_error_string(writer.get()));
  for (const std::string& file : TableFiles()) {  // byte order of the names
    auto text = knowledge_tables::ReadTableFile(dir / file);
    if (!text.ok()) return text.error();
    std::unique_ptr<archive_entry, void (*)(archive_entry*)> entry(Archive().archive_entry_new(), Archive().archive_entry_free);
    Archive().archive_entry_set_pathname(entry.get(), file.c_str());
    Archive().archive_entry_set_filetype(entry.get(), AE_IFREG);
    Archive().archive_entry_set_perm(entry.get(), 0644);
    Archive().archive_entry_set_size(entry.get(), static_cast<la_int64_t>(text->size()));
    Archive().archive_entry_set_mtime(entry.get(), 0, 0);
    Archive().archive_entry_set_uid(entry.get(), 0);
    Archive().archive_entry_set_gid(entry.get(), 0);
    if (Archive().archive_write_header(writer.get(), entry.get()) != ARCHIVE_OK ||
        Archive().archive_write_data(writer.get(), text->data(), text->size()) != static_cast<la_ssize_t>(text->size()))
      return MakeError((dir / file).string(), std::string("cannot add to the tar: ") + Archive().archive_error_string(writer.get()));
  }
  if (Archive().archive_write_close(writer.get()) != ARCHIVE_OK)
    return MakeError(dir.string(), std::string("cannot finish the tar: ") + Archive().archive_error_string(writer.get()));
  if (tar->size() > kMaxKnowledgeBundleBytes)
    return MakeError(dir.string(), "the bundle would be larger than " +
                                       std::to_string(kMaxKnowledgeBundleBytes >> 20) + " MiB");
  return BundleOf(*knowledge);
}

Status UnpackKnowledge(std::string_view tar, const std::string& name, const fs::path& dest) {
  if (tar.size() > kMaxKnowledgeBundleBytes)
    return MakeError(name, "knowledge bundle of " + std::to_string(tar.size()) + " bytes is larger than the " +
                               std::to_string(kMaxKnowledgeBundleBytes >> 20) + " MiB a bundle may have");
  if (tar.empty()) return MakeError(name, "empty file: not a knowledge bundle");
  if (auto library = LoadArchive(); !library.ok()) return library.error();
  std::unique_ptr<archive, ReaderCloser> reader(Archive().archive_read_new());
  Archive().archive_read_support_format_tar(reader.get());  // no compression, no other format
  if (Archive().archive_read_open_memory(reader.get(), tar.data(), tar.size()) != ARCHIVE_OK)
    return MakeError(name, std::string("corrupt, or not a knowledge bundle (a tar of table files): ") +
                               Archive().archive_error_string(reader.get()));
  const std::set<std::string> expected = TableFiles();
  std::set<std::string> seen;
  std::error_code ec;
  if (!fs::create_directory(dest, ec) || ec)
    return MakeError(dest.string(), "cannot create the directory: " + ec.message());
  for (size_t count = 0;; ++count) {
    archive_entry* entry = nullptr;
    int status = Archive().archive_read_next_header(reader.get(), &entry);
    if (status == ARCHIVE_EOF) break;
    if (status != ARCHIVE_OK)
      return MakeError(name, std::string(count == 0 ? "corrupt, or not a knowledge bundle (a tar of table files): "
                                                    : "corrupt or truncated knowledge bundle: ") +
                                 Archive().archive_error_string(reader.get()));
    if (count >= kMaxBundleEntries) return MakeError(name, "knowledge bundle with more than 256 entries");
    std::string path = Archive().archive_entry_pathname(entry) ? Archive().archive_entry_pathname(entry) : "";
    if (path.starts_with("./")) path = path.substr(2);
    if (Archive().archive_entry_filetype(entry) != AE_IFREG || !expected.count(path))
      return MakeError(name, "knowledge bundle holds '" + path.substr(0, 200) +
                                 "', which is not a table file (a bundle holds only the *.yaml files of its tables)");
    if (!seen.insert(path).second) return MakeError(name, "knowledge bundle holds " + path + " twice");
    if (!Archive().archive_entry_size_is_set(entry) || Archive().archive_entry_size(entry) < 0 ||
        static_cast<uint64_t>(Archive().archive_entry_size(entry)) > knowledge_tables::kMaxFileBytes)
      return MakeError(name, path + " in the knowledge bundle is larger than 8 MiB");
    std::string data(static_cast<size_t>(Archive().archive_entry_size(entry)), '\0');
    size_t done = 0;
    while (done < data.size()) {
      la_ssize_t n = Archive().archive_read_data(reader.get(), data.data() + done, data.size() - done);
      if (n < 0)
        return MakeError(name, "corrupt or truncated knowledge bundle at " + path + ": " +
                                   Archive().archive_error_string(reader.get()));
      if (n == 0) return MakeError(name, "truncated knowledge bundle: " + path + " ends early");
      done += static_cast<size_t>(n);
    }
    std::ofstream out(dest / path, std::ios::binary | std::ios::trunc);
    out.write(data.data(), static_cast<std::streamsize>(data.size()));
    if (!out.flush()) return MakeError((dest / path).string(), "cannot write");
  }
  for (const std::string& file : expected)
    if (!seen.count(file)) return MakeError(name, "knowledge bundle lacks " + file + " (truncated, or not a bundle)");
  return OkStatus();
}

Result<KnowledgeBundle> StoreKnowledge(std::string_view tar, const std::string& name, const fs::path& bundles_dir) {
  std::error_code ec;
  fs::create_directories(bundles_dir, ec);
  if (ec) return MakeError(bundles_dir.string(), "cannot create the directory: " + ec.message());
  std::random_device random;
  const fs::path staging = bundles_dir / (".incoming-" + std::to_string(random()) + std::to_string(random()));
  struct Cleanup {
    fs::path dir;
    ~Cleanup() {
      std::error_code ignored;
      if (!dir.empty()) fs::remove_all(dir, ignored);
    }
  } cleanup{staging};
  IMAGELINT_TRY(UnpackKnowledge(tar, name, staging));
  auto header = ReadKnowledgeBundleHeader(staging);  // the schema version first, by name
  if (!header.ok()) return MakeError(name, header.error().message);
  auto knowledge = Knowledge::Load(staging);
  if (!knowledge.ok()) {
    Error error = knowledge.error();
    // Name the bundle, not the staging directory, in the message.
    std::string where = error.ToString();
    const std::string prefix = staging.string() + "/";
    for (size_t at; (at = where.find(prefix)) != std::string::npos;) where.replace(at, prefix.size(), "");
    return MakeError(name, "refused: " + where);
  }
  auto identity = BundleOf(*knowledge);
  if (!identity.ok()) return MakeError(name, "refused: " + identity.error().message);
  KnowledgeBundle bundle = *identity;
  const fs::path final_dir = bundles_dir / ArchiveDigestHex(bundle.digest);
  if (fs::is_directory(final_dir, ec) && [&] { auto d = KnowledgeDigest(final_dir); return d.ok() && *d == bundle.digest; }()) {
    bundle.directory = final_dir;
    return bundle;  // already stored
  }
  fs::remove_all(final_dir, ec);
  fs::rename(staging, final_dir, ec);
  if (ec) return MakeError(final_dir.string(), "cannot store the bundle: " + ec.message());
  cleanup.dir.clear();
  bundle.directory = final_dir;
  return bundle;
}

std::vector<KnowledgeBundle> StoredKnowledge(const fs::path& bundles_dir) {
  std::vector<KnowledgeBundle> out;
  std::error_code ec;
  if (bundles_dir.empty() || !fs::is_directory(bundles_dir, ec)) return out;
  size_t seen = 0;
  for (fs::directory_iterator it(bundles_dir, ec), end; !ec && it != end && seen < 1000; it.increment(ec), ++seen) {
    const std::string leaf = it->path().filename().string();
    if (leaf.size() != 64 || !it->is_directory(ec)) continue;  // <digest hex>; not the staging dirs
    auto header = ReadKnowledgeBundleHeader(it->path());
    if (header.ok()) out.push_back(std::move(*header));
  }
  std::sort(out.begin(), out.end(), [](const KnowledgeBundle& a, const KnowledgeBundle& b) {
    if (KnowledgeBundleNewer(a, b)) return true;
    if (KnowledgeBundleNewer(b, a)) return false;
    return a.directory < b.directory;
  });
  return out;
}

}  // namespace imagelint
