// Helpers shared by the reporters (private to src/report/).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "imagelint/report.h"

namespace imagelint::report::internal {

using nlohmann::json;

// A finding's severity (analysis::FindingSeverity: unknown text counts as an
// error) and its rank (note 0, warning 1, error 2).
Severity SeverityOf(const json& finding);
int Rank(const json& finding);
// j[key] as a string when it is one, else `fallback`.
std::string Str(const json& j, const char* key, const std::string& fallback = "");
// j[key] as an array (an empty one when missing or not an array).
const json& Arr(const json& j, const char* key);

// "804 cudaErrorCompatNotSupportedOnDevice" / "requirement-unsatisfied".
std::string PredictedText(const json& predicted);
// "usr/lib/libcuda.so.1 (layer 3: RUN apt-get install ...) [Dockerfile:12]".
std::string EvidenceText(const json& item);
// created_by without the "/bin/sh -c #(nop)" noise.
std::string CleanCreatedBy(std::string created_by);
// The first Dockerfile line among a finding's evidence, 0 when none.
int DockerfileLine(const json& finding);
// The Dockerfile that a finding's lines refer to: image.dockerfile, else options.dockerfile.
std::string DockerfileFor(const json& image, const RenderOptions& options);
// Comma-joined pool names of a finding.
std::string PoolList(const json& finding);
// Findings of an image, most severe first (stable within a severity).
std::vector<const json*> SortedFindings(const json& image);
// Greedy word wrap to `width`; the first line starts with `first`, the others with `rest`.
std::string Wrap(const std::string& text, const std::string& first, const std::string& rest, size_t width);
// One line, at most `width` characters ("…" as "~" when cut).
std::string Fit(const std::string& text, size_t width);
std::string Pad(const std::string& text, size_t width);
// Docs URL of a rule: base + docs path (or docs/rules/<ID>.md).
std::string HelpUri(const std::string& base, const std::string& rule_id, const std::string& docs);

}  // namespace imagelint::report::internal
