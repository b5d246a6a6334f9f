// Dockerfile mode (docs/dockerfile.md): predict facts from the text of
// a Dockerfile, before anything is built.
//
//   auto analysis = dockerfile::AnalyzeDockerfile("Dockerfile", options);
//   // analysis->facts: imagelint.facts/v1, every fact row with `dockerfile_line`
//   // analysis->suppressions: `# imagelint ignore=RULE reason` comments
//
// The parser follows BuildKit's Dockerfile frontend (directives, continuations,
// heredocs, ARG/ENV substitution, multi-stage, --target). The facts builder
// reads base images and packages from the knowledge tables of
// rules/knowledge/{base-images,packages}.yaml (DockerfileOptions::knowledge)
// and leaves what it cannot know absent (unknown), never guessed; each such gap
// is listed in facts.dockerfile.unknown with the line that caused it. The
// facts are the typed model of include/imagelint/facts.h, written by its writer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "imagelint/base_source.h"
#include "imagelint/bytes.h"
#include "imagelint/facts.h"
#include "imagelint/platform.h"
#include "imagelint/result.h"

namespace imagelint {
class Knowledge;  // include/imagelint/knowledge.h
}

namespace imagelint::dockerfile {

// ------------------------------------------------------------------ syntax

struct Flag {
  std::string name;   // "from", "platform", "mount", "chmod"...
  std::string value;  // as written (not expanded)
};

struct Heredoc {
  std::string delimiter;
  std::string body;      // lines between the instruction and the delimiter, '\n'-terminated
  bool strip_tabs = false;  // <<-EOF
  bool quoted = false;      // <<"EOF" / <<'EOF': no expansion inside
  int line = 0;             // first body line
};

struct Instruction {
  std::string keyword;   // upper case: "FROM", "RUN", ...
  std::string original;  // the instruction's text as written (continuations joined, no heredoc bodies)
  std::vector<Flag> flags;
  std::string arguments;  // after keyword and flags, continuation lines joined with ' ', comments dropped
  bool json_form = false;  // exec form: ["a", "b"]
  std::vector<std::string> json_arguments;
  std::vector<Heredoc> heredocs;
  int line = 0;      // 1-based, of the keyword
  int column = 1;    // of the keyword
  int end_line = 0;  // last line (including heredoc terminators)
  size_t stage = 0;  // index into Dockerfile::stages; SIZE_MAX for global ARGs before the first FROM
};

// `# imagelint ignore=IL001,IL003 reason` (next instruction) or
// `# imagelint global ignore=IL001 reason` (whole file). The pipeline turns
// them into config::Suppression with config::FromInlinePragmas.
struct InlineSuppression {
  std::vector<std::string> rules;  // ids or names, as written
  std::string reason;              // rest of the comment, may be empty
  std::string file;
  int line = 0;                    // the comment's line
  int instruction_line = 0;        // line of the instruction it applies to; 0 = whole file
  std::string instruction;         // "RUN", "FROM"... ("" for global)
};

struct Stage {
  std::string name;        // `AS name` (lower-cased, as BuildKit matches it); "" when unnamed
  std::string base;        // FROM argument as written ("nvidia/cuda:${CUDA}-base-ubuntu22.04")
  std::string platform;    // --platform as written, "" when absent
  size_t from_instruction = 0;  // index into Dockerfile::instructions
  size_t end_instruction = 0;   // one past the last instruction of the stage
  int line = 0;                 // FROM line
};

struct Dockerfile {
  std::string path;
  char escape = '\\';
  std::string syntax;  // `# syntax=` directive, "" when absent
  std::vector<Instruction> instructions;  // global ARGs first, then stages in order
  std::vector<Stage> stages;
  std::vector<InlineSuppression> suppressions;
};

// Hostile-input limits; exceeding one is a parse error naming the line.
struct ParseLimits {
  size_t max_bytes = 4u << 20;          // whole file
  size_t max_line_length = 256u << 10;  // one physical line
  size_t max_instructions = 20000;
  size_t max_stages = 512;
  size_t max_logical_lines = 4096;      // physical lines joined into one instruction
  size_t max_heredoc_bytes = 1u << 20;
  // While building: the bytes of a stage's ARG, ENV and LABEL names and
  // values together (each word's expansion is bounded at 1 MiB on its own,
  // but many variables of that size took gigabytes), and the libcuda and
  // libcudart rows one image model holds (`COPY --from` of a stage into
  // itself twice doubles them per stage).
  size_t max_variable_bytes = 1u << 20;
  size_t max_library_rows = 4096;
};

Result<Dockerfile> ParseDockerfile(std::string_view text, const std::string& path,
                                   const ParseLimits& limits = {});

// Content-based detection: true when the first instruction-looking line (after
// directives, comments and blank lines) is FROM, ARG or a parser directive
// followed by one, and the bytes are text. Used for inputs that are not named
// "Dockerfile" (services/api/build.docker, stdin...).
bool LooksLikeDockerfile(ByteView bytes);
// For command lines: `path` is a regular file (not a directory, tarball or
// JSON document) whose first 64 KiB LooksLikeDockerfile, or a text file named
// as a Dockerfile (IsDockerfileName), so its parse error names the line that
// is wrong. Never an error:
// unreadable paths are simply not Dockerfiles (the image reader reports them).
bool IsDockerfilePath(const std::string& path);

// ---------------------------------------------------------- substitution

// Expands $VAR, ${VAR}, ${VAR:-word}, ${VAR-word}, ${VAR:+word}, ${VAR+word},
// ${VAR:?msg}/${VAR?msg} with `escape` as the escape character. Variables not
// in `vars` expand to "" (as BuildKit does); `unresolved` (when given) receives
// their names, and modifiers BuildKit supports but this does not (#, %, /)
// yield nullopt. Errors: unterminated ${, missing :? variable.
struct Expansion {
  std::string value;
  std::vector<std::string> unresolved;  // variables that were not set
  bool exact = true;                    // false: some part could not be computed
};
Result<Expansion> ExpandWord(std::string_view word, const std::map<std::string, std::string>& vars,
                             char escape = '\\', int depth_limit = 16);

// ----------------------------------------------------------------- facts

// A base image read from where it really is (docs/dockerfile.md "Base
// images"): the facts the image reader made of it.
struct ResolvedBase {
  BaseSource resolved_from = BaseSource::kLocal;  // docker, registry or local: where the image was read
  std::string digest;         // manifest digest (else config digest) of the image read
  std::string platform;       // "os/arch[/variant]" of the image read
  facts::Facts facts;         // BuildFactsModel of the scanned image
};

struct BaseLookup {
  std::optional<ResolvedBase> base;  // nullopt: not read; the knowledge tables answer
  // Why it was not read ("docker: no engine at /var/run/docker.sock;
  // registry: ... timed out"), "" when no lookup was asked for (--base-from
  // knowledge, scratch) or it was already said for this reference.
  std::string note;
};

// Reads FROM (and COPY --from=<image>) references for the facts builder; the
// pipeline's resolver asks the Docker engine, the registry and --base-image
// archives within one time budget per scan. Tests pass fakes.
class BaseResolver {
 public:
  virtual ~BaseResolver() = default;
  // `ref` as expanded from the Dockerfile, `platform` the stage's
  // ("linux/amd64"). Errors stop the analysis (a --base-image archive that
  // cannot be read); an unreachable engine or registry is a note, never an error.
  virtual Result<BaseLookup> Resolve(const std::string& ref, const std::string& platform) = 0;
};

// A file of the build context that COPY/ADD puts into the image.
struct ContextFile {
  std::string host_path;   // where it is read from, inside the context directory
  std::string image_path;  // where the image has it, no leading '/' ("app/lib/libkern.so")
  std::string context_path;  // as the context names it ("lib/libkern.so")
};

// Reads the machine code COPY/ADD bring from the build context with the same
// ELF and fatbin analyzers an image scan uses (the pipeline's reader; tests
// pass fakes). Returns the binaries[] rows of those files that hold GPU code
// or need a CUDA library, each with `path` the image path; an error when a
// file cannot be read (the binaries then stay undecided, saying why).
class ContextBinaryReader {
 public:
  virtual ~ContextBinaryReader() = default;
  virtual Result<std::vector<facts::Binary>> Read(const std::vector<ContextFile>& files) = 0;
};

// Bounds on what Dockerfile mode reads from a build context: every file is
// untrusted input (a pull request may add any file to the repository).
struct ContextLimits {
  size_t max_file_bytes = 1 << 20;      // one requirements/pyproject/environment file
  // One lock file (uv.lock, poetry.lock, pixi.lock, Pipfile.lock): a large
  // project's lock runs to a few MiB (hashes and wheel URLs of every platform).
  size_t max_lock_bytes = 8u << 20;
  size_t max_total_bytes = 16u << 20;   // all context files of one analysis
  size_t max_files = 256;               // files read per analysis
  int max_include_depth = 16;           // -r inside -r ... (pip has no bound; a cycle is reported)
  size_t max_walk_entries = 20000;      // directory entries looked at for the files COPY brings
  int max_walk_depth = 32;              // directory depth of that walk
  size_t max_binary_files = 256;        // ELF files COPY brings that are read for GPU code
  uint64_t max_binary_bytes = 4ull << 30;  // their bytes, all of them together
};

struct DockerfileOptions {
  std::map<std::string, std::string> build_args;  // --build-arg NAME=VALUE
  std::string target;                             // --target; "" = last stage
  std::string platform = "linux/amd64";           // TARGETPLATFORM when FROM has no --platform
  // BUILDPLATFORM (and BUILDOS/BUILDARCH/BUILDVARIANT): the machine docker
  // build runs on (--build-platform). linux/amd64 by default, as on the usual
  // CI runner; `FROM --platform=$BUILDPLATFORM` stages read this platform's image.
  std::string build_platform = "linux/amd64";
  // The caller chose `platform` (--platform): the image's platform is fixed.
  // Otherwise docker build makes the builder's platform, and facts say
  // image.platform_source "builder" (IL013 then does not fire).
  bool platform_explicit = false;
  // `platform` is a pool's (the image built on, or for, that pool's hosts):
  // where the Dockerfile leaves the platform open, facts say
  // image.platform_source "pool" instead of "builder".
  bool platform_from_pool = false;
  // The platforms of the fleet's pools (PoolsByPlatform), in fleet order. When
  // the Dockerfile leaves its platform open (no --platform, no FROM
  // --platform=<constant> on the target's chain) and these name a platform
  // other than `platform`, the facts are built once per distinct one, each
  // with that platform's base image and knowledge-table answers
  // (DockerfileAnalysis::other_platforms; docs/dockerfile.md "Platform").
  // Empty, or only `platform`: one build, as without a fleet.
  std::vector<Platform> pool_platforms;
  // Required: the loaded knowledge (Knowledge::Load): base-images.yaml and
  // packages.yaml for what base images and packages bring, pytorch.yaml for
  // torch's GPU code, cuda-targets/cudart-sonames/loader.yaml. Null is an
  // error, never a guess. Not owned; must outlive the call.
  const ::imagelint::Knowledge* knowledge = nullptr;
  // Where FROM images are read from; null = the knowledge tables only (as
  // --base-from knowledge). Not owned; must outlive the call.
  BaseResolver* base_resolver = nullptr;
  ParseLimits limits;
  // The build context (docker build's PATH, --context): the requirement
  // files, project metadata (pyproject.toml, setup.cfg) and conda environment
  // files that COPY/ADD bring into the image are read from it, bounded and as
  // untrusted input (docs/dockerfile.md "Build context"). Empty: no context;
  // AnalyzeDockerfile then takes the Dockerfile's folder unless `no_context`.
  std::string context_dir;
  bool no_context = false;
  ContextLimits context_limits;
  // Reads the ELF files COPY/ADD bring from the context for their GPU code;
  // null = they are found but not read (the binaries stay undecided, naming
  // them). Not owned; must outlive the call.
  ContextBinaryReader* context_binaries = nullptr;
};

struct DockerfileAnalysis {
  Dockerfile dockerfile;
  size_t target_stage = 0;
  // imagelint.facts/v1 (docs/facts-schema.json; docs/dockerfile.md for the Dockerfile-specific parts):
  //   source{kind:"dockerfile", path, target, stage}, image{ref, os, architecture,
  //   env{}, labels{}, layers[{created_by, dockerfile_line}], base{...}},
  //   cuda{runtimes[], drivers[], requirements{}, loader{}, packages[]},
  //   frameworks[], dockerfile{stages[], unknown[], build_args{}}.
  // Every row carries dockerfile, dockerfile_line and layer (index into image.layers).
  nlohmann::json facts;
  std::vector<InlineSuppression> suppressions;
  // Built per pool platform (DockerfileOptions::pool_platforms): `facts` are
  // those of `platform`, the first of the pools' platforms, and
  // `other_platforms` those of each other one, in fleet order; all say
  // image.platform_source "pool" where the Dockerfile leaves it open.
  // Otherwise `platform` is nullopt and `other_platforms` empty.
  struct PlatformFacts {
    Platform platform;
    nlohmann::json facts;
  };
  std::optional<Platform> platform;
  std::vector<PlatformFacts> other_platforms;
};

Result<DockerfileAnalysis> AnalyzeDockerfile(const std::string& path, const DockerfileOptions& options = {});

// The note a Dockerfile's facts and the report carry when the base image
// `ref` could not be read (`failure`: image.base.lookup_failure).
std::string BaseLookupNote(std::string_view ref, std::string_view failure);
Result<DockerfileAnalysis> AnalyzeDockerfileText(std::string_view text, const std::string& path,
                                                 const DockerfileOptions& options = {});

// --dockerfile FILE with a built image: maps the image's layers (history
// `created_by`) back to the Dockerfile's target-stage instructions and adds
// `dockerfile`/`dockerfile_line` to image.layers[] and to every fact row that
// has a `layer` index (cuda.*[], binaries[], frameworks[]). Layers from the
// base image get the target stage's FROM line, with dockerfile_origin
// "base-image". Returns how many image layers were matched to instructions.
size_t AnnotateImageFacts(nlohmann::json& facts, const Dockerfile& dockerfile, const std::string& target = "");

}  // namespace imagelint::dockerfile
