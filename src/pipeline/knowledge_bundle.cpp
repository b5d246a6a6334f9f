// Knowledge bundles in the pipeline: which bundle a run reads, and the
// update / push of bundles published as OCI artifacts (docs/knowledge.md).
#include <filesystem>
#include <fstream>

#include <unistd.h>

#include "common/file_text.h"
#include "imagelint/digest.h"
#include "imagelint/knowledge_update.h"

namespace imagelint {

namespace fs = std::filesystem;

namespace {

constexpr size_t kMaxStoredReference = 1024;

fs::path LastReferenceFile(const std::string& cache_dir) {
  return KnowledgeBundlesDirectory(cache_dir) / "reference";
}

std::string Hex(const std::string& digest) { return digest.substr(digest.find(':') + 1); }

}  // namespace

Result<std::string> ReadKnowledgeFile(const std::string& file) {
  return ReadBoundedFile(file, kMaxKnowledgeBundleBytes, "knowledge bundle file", FileKinds::kRegularOnly);
}

Status SelectKnowledge(Context& context, const std::string& selection, bool fixed) {
  std::error_code ec;
  if (!selection.empty()) {
    if (fs::is_directory(selection, ec)) {
      auto header = ReadKnowledgeBundleHeader(selection);
      if (!header.ok()) return MakeError("--knowledge", header.error().ToString());
      context.knowledge_dir = selection;
      return OkStatus();
    }
    auto bytes = ReadKnowledgeFile(selection);
    if (!bytes.ok()) return bytes.error();
    // Unpacked once per content: the directory is named by the files' digest.
    fs::path where = context.cache_dir.empty() ? fs::temp_directory_path(ec) / "imagelint-knowledge-files"
                                               : fs::path(context.cache_dir) / "knowledge-files";
    auto stored = StoreKnowledge(*bytes, selection, where);
    if (!stored.ok()) return stored.error();
    context.knowledge_dir = stored->directory;
    return OkStatus();
  }
  if (fixed || context.cache_dir.empty()) return OkStatus();
  auto stored = StoredKnowledge(KnowledgeBundlesDirectory(context.cache_dir));
  if (stored.empty()) return OkStatus();
  auto builtin = ReadKnowledgeBundleHeader(context.knowledge_dir);
  // A bundle of the binary's own tables that is at least as new wins over
  // an older update (after an upgrade); an update of the same date wins.
  if (!builtin.ok() || !KnowledgeBundleNewer(*builtin, stored.front())) context.knowledge_dir = stored.front().directory;
  return OkStatus();
}

Result<KnowledgeUpdate> UpdateKnowledge(const std::string& reference, const std::string& pinned_digest,
                                        const registry::RegistryOptions& options, const Context& context) {
  if (context.cache_dir.empty())
    return MakeError("knowledge update", "no cache directory to keep the bundle in (set XDG_CACHE_HOME or --cache-dir)");
  std::string ref_text = reference;
  if (ref_text.empty()) {
    std::ifstream in(LastReferenceFile(context.cache_dir));
    std::getline(in, ref_text);
    if (ref_text.size() > kMaxStoredReference) ref_text.clear();
    if (ref_text.empty())
      return MakeError("knowledge update",
                       "no bundle reference: name one (imagelint knowledge update REGISTRY/REPO:TAG); later updates "
                       "reuse it");
  }
  auto ref = registry::ParseReference(ref_text);
  if (!ref.ok()) return ref.error();
  auto pulled = registry::PullArtifact(*ref, kKnowledgeArtifactType, kKnowledgeLayerMediaType,
                                       kMaxKnowledgeBundleBytes, pinned_digest, options);
  if (!pulled.ok()) return pulled.error();
  auto stored = StoreKnowledge(pulled->blob, ref->ToString(), KnowledgeBundlesDirectory(context.cache_dir));
  if (!stored.ok()) return stored.error();
  {
    std::ofstream out(LastReferenceFile(context.cache_dir), std::ios::trunc);
    out << ref_text << "\n";
  }
  KnowledgeUpdate update;
  update.bundle = *stored;
  update.reference = ref->ToString();
  update.manifest_digest = pulled->manifest_digest;
  Context after = context;
  (void)SelectKnowledge(after, "", false);
  std::error_code same;
  update.in_use = fs::equivalent(after.knowledge_dir, stored->directory, same);
  return update;
}

Result<registry::PushedArtifact> PushKnowledge(const std::string& file, const std::string& reference,
                                               const registry::RegistryOptions& options) {
  auto bytes = ReadKnowledgeFile(file);
  if (!bytes.ok()) return bytes.error();
  auto ref = registry::ParseReference(reference);
  if (!ref.ok()) return ref.error();
  // Only a bundle this imagelint accepts is published: unpack and load it.
  std::error_code ec;
  const fs::path scratch = fs::temp_directory_path(ec) / ("imagelint-push-" + Hex(Sha256Digest(
      {reinterpret_cast<const uint8_t*>(bytes->data()), bytes->size()})).substr(0, 16) + "-" + std::to_string(::getpid()));
  auto stored = StoreKnowledge(*bytes, file, scratch);
  fs::remove_all(scratch, ec);
  if (!stored.ok()) return stored.error();
  registry::ArtifactDescription what;
  what.artifact_type = kKnowledgeArtifactType;
  what.layer_media_type = kKnowledgeLayerMediaType;
  what.title = "imagelint-knowledge-" + stored->revision + ".tar";
  what.annotations = {{"org.opencontainers.image.created", stored->as_of + "T00:00:00Z"},
                      {"org.opencontainers.image.version", stored->revision},
                      {"imagelint.knowledge.schema_version", std::to_string(stored->schema_version)},
                      {"imagelint.knowledge.digest", stored->digest}};
  return registry::PushArtifact(*ref, what, *bytes, options);
}

}  // namespace imagelint
