// Per-layer scan results: plain data keyed by layer digest, ready to cache.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "imagelint/analyzer.h"
#include "imagelint/result.h"

namespace imagelint {

struct LayerEntry {
  EntryInfo info;
  // analyzer name -> that analyzer's facts for this file (only analyzers that
  // returned non-null results appear).
  std::map<std::string, nlohmann::json> analysis;
};

// A problem found while reading a layer that did not stop the scan
// (e.g. a file an analyzer could not parse is reported by the analyzer itself;
// this is for entry-level oddities such as duplicate paths).
struct LayerProblem {
  std::string path;
  std::string message;
};

struct LayerResult {
  std::string digest;   // blob digest
  std::string diff_id;  // uncompressed digest
  uint64_t blob_bytes = 0;
  uint64_t tar_bytes = 0;
  // The digest the scan checked the bytes against (EntryReader::VerifiedDigest);
  // empty when not checked or when the result came from a cache. Not stored.
  std::string verified_digest;
  std::vector<LayerEntry> entries;  // in tar order, whiteout entries included as-is
  std::vector<LayerProblem> problems;
};

nlohmann::json LayerResultToJson(const LayerResult& layer);
Result<LayerResult> LayerResultFromJson(const nlohmann::json& json);

}  // namespace imagelint
