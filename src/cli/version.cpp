#include "cli/version.h"

#include <algorithm>
#include <fstream>
#include <vector>

#include "build_info.h"
#include "imagelint/digest.h"

namespace imagelint::cli {

namespace fs = std::filesystem;

namespace {

constexpr uint64_t kMaxTableBytes = 64u << 20;
constexpr size_t kMaxTables = 1000;

// "sha256:<hex>" -> "<hex>".
std::string Hex(const std::string& digest) { return digest.substr(digest.find(':') + 1); }

}  // namespace

Result<std::string> KnowledgeRevision(const fs::path& dir) {
  std::error_code ec;
  std::vector<std::string> names;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (name.size() > 5 && name.ends_with(".yaml") && it->is_regular_file(ec)) names.push_back(name);
    if (names.size() > kMaxTables) return MakeError(dir.string(), "more than 1000 knowledge tables");
  }
  if (ec) return MakeError(dir.string(), "cannot list the knowledge tables: " + ec.message());
  std::sort(names.begin(), names.end());  // byte order, as LC_ALL=C sorts
  std::string listing;
  for (const std::string& name : names) {
    std::ifstream in(dir / name, std::ios::binary);
    Sha256 hasher;
    std::vector<char> buffer(1 << 16);
    uint64_t total = 0;
    while (in.read(buffer.data(), static_cast<std::streamsize>(buffer.size())) || in.gcount() > 0) {
      total += static_cast<uint64_t>(in.gcount());
      if (total > kMaxTableBytes) return MakeError((dir / name).string(), "knowledge table larger than 64 MiB");
      hasher.Update({reinterpret_cast<const uint8_t*>(buffer.data()), static_cast<size_t>(in.gcount())});
    }
    if (!in.eof()) return MakeError((dir / name).string(), "cannot read");
    listing += Hex(hasher.FinishDigest()) + "  " + name + "\n";
  }
  std::vector<uint8_t> bytes(listing.begin(), listing.end());
  return Hex(Sha256Digest(bytes)).substr(0, 12);
}

std::string VersionText(const Environment& environment) {
  Context context = environment.MakeContext();
  std::string text = std::string("imagelint ") + IMAGELINT_VERSION + "\n";
  text += std::string("commit    ") + IMAGELINT_GIT_COMMIT + "\n";
  auto revision = KnowledgeRevision(context.knowledge_dir);
  if (!revision.ok()) {
    text += "knowledge unreadable: " + revision.error().ToString() + "\n";
  } else if (*revision == IMAGELINT_KNOWLEDGE_REVISION) {
    text += "knowledge " + *revision + " (" + context.knowledge_dir.string() + ")\n";
  } else {
    text += "knowledge " + *revision + " (" + context.knowledge_dir.string() + "; built with " +
            IMAGELINT_KNOWLEDGE_REVISION + ")\n";
  }
  text += "rules     " + context.rules_dir.string() + "\n";
  text += "docs      " + context.docs_dir.string();
  return text;
}

}  // namespace imagelint::cli
