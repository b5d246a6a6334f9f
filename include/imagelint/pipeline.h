// The library's front door: the calls an embedding program (a CI plugin, an
// admission webhook, a server) makes, and the only ones the command line makes
// besides rendering (docs/library.md).
//
//   imagelint::Context context = imagelint::Context::ForDataDirectory("/usr/share/imagelint");
//   imagelint::ScanRequest request;
//   request.inputs = {"app.tar"};                 // tarballs, OCI layouts, registry refs, Dockerfiles, facts .json
//   request.fleet_file = "fleet.yaml";
//   auto result = imagelint::Scan(request, context);
//   if (!result.ok()) { /* result.error().ToString(): the image, fleet or rule file that failed */ }
//   result->report;     // imagelint.report/v1, suppressions and --min-severity applied
//   result->exit_code;  // 0, or 1 when a finding is at or above request.fail_on
//
// The library reads no environment variable and knows no install location:
// everything that depends on the host (data directories, cache directory,
// today's date, stored registry credentials, where progress goes) comes in
// through Context.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "imagelint/config.h"
#include "imagelint/fleet.h"
#include "imagelint/fleet_import.h"
#include "imagelint/layer_store.h"
#include "imagelint/registry.h"
#include "imagelint/report_document.h"
#include "imagelint/result.h"
#include "imagelint/rules.h"

namespace imagelint {

// Layers read so far, for a progress display.
struct ReadProgress {
  size_t layers_done = 0;
  size_t layers_total = 0;
  uint64_t bytes_done = 0;  // compressed bytes of the finished layers
};

// What the host decides; the library never reads it from the process.
struct Context {
  std::filesystem::path rules_dir;      // the built-in rules (*.yaml)
  std::filesystem::path knowledge_dir;  // the knowledge tables (rules/knowledge/*.yaml)
  std::filesystem::path docs_dir;       // rule pages: <docs_dir>/rules/<ID>.md
  std::string cache_dir;                // the layer cache (created when missing); "" = no cache
  std::string today;                    // "YYYY-MM-DD" for ignore expiry; "" = the current UTC day
  registry::CredentialStores credential_stores;  // stored registry credentials; empty = none
  std::string docker_host;  // $DOCKER_HOST: the Docker engine's "unix://PATH"; "" = /var/run/docker.sock
  // The default of ImageReadOptions::base.from when that is empty
  // ($IMAGELINT_BASE_FROM for the command line): "auto" unless set.
  std::string base_from = "auto";
  std::function<void(const ReadProgress&)> progress;  // null = no progress
  std::function<void(const std::string&)> warn;       // problems that do not stop the work; null = dropped
  // false: the large tables a scan loads (knowledge, rules) are left to the
  // process's exit instead of being freed one allocation at a time (a
  // command-line run about to exit; clang's -disable-free does the same).
  bool free_at_end = true;

  // rules_dir = <data_dir>/rules, knowledge_dir = <data_dir>/rules/knowledge,
  // docs_dir = <data_dir>/docs: a checkout, or an installed share/imagelint.
  static Context ForDataDirectory(const std::filesystem::path& data_dir);
};

// How images are read (scan, facts, ls).
struct ImageReadOptions {
  std::string platform;    // "os/arch[/variant]" of a multi-platform image; "" = linux/amd64
  std::string image_name;  // NAME or @N: the image of an archive or layout holding several
  std::optional<uint64_t> max_layer_bytes;  // uncompressed size limit of one layer; nullopt = 64 GiB
  int jobs = 0;                // layers read in parallel; 0 = up to 4
  bool verify_digests = true;  // false: skip blob digest and diff ID checks (and the cache)
  bool verify_diff_ids = false;  // also hash the tar of compressed layers (--verify-diff-ids)
  bool use_cache = true;       // through Context::cache_dir
  // A shared store behind the local cache (--cache-backend; see FailSoft in
  // imagelint/layer_store.h); null = none. Shared by every input of a scan.
  std::shared_ptr<LayerStore> shared_cache;
  // TLS, insecure registries, --connect-to and explicit credentials; stored
  // credentials come from Context::credential_stores.
  registry::RegistryOptions registry;
  // Where a reference that is not a path is read from, in order: "docker"
  // (the local engine, Context::docker_host) and "registry" (--image-src).
  // Empty = both, the engine first (as trivy).
  std::vector<std::string> image_sources;
  // Dockerfile mode: where each FROM (and COPY --from=<image>) is read from
  // (docs/dockerfile.md "Base images").
  struct BaseResolution {
    // "auto" (engine, registry, then the knowledge tables), "registry",
    // "docker", "knowledge"; "" = Context::base_from.
    std::string from;
    std::map<std::string, std::string> images;  // --base-image REF=PATH: REF read from that archive or layout
    double timeout_seconds = 10;                // for all lookups of one scan together (--base-timeout)
  } base;
};

struct ScanRequest {
  // Each: a docker-save tarball, an OCI layout directory or archive, a root
  // file system directory, a registry reference, a Dockerfile (by content) or
  // an imagelint.facts/v1 .json document.
  std::vector<std::string> inputs;
  std::string fleet_file;  // fleet YAML, kubectl nodes JSON, nvidia-smi XML, nvidia-container-cli CSV; "" = no pools
  std::vector<std::string> rule_files;         // after the built-in rules
  std::vector<rules::RuleOverride> overrides;  // severities, disabled rules (unknown rules are errors)
  std::vector<config::Suppression> ignores;    // with their reasons; never silent
  bool inline_ignores = true;                  // `# imagelint ignore=RULE reason` in Dockerfiles
  std::optional<rules::Severity> fail_on = rules::Severity::kError;  // the gate; nullopt = never fail
  bool fail_on_undecided = false;  // the strict gate: also fail when a rule could not decide (--fail-on-undecided)
  rules::Severity min_severity = rules::Severity::kNote;              // what the report shows
  ImageReadOptions read;
  // Dockerfile inputs: --build-arg values (already resolved) and the --target stage.
  std::map<std::string, std::string> build_args;
  std::string target;
  // --build-platform: the platform docker build runs on ($BUILDPLATFORM);
  // "" = DockerfileOptions' default, linux/amd64.
  std::string build_platform;
  // --context DIR: the build context of every Dockerfile input; empty = each
  // Dockerfile's own folder (standard input: none).
  std::string context_dir;
  // Built images: the Dockerfile they came from, so findings point at its lines.
  std::string dockerfile;
  // Dockerfiles given as text instead of a file, by the input name that
  // stands for them in `inputs` and in findings (the command line reads
  // standard input for "-").
  std::map<std::string, std::string> dockerfile_texts;
  // Many images (--images-from, --all-tags): read `image_jobs` at a time
  // (0 = up to 4; no progress display then), and an image that cannot be
  // read is an error entry of the report (status "error") instead of the end
  // of the scan; the exit code is then 2, after the report is written.
  bool keep_going = false;
  int image_jobs = 0;
  // --baseline: an earlier JSON report of the same images and fleet; each
  // finding is marked new or unchanged, and fixed ones are listed
  // (analysis::ApplyBaseline). With fail_on_new the gate counts new findings only.
  std::string baseline_file;
  bool fail_on_new = false;
};

struct ScanResult {
  analysis::Report report;  // imagelint.report/v1, finalised (analysis::Finalize); analysis::WriteReport writes it
  int exit_code = 0;      // 1 when a finding (shown or hidden) is at or above fail_on, or undecided
                          // with fail_on_undecided; 2 when (keep_going) an image could not be read; else 0
  Fleet fleet;            // as loaded (placement advice needs it)
};

// Reads every input, runs the rules over images × pools, applies
// suppressions and --min-severity and decides the gate. Errors (exit 2 on the
// command line) name the input, fleet, rule or config file that failed; an
// input that cannot be read is always an error, never a pass.
Result<ScanResult> Scan(const ScanRequest& request, const Context& context);

// A merged configuration (.imagelint.yaml + flags, config::ResolveConfig) as
// a scan: fleet, rules, overrides, ignores, fail-on, min-severity, platform,
// dockerfile, inline-ignores. Inputs and read options are left to the caller.
Result<ScanRequest> ScanRequestFromConfig(const config::Config& config);

// `scan REGISTRY/REPO --all-tags [--tags REGEX]`: "REGISTRY/REPO:TAG" for
// every tag the registry lists (paginated), sorted, those matching
// `tag_pattern` (RE2 syntax, searched anywhere in the tag: anchor it with ^ $;
// "" = all). Errors: a repository given with a tag or digest, a bad pattern,
// a registry that cannot list the tags.
Result<std::vector<std::string>> ListRepositoryImages(const std::string& repository, const std::string& tag_pattern,
                                                      const ImageReadOptions& options, const Context& context);

// `imagelint facts`: the facts (imagelint.facts/v1) of one image input or
// Dockerfile (detected by content, as scan does), and their text rendering.
Result<nlohmann::json> ReadFacts(const std::string& input, const ImageReadOptions& options, const Context& context);
std::string FactsText(const nlohmann::json& facts);

// `imagelint ls`: the merged file tree of one image, one line per visible
// path matching `glob` ('*' also crosses '/'; "" = everything).
Result<std::string> ListImageTree(const std::string& input, const std::string& glob, const ImageReadOptions& options,
                                  const Context& context);

// `imagelint rules`: the built-in rules plus `rule_files`, with `overrides`.
Result<std::vector<rules::RuleInfo>> ListRules(const std::vector<std::string>& rule_files,
                                               const std::vector<rules::RuleOverride>& overrides,
                                               const Context& context);

// `imagelint explain`: a rule's documentation page, by id (any case) or name:
// <docs_dir>/rules/<ID>.md, else the rule's `docs` path (absolute, or
// relative to its rule file's directory or that directory's parent).
struct RuleDocs {
  rules::RuleInfo rule;
  std::string path;
  std::string text;
};
Result<RuleDocs> ExplainRule(const std::string& id_or_name, const std::vector<std::string>& rule_files,
                             const Context& context);

// `imagelint fleet import`: a fleet file from node labels, nvidia-smi XML or
// nvidia-container-cli CSV, given as text (`source` names it in messages) or
// as a file (read with the importer's size limit). `fleet_name` names the
// written fleet in `load_problem`.
struct FleetImport {
  fleet_import::ImportResult imported;
  std::string yaml;                   // the fleet file
  std::optional<Error> load_problem;  // set when the fleet loader would reject `yaml` as written
};
Result<FleetImport> ImportFleet(fleet_import::InputKind kind, const std::string& text, const std::string& source,
                                const std::string& fleet_name, const Context& context);
Result<FleetImport> ImportFleetFile(fleet_import::InputKind kind, const std::string& path,
                                    const std::string& fleet_name, const Context& context);

// Values of duration flags: "30d", "12h", "90m", "45s" or plain seconds.
// Sizes are ParseByteSize and HumanBytes (imagelint/read_image.h).
Result<int64_t> ParseDuration(const std::string& text);
// HumanBytes under the name the report renderers still call.
std::string FormatSize(uint64_t bytes);

}  // namespace imagelint
