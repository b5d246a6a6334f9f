// Knowledge bundles in the pipeline (docs/knowledge.md "Bundle"): which
// bundle a run reads, and `imagelint knowledge update` / `push`.
#pragma once

#include <string>

#include "imagelint/artifact.h"
#include "imagelint/knowledge_bundle.h"
#include "imagelint/pipeline.h"

namespace imagelint {

// Chooses the bundle a run reads and sets context.knowledge_dir to it:
// `selection` (--knowledge DIR|FILE) when given: a directory is used as it
// is, a file (a tar from `knowledge pack`) is checked like an update and
// unpacked under <cache>/knowledge-files (or the temporary directory);
// otherwise, unless `fixed` (the directory was named explicitly, e.g. by
// $IMAGELINT_KNOWLEDGE_DIR), the newest bundle `knowledge update` stored in
// the cache when it is at least as new as context.knowledge_dir's (the
// built-in tables). Errors only for `selection`.
Status SelectKnowledge(Context& context, const std::string& selection, bool fixed);

struct KnowledgeUpdate {
  KnowledgeBundle bundle;        // the bundle stored
  std::string reference;         // what was pulled
  std::string manifest_digest;   // its manifest's digest
  bool in_use = false;           // whether scans now use it (no newer bundle is stored or built in)
};
// Pulls the bundle `reference` names (an OCI artifact of
// kKnowledgeArtifactType; "" = the reference of the last update), verifies
// its digests (and `pinned_digest`, "sha256:..."), size and schema version,
// loads every table, and stores it in the cache (StoreKnowledge); a refused
// bundle leaves the stored ones as they were. Remembers the reference.
Result<KnowledgeUpdate> UpdateKnowledge(const std::string& reference, const std::string& pinned_digest,
                                        const registry::RegistryOptions& options, const Context& context);
// Pushes a bundle file (checked first) to `reference` as an OCI artifact.
Result<registry::PushedArtifact> PushKnowledge(const std::string& file, const std::string& reference,
                                               const registry::RegistryOptions& options);
// A bundle file's bytes, read as hostile input (at most kMaxKnowledgeBundleBytes).
Result<std::string> ReadKnowledgeFile(const std::string& file);

}  // namespace imagelint
