// Shared flags: declarations and their values as library options.
#include "cli/options.h"

#include <algorithm>
#include <iostream>
#include <mutex>
#include <optional>

#include "cli/budget.h"
#include "common/file_text.h"
#include "common/text.h"
#include "imagelint/knowledge_update.h"
#include "imagelint/read_image.h"
#include "imagelint/report.h"

namespace imagelint::cli {

namespace {

constexpr size_t kMaxPasswordBytes = 64 * 1024;

bool Has(CLI::App& app, const std::string& name) { return app.get_option_no_throw(name) != nullptr; }

// The shared flags are declared only where the command has not declared one
// of the names itself (its own -f,--format, say); null when it has. The
// names are written once, so the guard cannot drift from the declaration.
template <typename T>
CLI::Option* AddSharedOption(CLI::App& app, const std::string& names, T& value, const std::string& help,
                             const std::string& type_name) {
  for (const std::string& name : SplitOn(names, ','))
    if (Has(app, name)) return nullptr;
  return app.add_option(names, value, help)->type_name(type_name);
}
void AddSharedFlag(CLI::App& app, const std::string& name, bool& value, const std::string& help) {
  if (!Has(app, name)) app.add_flag(name, value, help);
}

// stdin is read once, however many images a command reads.
Result<std::string> PasswordFromStdin() {
  static std::once_flag once;
  static std::optional<Result<std::string>> password;
  std::call_once(once, [] {
    auto read = ReadBoundedStream(std::cin, kMaxPasswordBytes, "--password-stdin", "standard input");
    if (!read.ok()) {
      password.emplace(read.error());
      return;
    }
    std::string text = std::move(*read);
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
    if (text.empty()) {
      password.emplace(MakeError("--password-stdin", "nothing on standard input"));
    } else {
      password.emplace(std::move(text));
    }
  });
  return *password;
}

}  // namespace

void AddConfigFlags(CLI::App& app, config::CommandLineOptions& options) {
  AddSharedOption(app, "--config", options.config_file,
                  "config file (default: ./.imagelint.yaml, then $XDG_CONFIG_HOME/imagelint/config.yaml), "
                  "e.g. --config ci/imagelint.yaml",
                  "FILE");
  AddSharedFlag(app, "--no-config", options.no_config, "ignore every config file; use only flags and defaults");
  AddSharedOption(app, "--rules", options.rule_files,
                  "extra rule file, after the built-in rules (repeatable), e.g. --rules team-rules.yaml", "FILE");
  if (auto* severity = AddSharedOption(app, "--severity", options.severity,
                                       "override rule severities (repeatable, comma list): RULE=error|warning|note|off, "
                                       "e.g. --severity IL010=error,IL013=off",
                                       "RULE=LEVEL"))
    severity->delimiter(',');
  if (auto* disable = AddSharedOption(app, "--disable", options.disable,
                                      "do not run these rules (repeatable, comma list), e.g. --disable IL013,IL014", "RULE"))
    disable->delimiter(',');
}

Result<std::string> ImageArgument(const std::string& image, const std::string& rootfs) {
  if (!rootfs.empty() && !image.empty()) return MakeError("--rootfs", "give IMAGE or --rootfs DIR, not both");
  if (!rootfs.empty()) return std::string(kRootfsPrefix) + rootfs;
  if (image.empty()) return MakeError("IMAGE", "give an image to read (or --rootfs DIR)");
  return image;
}

void AddImageOperand(CLI::App& app, std::string& image, std::string& rootfs, const std::string& also) {
  app.add_option("IMAGE", image,
                 "docker-save tarball (or its extracted directory), OCI layout directory or archive, registry "
                 "reference, " + also + "or rootfs:DIR")
      ->type_name("IMAGE");
  app.add_option("--rootfs", rootfs, "read DIR as a root file system (instead of IMAGE)")->type_name("DIR");
}

std::string FormatList() {
  std::string list;
  for (const std::string& name : report::FormatNames()) {
    if (!list.empty()) list += ", ";
    list += name;
    if (name == "text") list += " (default)";
  }
  return list;
}

void ExpandRuleLists(config::CommandLineOptions& options) {
  std::vector<std::string> expanded;
  for (const std::string& entry : options.ignore) {
    size_t equals = entry.find('=');
    std::string rules = entry.substr(0, equals);
    std::string rest = equals == std::string::npos ? "" : entry.substr(equals);
    // The date belongs to every rule: "IL001,IL002:2026-12-31=why".
    std::string date;
    if (size_t colon = rules.rfind(':'); colon != std::string::npos && rules.find(',', colon) == std::string::npos) {
      date = rules.substr(colon);
      rules.resize(colon);
    }
    for (const std::string& rule : SplitOn(rules, ',')) {
      if (!rule.empty() || rules.empty()) expanded.push_back(rule + date + rest);
    }
  }
  options.ignore = std::move(expanded);
}

void AddReportFlags(CLI::App& app, config::CommandLineOptions& options) {
  if (auto* fail_on = AddSharedOption(app, "--fail-on", options.fail_on,
                                      "exit 1 when a finding is at or above this severity: error (default), warning, "
                                      "note, none; independent of --min-severity, e.g. --fail-on warning",
                                      "LEVEL"))
    fail_on->check(CLI::IsMember({"error", "warning", "note", "none"}));
  AddSharedFlag(app, "--fail-on-undecided", options.fail_on_undecided,
                "also exit 1 when a verdict is undecided (a rule could not decide because a fact is unknown); "
                "undecided verdicts never count as warnings");
  if (auto* min_severity = AddSharedOption(app, "--min-severity", options.min_severity,
                                           "show findings at or above this severity: note (default), warning, error; "
                                           "hidden ones still count for --fail-on, e.g. --min-severity warning",
                                           "LEVEL"))
    min_severity->check(CLI::IsMember({"error", "warning", "note"}));
  AddSharedOption(app, "-f,--format", options.formats,
                  "report format, optionally to a file (repeatable): " + FormatList() +
                      "; e.g. -f sarif=imagelint.sarif -f text (k8s: placement advice per pool, needs --fleet)",
                  "FORMAT[=FILE]");
  AddSharedOption(app, "-o,--output", options.output, "write the (single) report format to FILE, e.g. -o report.json",
                  "FILE");
  AddSharedOption(app, "--ignore", options.ignore,
                  "suppress rules with a reason, optionally until a date (repeatable): RULE[,RULE...][:YYYY-MM-DD]=REASON, "
                  "e.g. --ignore 'IL010:2026-12-31=JIT accepted until the rebuild'",
                  "RULE[:DATE]=REASON");
  AddSharedOption(app, "--docs-url", options.docs_url,
                  "base URL of the rule pages for links in SARIF (helpUri), Markdown and HTML, e.g. "
                  "https://git.example.com/tools/imagelint/-/blob/main/ (no links without it)",
                  "URL");
  AddSharedFlag(app, "--no-inline-ignores", options.no_inline_ignores,
                "ignore '# imagelint ignore=RULE reason' comments in Dockerfiles");
}

void AddColorFlags(CLI::App& app, std::string& when) {
  app.add_option("--color", when,
                 "colour in the text report: auto (default: on a terminal, unless NO_COLOR is set or TERM=dumb), "
                 "always, never")
      ->type_name("WHEN")
      ->check(CLI::IsMember({"auto", "always", "never"}));
  app.add_flag_callback("--no-color", [&when] { when = "never"; }, "no colour (--color never)");
}

void AddCacheDirOption(CLI::App& app, std::string& cache_dir, const std::string& what) {
  app.add_option("--cache-dir", cache_dir, what + " (default $XDG_CACHE_HOME/imagelint or ~/.cache/imagelint)")
      ->type_name("DIR");
}

void AddRegistryTlsOptions(CLI::App& app, std::vector<std::string>& insecure_registries, std::string& ca_file) {
  app.add_option("--insecure-registry", insecure_registries,
                 "registry host[:port] reached without TLS verification or over plain HTTP (repeatable; "
                 "loopback registries always are)")
      ->type_name("HOST[:PORT]");
  app.add_option("--ca-file", ca_file, "PEM CA bundle for registry TLS instead of the system's")
      ->type_name("FILE")
      ->check(CLI::Validator(CLI::ExistingFile).description(""));
}

void AddImageInputOptions(CLI::App& app, ImageInputFlags& flags) {
  AddCacheDirOption(app, flags.cache_dir, "layer cache directory");
  app.add_flag("--no-cache", flags.no_cache, "neither read nor write the layer cache");
  app.add_option("--knowledge", flags.knowledge,
                 "the knowledge bundle to judge by: a directory of tables or a file from `imagelint knowledge pack` "
                 "(default: the newest bundle `imagelint knowledge update` stored, else the built-in tables)")
      ->type_name("DIR|FILE");
  app.add_option("--image", flags.image_name,
                 "NAME or @N: the image to read from an archive or OCI layout that holds several "
                 "(docker save of several names, a layout with several ref names)")
      ->type_name("NAME|@N");
  app.add_option("--username", flags.username, "registry user name (with --password-stdin)")->type_name("USER");
  app.add_flag("--password-stdin", flags.password_stdin, "read the registry password or token from standard input");
  AddRegistryTlsOptions(app, flags.insecure_registries, flags.ca_file);
  app.add_option("--connect-to", flags.connect_to,
                 "HOST:PORT:CONNECT-HOST:CONNECT-PORT: reach registry HOST:PORT at another address, TLS still "
                 "checking HOST (as curl --connect-to; repeatable)")
      ->type_name("HOST:PORT:HOST2:PORT2")
      ->check([](const std::string& value) {
        return std::count(value.begin(), value.end(), ':') >= 3 ? std::string()
                                                                : std::string("expected HOST:PORT:CONNECT-HOST:CONNECT-PORT");
      });
  // Where images are read from (docs/cli.md "Image references", docs/dockerfile.md "Base images").
  app.add_option("--image-src", flags.image_sources,
                 "where a reference is read from, in this order: docker (the local engine, $DOCKER_HOST) and/or "
                 "registry (repeatable; default docker, then registry)")
      ->type_name("docker|registry")
      ->check(CLI::IsMember({"docker", "registry"}));
  app.add_option("--base-from", flags.base_from,
                 "Dockerfile mode: where FROM images are read from: auto (engine, registry, then knowledge tables; "
                 "default, or $IMAGELINT_BASE_FROM), registry, docker or knowledge")
      ->type_name("MODE")
      ->check(CLI::IsMember({"auto", "registry", "docker", "knowledge"}));
  app.add_option("--base-image", flags.base_images,
                 "Dockerfile mode: read FROM REF from this docker-save tarball or OCI layout (repeatable)")
      ->type_name("REF=PATH");
  app.add_option("--base-timeout", flags.base_timeout,
                 "Dockerfile mode: seconds all base image lookups of a scan may take together before the knowledge "
                 "tables answer (default 10)")
      ->type_name("SECONDS");
}

void AddImageReadFlags(CLI::App& app, ImageInputFlags& flags) {
  AddSharedOption(app, "--platform", flags.platform,
                  "os/arch[/variant] to pick from a multi-platform image (default linux/amd64)", "OS/ARCH");
  app.add_option("--max-layer-bytes", flags.max_layer_bytes,
                 "limit on the uncompressed size of one layer (default 64G; guards against decompression bombs)")
      ->type_name("SIZE");
  app.add_option("--jobs", flags.jobs, "layers read in parallel (default: up to 4)")->type_name("N");
  app.add_flag("--no-verify", flags.no_verify,
               "skip the blob digest and diff ID checks (faster; only for images you already trust); the layer "
               "cache still serves what verified scans stored, and stores nothing");
  app.add_flag("--verify-diff-ids", flags.verify_diff_ids,
               "also hash the uncompressed tar of each compressed layer against the config's diff ID (by "
               "default each byte is checked once, against the digest that covers it)");
  app.add_flag("-q,--quiet", flags.quiet, "no progress and no warnings on standard error (errors still)");
  app.add_flag("--no-progress", flags.no_progress, "no progress line on standard error, even on a terminal");
  app.add_option("--timeout", flags.timeout,
                 "time budget per input, then exit 2 (default 30m; 0 = none)")
      ->type_name("DURATION");
  app.add_option("--max-memory", flags.max_memory, "memory budget of the process, then exit 2 (default 4G; 0 = none)")
      ->type_name("SIZE");
}

Result<ImageReadOptions> ToImageReadOptions(const ImageInputFlags& flags) {
  ImageReadOptions options;
  options.platform = flags.platform;
  options.image_name = flags.image_name;
  if (!flags.max_layer_bytes.empty()) {
    auto limit = ParseByteSize(flags.max_layer_bytes);
    if (!limit.ok()) return WithSubject(limit.error(), "--max-layer-bytes");
    options.max_layer_bytes = *limit;
  }
  options.jobs = flags.jobs;
  options.verify_digests = !flags.no_verify;
  options.verify_diff_ids = flags.verify_diff_ids;
  options.use_cache = !flags.no_cache;
  options.registry.insecure_registries = flags.insecure_registries;
  options.registry.ca_file = flags.ca_file;
  options.registry.connect_to = flags.connect_to;
  options.image_sources = flags.image_sources;
  options.base.from = flags.base_from;
  options.base.timeout_seconds = flags.base_timeout;
  for (const std::string& entry : flags.base_images) {
    size_t eq = entry.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == entry.size())
      return MakeError("--base-image", "\"" + entry.substr(0, 200) + "\": expected REF=PATH");
    options.base.images[entry.substr(0, eq)] = entry.substr(eq + 1);
  }
  if (!flags.username.empty() || flags.password_stdin) {
    if (flags.username.empty() || !flags.password_stdin)
      return MakeError("--username", "--username and --password-stdin go together");
    auto password = PasswordFromStdin();
    if (!password.ok()) return password.error();
    options.registry.credentials = registry::Credentials{flags.username, *password, false};
  }
  return options;
}

Result<Context> KnowledgeContextFor(const Environment& environment, const std::string& cache_dir,
                                    const std::string& knowledge) {
  Context context = environment.MakeContext();
  if (!cache_dir.empty() || !knowledge.empty()) {
    if (!cache_dir.empty()) context.cache_dir = cache_dir;
    context.knowledge_dir = environment.BuiltinKnowledgeDirectory();
    IMAGELINT_TRY(SelectKnowledge(context, knowledge, environment.KnowledgeDirectoryFixed()));
  }
  return context;
}

Result<Context> ContextFor(const Environment& environment, const ImageInputFlags& flags) {
  auto selected = KnowledgeContextFor(environment, flags.cache_dir, flags.knowledge);
  if (!selected.ok()) return selected.error();
  Context context = std::move(*selected);
  if (flags.quiet || flags.no_progress) context.progress = nullptr;
  if (flags.quiet) context.warn = nullptr;
  if (context.cache_dir.empty() && !flags.no_cache && context.warn)
    context.warn("layer cache not used: no cache directory (set XDG_CACHE_HOME or --cache-dir)");
  return context;
}

namespace {

constexpr size_t kMaxImagesFromBytes = 4u << 20;

// --images-from FILE: one image a line; blank lines and '#' comments skipped.
Result<std::vector<std::string>> ReadImageList(const std::string& path) {
  auto text = ReadBoundedFile(path, kMaxImagesFromBytes, "--images-from list");
  if (!text.ok()) return text.error();
  std::vector<std::string> images;
  int number = 0;
  for (const std::string& raw : SplitOn(*text, '\n')) {
    ++number;
    std::string line = Trim(raw);
    if (line.empty() || line[0] == '#') continue;
    if (line.find_first_of(" \t") != std::string::npos)
      return MakeErrorAtLine(path, number, 1, "one image a line ('" + line + "' holds a space)");
    images.push_back(std::move(line));
  }
  if (images.empty()) return MakeError(path, "the --images-from list names no image");
  return images;
}

}  // namespace

void AddImageListFlags(CLI::App& app, ImageListFlags& flags, const std::string& verb) {
  app.add_option("--images-from", flags.images_from,
                 "also " + verb + " the images listed in FILE, one a line (# comments), into the same report")
      ->type_name("FILE");
  app.add_flag("--all-tags", flags.all_tags,
               "each IMAGE is a repository (REGISTRY/REPO): " + verb + " every tag its registry lists, into one report");
  app.add_option("--tags", flags.tags,
                 "with --all-tags: only tags matching REGEX (RE2 syntax, found anywhere in the tag; anchor with ^ and $)")
      ->type_name("REGEX");
  app.add_option("--image-jobs", flags.image_jobs,
                 "with --images-from or --all-tags: images read at once (default 4; their layers are shared "
                 "through the cache)")
      ->type_name("N")
      ->check(CLI::Range(1, 64));
}

Result<ImageList> CollectImageList(std::vector<std::string> operands, const ImageListFlags& flags) {
  if (!flags.tags.empty() && !flags.all_tags) return MakeError("--tags", "goes with --all-tags");
  ImageList list;
  list.many = flags.all_tags || !flags.images_from.empty();
  (flags.all_tags ? list.repositories : list.images) = std::move(operands);
  if (!flags.images_from.empty()) {
    auto listed = ReadImageList(flags.images_from);
    if (!listed.ok()) return listed.error();
    list.images.insert(list.images.end(), listed->begin(), listed->end());
  }
  return list;
}

Status AddRepositoryTags(ImageList& list, const ImageListFlags& flags, const ImageReadOptions& read,
                         const Context& context, const std::string& verb) {
  for (const std::string& repository : list.repositories) {
    auto tagged = ListRepositoryImages(repository, flags.tags, read, context);
    if (!tagged.ok()) return tagged.error();
    if (tagged->empty() && context.warn) context.warn(repository + ": no tag to " + verb);
    list.images.insert(list.images.end(), tagged->begin(), tagged->end());
  }
  if (list.images.empty()) return MakeError("--all-tags", "no tag to " + verb);
  return OkStatus();
}

Result<ImageRead> StartImageRead(const Environment& environment, const std::string& image, const std::string& rootfs,
                                 const ImageInputFlags& flags) {
  auto input = ImageArgument(image, rootfs);
  if (!input.ok()) return input.error();
  auto options = ToImageReadOptions(flags);
  if (!options.ok()) return options.error();
  if (auto budget = StartBudget(flags, {*input}); !budget.ok()) return budget.error();
  auto context = ContextFor(environment, flags);
  if (!context.ok()) return context.error();
  return ImageRead{std::move(*input), std::move(*options), std::move(*context)};
}

Result<config::Config> CommandConfig(const Environment& environment, config::CommandLineOptions& options) {
  options.user_config_dir = environment.UserConfigDirectory();
  return config::ResolveConfig(options);
}

}  // namespace imagelint::cli
