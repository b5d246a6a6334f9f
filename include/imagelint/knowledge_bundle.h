// The knowledge bundle (docs/knowledge.md "Bundle"): the tables of
// rules/knowledge/ as one versioned unit with a schema version, a revision,
// an "as of" date and a digest; packed as a tar, published as an OCI
// artifact, stored in the cache by `imagelint knowledge update`.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "imagelint/knowledge.h"
#include "imagelint/result.h"

namespace imagelint {

// The schema version of the tables this build reads; a bundle of another
// schema version is refused (its bundle.yaml says which it has).
inline constexpr int kKnowledgeSchemaVersion = 1;
// A bundle published as an OCI artifact: the manifest's artifactType (and
// its config's mediaType on registries that drop artifactType) and the media
// type of its one layer, a tar of the table files.
inline constexpr const char* kKnowledgeArtifactType = "application/vnd.imagelint.knowledge.v1";
inline constexpr const char* kKnowledgeLayerMediaType = "application/vnd.imagelint.knowledge.v1.tar";
// Bounds on a bundle: its tar, its files (knowledge/tables.h: 8 MiB each).
inline constexpr uint64_t kMaxKnowledgeBundleBytes = 32ull << 20;
// A bundle older than this (as_of to today) adds a note to the report.
inline constexpr int kKnowledgeStaleDays = 90;

// The identity of a bundle: bundle.yaml's row and the digest of its files.
struct KnowledgeBundle {
  int schema_version = 0;
  std::string revision;  // "2026.11.27" (digits and dots; a team's bundle adds a part: "2026.11.27.1")
  std::string as_of;     // "2026-11-27": the newest source consulted for its rows
  std::string digest;    // "sha256:<hex>" over the listing "<sha256 hex>  <file>\n" of its files, in byte order
  std::filesystem::path directory;
};
// bundle.yaml of `dir`, read leniently (only schema_version, revision and
// as_of), so that a bundle of another schema version is named as such
// before its tables are checked; no digest. Errors name the file.
Result<KnowledgeBundle> ReadKnowledgeBundleHeader(const std::filesystem::path& dir);
// The digest of a bundle directory: every table file of KnowledgeTables()
// (files missing from `dir` are an error), as `sha256sum *.yaml | sha256sum`.
Result<std::string> KnowledgeDigest(const std::filesystem::path& dir);
// The same, remembered in `cache_dir` (knowledge/<key>.digest, the key of the
// parsed-tables cache: changed files miss) so that `imagelint --version` does
// not hash every table file on each run. "" = no cache.
Result<std::string> KnowledgeDigest(const std::filesystem::path& dir, const std::string& cache_dir);
// Whole days from `as_of` to `today` (both YYYY-MM-DD); nullopt when either
// is not a date. Negative when as_of lies ahead.
std::optional<int> KnowledgeAgeDays(std::string_view as_of, std::string_view today);
// Whether bundle `a` is newer than `b`: as_of, then revision.
bool KnowledgeBundleNewer(const KnowledgeBundle& a, const KnowledgeBundle& b);
// Writes the bundle in `dir` (loaded and checked first) as a tar: its table
// files in byte order of their names, each mode 0644, owner 0, time 0, so
// that the same files always give the same bytes. Returns the bundle.
Result<KnowledgeBundle> PackKnowledge(const std::filesystem::path& dir, std::string* tar);
// Unpacks a bundle tar, read as hostile bytes: only regular files named like
// a table file of KnowledgeTables(), each at most 8 MiB and once, all of
// them present; anything else is an error naming `name`. `dest` must not
// exist; it is created (and left for the caller to remove on error).
Status UnpackKnowledge(std::string_view tar, const std::string& name, const std::filesystem::path& dest);
// Unpacks a bundle tar into a fresh directory under `bundles_dir`, loads
// and checks every table there, and only then renames it to
// <bundles_dir>/<digest hex>/, which is what a scan picks up: a refused
// bundle changes nothing. Returns the stored bundle.
Result<KnowledgeBundle> StoreKnowledge(std::string_view tar, const std::string& name,
                                       const std::filesystem::path& bundles_dir);
// The bundles stored under `bundles_dir` whose schema version this
// imagelint reads, newest first (KnowledgeBundleNewer); unreadable ones are
// left out. No digest (KnowledgeDigest when needed).
std::vector<KnowledgeBundle> StoredKnowledge(const std::filesystem::path& bundles_dir);
// <cache_dir>/knowledge-bundles ("" when cache_dir is "").
std::filesystem::path KnowledgeBundlesDirectory(const std::string& cache_dir);

// What a report says of the bundle its verdicts rest on (the report's
// `knowledge` object, written by the report model): its identity, its age on
// `today` (Context::today; "" = no age) and, past 90 days, a note.
struct KnowledgeStamp {
  int64_t schema_version = 0;
  std::string revision;
  std::string date;  // as_of: the newest source consulted
  std::string digest;
  std::optional<int64_t> age_days;
  std::optional<bool> stale;        // older than kKnowledgeStaleDays
  std::optional<std::string> note;  // said when stale
  bool operator==(const KnowledgeStamp&) const = default;
};
KnowledgeStamp KnowledgeStampOf(const KnowledgeBundle& bundle, std::string_view today);

// The bundle loaded tables come from: bundle.yaml's row and the digest of
// the files in knowledge.directory(). Errors name the file.
Result<KnowledgeBundle> BundleOf(const Knowledge& knowledge);

// What a finding says when an input names something newer than the tables
// know: "<what> is newer than the knowledge tables know (newest: <newest>;
// knowledge <revision> of <as_of>): run `imagelint knowledge update`".
std::string TablesBehind(const Knowledge& knowledge, std::string_view what, std::string_view newest);
// The newest of `versions` (CompareNaturalVersions); "" when empty.
std::string NewestVersion(const std::vector<std::string>& versions);

// Per table: {rows, key, newest (the key of its newest row: the highest
// version where the key is a version or a number, else the last row),
// released (that row's date, when it has one), source (its source ids) and
// consulted (the newest `consulted` date of those sources, "" when none
// records one)}: what `knowledge show -f json` and
// scripts/knowledge-report.sh print, so that a maintainer sees what to refresh.
nlohmann::json KnowledgeTableSummary(const Knowledge& knowledge);

// Facts that two tables both state, compared: one sentence per pair that
// disagrees, naming both files and lines (empty when they agree). Checked:
// PyPI's default torch CUDA (packages.yaml) has its build in pytorch.yaml;
// a pytorch/pytorch tag's CUDA is a build of its torch release; a
// torchvision/torchaudio release pairs with a torch release the tables
// list; a GPU's architecture is the one its compute capability belongs to
// (architectures.yaml); every architecture's compute capability has a
// sass.yaml row; an nvidia/cuda image's cudart is its toolkit's
// (toolkits.yaml).
std::vector<std::string> KnowledgeDisagreements(const Knowledge& knowledge);

}  // namespace imagelint
