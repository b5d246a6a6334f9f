// Reading the build context: which context file an image path comes from
// (COPY/ADD sources, .dockerignore), and the requirement, project and conda
// environment files installs read. pip's requirements-file format:
// https://pip.pypa.io/en/stable/reference/requirements-file-format/ (options
// in a file apply to the whole install; -r/-c paths are relative to the file
// that names them). .dockerignore: https://docs.docker.com/build/concepts/context/#dockerignore-files
// (Go filepath.Match per path segment, `**` for any number of them, `!` to
// re-include, the last matching line wins).
#include "dockerfile/build_context.h"
#include "dockerfile/poetry_project.h"

#include <filesystem>

#include "common/file_text.h"
#include "common/text.h"
#include "common/yaml.h"
#include "dockerfile/util.h"

namespace imagelint::dockerfile {
namespace fs = std::filesystem;
namespace {

bool HasGlob(std::string_view text) { return text.find_first_of("*?[") != std::string_view::npos; }

// "/a/b" -> "/a", "/a" -> "/", "a" -> "" (common/text.h DirName gives "" for "/a").
std::string ParentDir(const std::string& path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos) return "";
  return slash == 0 ? "/" : path.substr(0, slash);
}

std::string BaseOf(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// A COPY source as a context path: "./app/" -> "app", "." -> "".
std::string ContextRelative(std::string source) {
  while (StartsWith(source, "./")) source = source.substr(2);
  while (StartsWith(source, "/")) source = source.substr(1);  // COPY sources are relative to the context
  if (source == ".") return "";
  return source.empty() ? "" : CleanPath(source);
}

bool ValidUtf8(std::string_view text) {
  for (size_t i = 0; i < text.size();) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (c == 0) return false;  // text files carry no NUL
    size_t extra = 0;
    if (c >= 0x80) {
      if ((c >> 5) == 0x6) extra = 1;
      else if ((c >> 4) == 0xE) extra = 2;
      else if ((c >> 3) == 0x1E) extra = 3;
      else return false;
      if (i + extra >= text.size()) return false;
      for (size_t k = 1; k <= extra; ++k)
        if ((static_cast<unsigned char>(text[i + k]) >> 6) != 0x2) return false;
    }
    i += extra + 1;
  }
  return true;
}

// The context root and a path under it, both resolved through symbolic
// links; an error when the path leaves the context.
Result<fs::path> Resolve(const Context& ctx, const std::string& context_path) {
  for (const std::string& part : SplitOn(context_path, '/'))
    if (part == "..") return MakeError(context_path, "leaves the build context ('..')");
  std::error_code ec;
  fs::path root = fs::weakly_canonical(ctx.options.context_dir, ec);
  if (ec) return MakeError(ctx.options.context_dir, "build context cannot be read: " + ec.message());
  fs::path real = fs::weakly_canonical(root / context_path, ec);
  if (ec) return MakeError(context_path, "cannot be resolved: " + ec.message());
  auto [end, at] = std::mismatch(root.begin(), root.end(), real.begin(), real.end());
  if (end != root.end()) return MakeError(context_path, "is a symbolic link that leads out of the build context");
  return real;
}

bool IsContextDir(const Context& ctx, const std::string& context_path) {
  if (context_path.empty()) return true;
  auto real = Resolve(ctx, context_path);
  std::error_code ec;
  return real.ok() && fs::is_directory(*real, ec);
}

// One .dockerignore pattern segment by segment; `**` spans any number.
bool IgnoreMatch(const std::vector<std::string>& pattern, size_t p, const std::vector<std::string>& path, size_t s,
                 int budget = 10000) {
  if (budget <= 0) return false;
  if (p == pattern.size()) return s == path.size();
  if (pattern[p] == "**") {
    for (size_t k = s; k <= path.size(); ++k)
      if (IgnoreMatch(pattern, p + 1, path, k, budget - 1)) return true;
    return false;
  }
  return s < path.size() && GlobMatch(pattern[p], path[s], true) && IgnoreMatch(pattern, p + 1, path, s + 1, budget - 1);
}

bool Ignored(const Context& ctx, const std::string& context_path) {
  if (!ctx.dockerignore) {
    ctx.dockerignore.emplace();
    std::error_code ec;
    if (fs::exists(fs::path(ctx.options.context_dir) / ".dockerignore", ec)) {
      auto text = ReadContextFile(ctx, ".dockerignore");
      if (text.ok())
        for (const std::string& raw : SplitOn(*text, '\n')) {
          std::string line = Trim(raw);
          if (line.empty() || line[0] == '#') continue;
          if (ctx.dockerignore->size() < 4096) ctx.dockerignore->push_back(line);
        }
    }
  }
  std::vector<std::string> path = SplitOn(context_path, '/');
  bool excluded = false;
  for (const std::string& line : *ctx.dockerignore) {
    bool negated = line[0] == '!';
    std::string pattern = ContextRelative(negated ? line.substr(1) : line);
    if (pattern.empty()) continue;
    std::vector<std::string> parts = SplitOn(pattern, '/');
    // A pattern naming a directory excludes what is under it.
    bool match = false;
    for (size_t n = 1; n <= path.size() && !match; ++n)
      match = IgnoreMatch(parts, 0, std::vector<std::string>(path.begin(), path.begin() + static_cast<long>(n)), 0);
    if (match) excluded = !negated;
  }
  return excluded;
}

// A `name[extra,extra]` or `./dir[extra]` word split into the two.
std::pair<std::string, std::vector<std::string>> WithExtras(const std::string& word) {
  size_t open = word.find('[');
  if (open == std::string::npos || word.back() != ']') return {word, {}};
  std::vector<std::string> extras;
  for (std::string extra : SplitOn(word.substr(open + 1, word.size() - open - 2), ','))
    if (!Trim(extra).empty()) extras.push_back(ToLower(Trim(extra)));
  return {word.substr(0, open), extras};
}


class RequirementsReader {
 public:
  RequirementsReader(const Context& ctx, const ImageModel& image, RequirementsRead& out)
      : ctx_(ctx), image_(image), out_(out) {}

  void File(const std::string& container_path, bool constraints, int depth) {
    if (auto generated = image_.generated_requirements.find(container_path);
        generated != image_.generated_requirements.end() && generated->second) {
      Generated(*generated->second, constraints);
      return;
    }
    ContextSource source = FindInContext(ctx_, image_, container_path);
    if (!source.path) {
      out_.unread.push_back(container_path + ": " + source.why_not);
      return;
    }
    const std::string& rel = *source.path;
    for (const std::string& open : stack_)
      if (open == rel) {
        out_.unread.push_back(rel + " includes itself (" + Chain() + " -> " + rel + "): the cycle is not followed");
        return;
      }
    if (depth > ctx_.options.context_limits.max_include_depth) {
      out_.unread.push_back(rel + ": included more than " + std::to_string(ctx_.options.context_limits.max_include_depth) +
                            " files deep (" + Chain() + "): not read");
      return;
    }
    auto text = ReadContextFile(ctx_, rel);
    if (!text.ok()) {
      out_.unread.push_back(text.error().message);
      return;
    }
    out_.files.push_back(rel);
    stack_.push_back(rel);
    Lines(*text, rel, ParentDir(container_path), constraints, depth);
    stack_.pop_back();
  }

  // A file a RUN wrote (`poetry export`): what it lists was read then.
  void Generated(const RequirementsRead& file, bool constraints) {
    for (const Requirement& r : file.requirements) {
      if (out_.requirements.size() + out_.constraints.size() >= 10000) break;
      if (constraints) out_.constraints[r.name] = r;
      else out_.requirements.push_back(r);
    }
    if (!file.index_url.empty()) out_.index_url = file.index_url;
    auto append = [](const std::vector<std::string>& from, std::vector<std::string>& into) {
      for (const std::string& item : from)
        if (into.size() < 10000) into.push_back(item);
    };
    append(file.extra_index_urls, out_.extra_index_urls);
    append(file.find_links, out_.find_links);
    append(file.unread, out_.unread);
    append(file.files, out_.files);
    append(file.notes, out_.notes);
    out_.lock_unreadable = out_.lock_unreadable || file.lock_unreadable;
  }

 private:
  std::string Chain() const {
    std::string out;
    for (const std::string& file : stack_) out += (out.empty() ? "" : " -> ") + file;
    return out;
  }

  void Lines(const std::string& text, const std::string& rel, const std::string& dir, bool constraints, int depth) {
    std::vector<std::string> lines = SplitOn(text, '\n');
    for (size_t i = 0; i < lines.size(); ++i) {
      size_t number = i + 1;
      std::string line = lines[i];
      while (!line.empty() && line.back() == '\r') line.pop_back();
      while (!line.empty() && line.back() == '\\' && i + 1 < lines.size()) {  // continuation
        line.pop_back();
        line += lines[++i];
        while (!line.empty() && line.back() == '\r') line.pop_back();
      }
      for (size_t hash = line.find('#'); hash != std::string::npos; hash = line.find('#', hash + 1))
        if (hash == 0 || line[hash - 1] == ' ' || line[hash - 1] == '\t') {
          line.resize(hash);
          break;
        }
      line = Trim(line);
      if (line.empty()) continue;
      std::string origin = rel + ":" + std::to_string(number);
      if (line[0] == '-') {
        Option(line, origin, dir, constraints, depth);
        continue;
      }
      // Per-requirement options (--hash=..., --config-settings) follow the requirement.
      if (size_t option = line.find(" --"); option != std::string::npos) line = Trim(line.substr(0, option));
      if (StartsWith(line, ".") || StartsWith(line, "/")) {
        auto [path, extras] = WithExtras(line);
        ReadProject(ctx_, image_, InRun(image_, path), extras, out_);
        continue;
      }
      AddRequirement(line, origin, constraints, out_);
    }
  }

  void Option(const std::string& line, const std::string& origin, const std::string& dir, bool constraints, int depth) {
    std::string option = line, value;
    size_t split = line.find_first_of(" \t=");
    if (split != std::string::npos) {
      option = line.substr(0, split);
      value = Trim(line.substr(split + 1));
    } else if (line.size() > 2 && line[1] != '-') {  // -rfile
      option = line.substr(0, 2);
      value = line.substr(2);
    }
    auto relative = [&](const std::string& path) {
      return NormalPath(StartsWith(path, "/") ? path : (dir.empty() ? "/" : dir) + "/" + path);
    };
    if (option == "-r" || option == "--requirement") File(relative(value), false, depth + 1);
    else if (option == "-c" || option == "--constraint") File(relative(value), true, depth + 1);
    else if (option == "-i" || option == "--index-url") out_.index_url = value;
    else if (option == "--extra-index-url") out_.extra_index_urls.push_back(value);
    else if (option == "-f" || option == "--find-links") out_.find_links.push_back(value);
    else if (option == "-e" || option == "--editable") {
      auto [path, extras] = WithExtras(value);
      if (StartsWith(path, ".") || StartsWith(path, "/"))
        ReadProject(ctx_, image_, InRun(image_, path), extras, out_);
      else
        out_.unread.push_back(origin + ": editable \"" + value.substr(0, 120) + "\" is not read");
    }
    (void)constraints;
  }

  const Context& ctx_;
  const ImageModel& image_;
  RequirementsRead& out_;
  std::vector<std::string> stack_;
};

// The TOML array of strings that starts at `from` (after `key = [`), possibly
// over several lines; each string as written.
std::vector<std::string> TomlStrings(const std::string& text, size_t from, size_t* end) {
  std::vector<std::string> out;
  size_t i = from;
  while (i < text.size() && text[i] != ']') {
    char c = text[i];
    if (c == '#') {
      i = text.find('\n', i);
      if (i == std::string::npos) break;
      continue;
    }
    if (c == '"' || c == '\'') {
      size_t close = text.find(c, i + 1);
      if (close == std::string::npos) break;
      out.push_back(text.substr(i + 1, close - i - 1));
      i = close + 1;
      continue;
    }
    ++i;
  }
  *end = i;
  return out;
}

// Where `key = ...` stands inside the TOML table `[table]` (up to the next
// table header): the line's index and the text after `=`; nullopt when the
// table or the key is not there.
struct TomlKeyLine {
  size_t line;
  std::string value;
};
std::optional<TomlKeyLine> FindTomlKey(const std::vector<std::string>& lines, const std::string& table,
                                       const std::string& key) {
  size_t i = 0;
  while (i < lines.size() && Trim(lines[i]) != "[" + table + "]") ++i;
  for (++i; i < lines.size(); ++i) {
    std::string line = Trim(lines[i]);
    if (StartsWith(line, "[")) return std::nullopt;  // the next table
    if (!StartsWith(line, key)) continue;
    std::string rest = Trim(line.substr(key.size()));
    if (!StartsWith(rest, "=")) continue;
    return TomlKeyLine{i, Trim(rest.substr(1))};
  }
  return std::nullopt;
}

// `key = [ ... ]` inside `[table]`, possibly over several lines.
std::optional<std::vector<std::string>> TomlArray(const std::string& text, const std::string& table, const std::string& key) {
  std::vector<std::string> lines = SplitOn(text, '\n');
  auto found = FindTomlKey(lines, table, key);
  if (!found || !StartsWith(found->value, "[")) return std::nullopt;
  std::string array = found->value.substr(1);
  // Up to the next table header; the unquoted ']' ends the array.
  const size_t i = found->line;
  for (size_t k = i + 1; k < lines.size() && !StartsWith(Trim(lines[k]), "[") && k < i + 10000; ++k)
    array += "\n" + lines[k];
  size_t end = 0;
  return TomlStrings(array, 0, &end);
}

// `key = "value"` (or single quotes) inside `[table]`.
std::optional<std::string> TomlString(const std::string& text, const std::string& table, const std::string& key) {
  auto found = FindTomlKey(SplitOn(text, '\n'), table, key);
  if (!found) return std::nullopt;
  const std::string& value = found->value;
  if (value.empty() || (value[0] != '"' && value[0] != '\'')) return std::nullopt;
  size_t close = value.find(value[0], 1);
  if (close == std::string::npos) return std::nullopt;
  return value.substr(1, close - 1);
}

}  // namespace

std::optional<std::string> PurePythonBuild(const Context& ctx, const ImageModel& image, const std::string& container_dir) {
  const std::string dir = container_dir == "/" ? "" : container_dir;
  ContextSource pyproject = FindInContext(ctx, image, dir + "/pyproject.toml");
  if (!pyproject.path) return std::nullopt;
  auto text = ReadContextFile(ctx, *pyproject.path);
  if (!text.ok()) return std::nullopt;
  auto backend = TomlString(*text, "build-system", "build-backend");
  const PurePythonBackend* row = backend ? ctx.packages.FindPurePythonBackend(*backend) : nullptr;
  if (!row) return std::nullopt;
  // A hook table, or one inside it ([tool.hatch.build.hooks.custom]).
  for (const std::string& line : SplitOn(*text, '\n')) {
    const std::string header = Trim(line);
    for (const std::string& table : row->hook_tables)
      if (header == "[" + table + "]" || StartsWith(header, "[" + table + ".")) return std::nullopt;
  }
  // A hook file the build context has (or that cannot be read to tell).
  for (const std::string& file : row->hook_files) {
    ContextSource hook = FindInContext(ctx, image, dir + "/" + file);
    if (!hook.path) continue;  // not copied into the image
    auto read = ReadContextFile(ctx, *hook.path);
    if (read.ok() || !read.error().message.ends_with("does not exist")) return std::nullopt;
  }
  return *backend + " (" + *pyproject.path + ")";
}

std::string NormalPath(std::string_view path) {
  std::vector<std::string> parts;
  for (std::string& part : SplitOn(path, '/')) {
    if (part.empty() || part == ".") continue;
    if (part == "..") {
      if (!parts.empty()) parts.pop_back();
      continue;
    }
    parts.push_back(std::move(part));
  }
  std::string out;
  for (const std::string& part : parts) out += "/" + part;
  return out.empty() ? "/" : out;
}

std::string InRun(const ImageModel& image, const std::string& word) {
  if (StartsWith(word, "/")) return NormalPath(word);
  const std::string& cwd = image.run_cwd.empty() ? image.workdir : image.run_cwd;
  return NormalPath(cwd + "/" + word);
}

Result<std::string> ReadContextFile(const Context& ctx, const std::string& context_path, size_t max_bytes) {
  const ContextLimits& limits = ctx.options.context_limits;
  if (max_bytes == 0) max_bytes = limits.max_file_bytes;
  std::string name = context_path.empty() ? "." : context_path;
  auto real = Resolve(ctx, context_path);
  if (!real.ok()) return MakeError(name, "build context file " + name + " " + real.error().message);
  std::error_code ec;
  fs::file_status status = fs::status(*real, ec);
  if (ec || !fs::exists(status)) return MakeError(name, "build context file " + name + " does not exist");
  if (!fs::is_regular_file(status)) return MakeError(name, "build context file " + name + " is not a regular file");
  uintmax_t size = fs::file_size(*real, ec);
  if (ec) return MakeError(name, "build context file " + name + " cannot be read: " + ec.message());
  if (size > max_bytes)
    return MakeError(name, "build context file " + name + " is over the limit of " + std::to_string(max_bytes) + " bytes");
  if (ctx.context_files >= limits.max_files)
    return MakeError(name, "build context file " + name + " not read: over the limit of " + std::to_string(limits.max_files) + " files");
  if (ctx.context_bytes + size > limits.max_total_bytes)
    return MakeError(name, "build context file " + name + " not read: the context files read are over the limit of " +
                               std::to_string(limits.max_total_bytes) + " bytes");
  auto read = ReadBoundedFile(real->string(), max_bytes, "build context file " + name,
                              FileKinds::kRegularOnly);
  if (!read.ok()) return MakeError(name, read.error().message);
  std::string text = std::move(*read);
  ++ctx.context_files;
  ctx.context_bytes += text.size();
  if (StartsWith(text, "\xEF\xBB\xBF")) text = text.substr(3);
  if (!ValidUtf8(text)) return MakeError(name, "build context file " + name + " is not UTF-8 text");
  return text;
}

namespace {

// Whether a context file starts with the ELF magic; links and special files are not opened.
bool IsElfFile(const fs::path& path) {
  return ReadFileHead(path.string(), 4) == "\x7f" "ELF";
}

struct ElfWalk {
  const Context& ctx;
  CopiedElf& out;
  size_t entries = 0;

  bool Budget() {
    if (++entries <= ctx.options.context_limits.max_walk_entries) return true;
    if (out.unread.empty())
      out.unread = "the files it copies are over imagelint's limit of " +
                   std::to_string(ctx.options.context_limits.max_walk_entries) + " directory entries";
    return false;
  }
  void Found(const std::string& context_path, const std::string& image_path, const fs::path& real) {
    if (out.elf.size() < 8) out.elf.push_back(context_path);
    ++out.elf_count;
    std::error_code ec;
    uint64_t size = fs::file_size(real, ec);
    const ContextLimits& limits = ctx.options.context_limits;
    if (ec || out.files.size() >= limits.max_binary_files || size > limits.max_binary_bytes - out.bytes) {
      out.over_limit = true;
      return;
    }
    out.bytes += size;
    out.files.push_back({real.string(), image_path, context_path});
  }
  // One context path (file or directory), walked without following links.
  // `image_path` is where COPY puts it; `into_dir` when a file goes into that
  // directory under its own name (COPY a.so b.so /opt/lib/).
  void Path(const std::string& context_path, const std::string& image_path, bool into_dir, int depth) {
    if (!Budget() || Ignored(ctx, context_path)) return;
    auto real = Resolve(ctx, context_path);
    if (!real.ok()) return;  // out of the context: docker build refuses it too
    std::error_code ec;
    fs::file_status status = fs::symlink_status(fs::path(ctx.options.context_dir) / context_path, ec);
    if (ec || fs::is_symlink(status)) return;  // COPY copies the link itself
    if (fs::is_regular_file(status)) {
      if (IsElfFile(*real)) Found(context_path, into_dir ? Join(image_path, BaseName(context_path)) : image_path, *real);
      return;
    }
    if (!fs::is_directory(status)) return;
    if (depth >= ctx.options.context_limits.max_walk_depth) {
      if (out.unread.empty()) out.unread = context_path + " is deeper than imagelint's limit of " +
                                          std::to_string(ctx.options.context_limits.max_walk_depth) + " directories";
      return;
    }
    fs::directory_iterator it(*real, fs::directory_options::none, ec), end;
    for (; !ec && it != end; it.increment(ec)) {
      std::string name = it->path().filename().string();
      Path(context_path.empty() ? name : context_path + "/" + name, Join(image_path, name), false, depth + 1);
      if (!out.unread.empty()) return;
    }
  }
  static std::string Join(const std::string& dir, const std::string& name) {
    return dir.empty() || dir == "/" ? name : dir + "/" + name;
  }
};

}  // namespace

CopiedElf FindCopiedElf(const Context& ctx, const std::vector<std::string>& sources, const std::string& dest,
                        bool dest_dir) {
  CopiedElf out;
  ElfWalk walk{ctx, out};
  // Image paths without the leading '/', as facts write them.
  std::string image_dest = dest;
  while (StartsWith(image_dest, "/")) image_dest.erase(0, 1);
  // Several sources, or a glob, always copy into a directory (docker build
  // requires the destination to be one then).
  bool into_dir = dest_dir || sources.size() > 1;
  for (const std::string& written : sources) {
    std::string source = ContextRelative(written);
    if (!HasGlob(source)) {
      walk.Path(source, image_dest, into_dir, 0);
    } else {  // a glob in the last component: the matching entries of its directory
      std::string dir = ParentDir(source);
      if (HasGlob(dir)) {
        out.unread = "the COPY source " + written.substr(0, 200) + " has a glob before its last component";
        return out;
      }
      auto real = Resolve(ctx, dir);
      std::error_code ec;
      if (!real.ok() || !fs::is_directory(*real, ec)) continue;
      fs::directory_iterator it(*real, fs::directory_options::none, ec), end;
      for (; !ec && it != end; it.increment(ec)) {
        std::string name = it->path().filename().string();
        // A matching file goes into dest under its name; a matching
        // directory's contents go into dest itself, as COPY does.
        if (GlobMatch(BaseOf(source), name, true)) walk.Path(dir.empty() ? name : dir + "/" + name, image_dest, true, 1);
        if (!out.unread.empty()) return out;
      }
    }
    if (!out.unread.empty()) return out;
  }
  return out;
}

void AddRequirement(const std::string& text, const std::string& origin, bool constraints, RequirementsRead& out) {
  if (out.requirements.size() + out.constraints.size() >= 10000) return;
  auto requirement = ParseRequirement(ShellWord{text, text.find('$') == std::string::npos, false});
  if (!requirement) {
    out.unread.push_back(origin + ": \"" + text.substr(0, 120) + "\" (a URL or path) is not read");
    return;
  }
  requirement->origin = origin;
  if (constraints) out.constraints[requirement->name] = *requirement;
  else out.requirements.push_back(std::move(*requirement));
}

ContextSource FindInContext(const Context& ctx, const ImageModel& image, const std::string& container_path) {
  if (ctx.options.context_dir.empty())
    return {std::nullopt, "not read: no build context was given (run imagelint with --context DIR, the folder docker build gets)"};
  auto checked = [&](const std::string& candidate) -> ContextSource {
    if (Ignored(ctx, candidate)) return {std::nullopt, "excluded from the build context by .dockerignore"};
    return {candidate, ""};
  };
  for (auto copy = image.context_copies.rbegin(); copy != image.context_copies.rend(); ++copy) {
    const std::string& dest = copy->dest;
    for (const std::string& written : copy->sources) {
      std::string source = ContextRelative(written);
      bool glob = HasGlob(source);
      if (!glob && IsContextDir(ctx, source)) {  // a directory: its contents go into dest
        std::string prefix = dest == "/" ? "/" : dest + "/";
        if (StartsWith(container_path, prefix)) {
          std::string rest = container_path.substr(prefix.size());
          return checked(source.empty() ? rest : source + "/" + rest);
        }
        continue;
      }
      std::string name = BaseOf(container_path);
      bool into_dir = copy->dest_dir || copy->sources.size() > 1;
      if (glob) {
        if (ParentDir(container_path) == dest && GlobMatch(BaseOf(source), name, true))
          return checked(ParentDir(source).empty() ? name : ParentDir(source) + "/" + name);
        continue;
      }
      // COPY file /dest: /dest is the file, unless /dest is a directory in
      // the image (not known here), when it is /dest/file: both are taken.
      if ((!into_dir && container_path == dest) || container_path == CleanPath(dest + "/" + BaseOf(source)))
        return checked(source);
    }
  }
  return {std::nullopt, "not in the image from the build context (no COPY or ADD of the context brings it)"};
}

void ReadRequirements(const Context& ctx, const ImageModel& image, const std::string& container_path, bool constraints,
                      RequirementsRead& out) {
  RequirementsReader(ctx, image, out).File(container_path, constraints, 0);
}

void ReadProject(const Context& ctx, const ImageModel& image, const std::string& container_dir,
                 const std::vector<std::string>& extras, RequirementsRead& out,
                 const std::vector<std::string>& poetry_groups) {
  std::string dir = container_dir == "/" ? "" : container_dir;
  ContextSource pyproject = FindInContext(ctx, image, dir + "/pyproject.toml");
  if (pyproject.path) {
    auto text = ReadContextFile(ctx, *pyproject.path);
    if (!text.ok()) {
      out.unread.push_back(text.error().message);
      return;
    }
    if (auto deps = TomlArray(*text, "project", "dependencies")) {
      out.files.push_back(*pyproject.path);
      for (const std::string& dep : *deps) AddRequirement(dep, *pyproject.path + " [project] dependencies", false, out);
      for (const std::string& extra : extras)
        if (auto more = TomlArray(*text, "project.optional-dependencies", extra))
          for (const std::string& dep : *more) AddRequirement(dep, *pyproject.path + " extra " + extra, false, out);
      return;
    }
    auto dynamic = TomlArray(*text, "project", "dynamic");
    bool dynamic_deps = dynamic && std::find(dynamic->begin(), dynamic->end(), "dependencies") != dynamic->end();
    // poetry-core builds Poetry's own table into the wheel's metadata.
    if (!dynamic_deps && ReadPoetryDependencies(*text, *pyproject.path, poetry_groups, out)) return;
    if (dynamic_deps) {
      out.unread.push_back(*pyproject.path + ": the project's dependencies are dynamic, which is not read");
      return;
    }
  }
  ContextSource setup_cfg = FindInContext(ctx, image, dir + "/setup.cfg");
  if (setup_cfg.path) {
    auto text = ReadContextFile(ctx, *setup_cfg.path);
    if (text.ok()) {
      // [options] install_requires = (one per indented line)
      size_t options = text->find("[options]");
      size_t key = options == std::string::npos ? std::string::npos : text->find("install_requires", options);
      if (key != std::string::npos) {
        out.files.push_back(*setup_cfg.path);
        std::vector<std::string> lines = SplitOn(text->substr(key), '\n');
        std::string first = lines.empty() ? "" : Trim(lines[0].substr(lines[0].find('=') + 1));
        if (!first.empty()) AddRequirement(first, *setup_cfg.path + " install_requires", false, out);
        for (size_t i = 1; i < lines.size() && !lines[i].empty() && (lines[i][0] == ' ' || lines[i][0] == '\t'); ++i)
          if (std::string dep = Trim(lines[i]); !dep.empty() && dep[0] != '#')
            AddRequirement(dep, *setup_cfg.path + " install_requires", false, out);
        return;
      }
    }
  }
  out.unread.push_back("the project at " + (dir.empty() ? std::string("/") : dir) +
                       ": no pyproject.toml [project] dependencies or setup.cfg install_requires in the build context "
                       "(a setup.py is a program and is not run)");
}

EnvironmentRead ReadEnvironment(const Context& ctx, const ImageModel& image, const std::string& container_path) {
  EnvironmentRead out;
  ContextSource source = FindInContext(ctx, image, container_path);
  if (!source.path) {
    out.unread = container_path + ": " + source.why_not;
    return out;
  }
  auto text = ReadContextFile(ctx, *source.path);
  if (!text.ok()) {
    out.unread = text.error().message;
    return out;
  }
  auto root = LoadYaml(*text, *source.path);
  if (!root.ok() || !root->IsMap()) {
    out.unread = *source.path + ": not a conda environment file (" +
                 (root.ok() ? std::string("not a YAML mapping") : root.error().message.substr(0, 200)) + ")";
    return out;
  }
  out.file = *source.path;
  const YAML::Node& doc = *root;
  if (doc["channels"] && doc["channels"].IsSequence())
    for (const auto& channel : doc["channels"])
      if (channel.IsScalar()) out.channels.push_back(channel.Scalar());
  if (doc["dependencies"] && doc["dependencies"].IsSequence())
    for (const auto& dep : doc["dependencies"]) {
      if (dep.IsScalar() && out.conda_specs.size() < 10000) out.conda_specs.push_back(dep.Scalar());
      if (dep.IsMap() && dep["pip"] && dep["pip"].IsSequence())
        for (const auto& req : dep["pip"])
          if (req.IsScalar() && out.pip_requirements.size() < 10000) out.pip_requirements.push_back(req.Scalar());
    }
  return out;
}

}  // namespace imagelint::dockerfile
