// rm, ln, mv and ld.so.conf writes: the file operations that decide which
// libcuda the loader finds.
//
// Removing the compat directory (`rm -rf /usr/local/cuda/compat`) is the
// documented fix for Error 804 on GPUs without forward compatibility; a
// symlink of the devel stub to libcuda.so.1 makes every CUDA call fail; a
// directory written into /etc/ld.so.conf.d is searched before the system
// directories (ld.so(8), ldconfig(8)). Paths are compared after resolving the
// /usr/local/cuda symlink, and globs with the shell's rules (fnmatch(3) with
// FNM_PATHNAME). A path whose value cannot be computed leaves the driver
// facts unknown.
#include "dockerfile/file_ops.h"

#include <algorithm>

#include "common/text.h"
#include "dockerfile/util.h"

namespace imagelint::dockerfile {
namespace {

// `path` (canonical) is `target` or matches it as a glob; with `recursive`,
// also when a directory above it does.
bool Removes(const std::string& target, const std::string& path, bool recursive) {
  if (path == target || GlobMatch(target, path, true)) return true;
  if (!recursive) return false;
  for (std::string dir = DirName(path); dir.size() > 1; dir = DirName(dir))
    if (dir == target || GlobMatch(target, dir, true)) return true;
  return false;
}

template <typename Row>
void RemoveRows(std::vector<Row>& rows, ImageModel& image, int line, const std::string& target, bool recursive,
                const std::string& by) {
  std::vector<Row> kept;
  for (Row& row : rows) {
    const std::string* path = nullptr;
    if constexpr (std::is_same_v<Row, facts::Runtime>) path = row.path ? &*row.path : nullptr;  // null: no file known
    else path = &row.path;
    if (path != nullptr && !path->empty() && Removes(target, CanonicalPath(image, *path), recursive))
      image.changes.push_back({line, by, row});
    else
      kept.push_back(std::move(row));
  }
  rows = std::move(kept);
}

bool MentionsDriver(const std::string& text) {
  return text.find("compat") != std::string::npos || text.find("libcuda") != std::string::npos;
}

// Options first, `--` ends them; the rest are operands.
std::vector<const ShellWord*> Operands(const ShellCommand& command, std::string& flags) {
  std::vector<const ShellWord*> out;
  bool options_done = false;
  const auto& w = command.words;
  for (size_t i = 1; i < w.size(); ++i) {
    const std::string& word = w[i].value;
    if (!options_done && word == "--") {
      options_done = true;
      continue;
    }
    if (!options_done && StartsWith(word, "-") && word.size() > 1) {
      flags += " " + word;
      continue;
    }
    out.push_back(&w[i]);
  }
  return out;
}

}  // namespace

std::string CanonicalPath(const ImageModel& image, const std::string& path) {
  std::string out = CleanPath(path);
  if (!image.cuda_home.empty() && !image.cuda_link.empty() &&
      (out == image.cuda_link || StartsWith(out, image.cuda_link + "/")))
    out = image.cuda_home + out.substr(image.cuda_link.size());
  return out;
}

std::string DriverKindOf(const std::string& canonical_path) {
  if (canonical_path.find("/stubs/") != std::string::npos) return "stub";
  if (canonical_path.find("/compat/") != std::string::npos) return "compat";
  return "bundled";
}

void WriteLdSoConf(const Context& ctx, const Instruction& inst, ImageModel& image, const ShellWord& target,
                   const std::string& text, bool exact, bool truncate) {
  const std::string& path = target.value;
  if (!(StartsWith(path, "/etc/ld.so.conf.d/") || path == "/etc/ld.so.conf")) return;
  if (!exact || !target.exact) {
    ctx.Unknown(image, inst, "cuda.loader.ld_so_conf", "writes " + path.substr(0, 200) + " with text that cannot be computed");
    return;
  }
  if (truncate) {
    std::vector<facts::LdSoConfEntry> kept;
    for (facts::LdSoConfEntry& entry : image.ld_so_conf)
      if (entry.file != path) kept.push_back(std::move(entry));
    image.ld_so_conf = std::move(kept);
  }
  for (const std::string& line : SplitOn(text, '\n'))
    for (const std::string& dir : SplitOn(line, ' ')) {
      if (dir.empty() || dir[0] != '/') continue;
      image.ld_so_conf.push_back({ctx.Where(inst, image, "instruction"), CleanPath(dir), path});
    }
}

Status ApplyRemove(const Context& ctx, const Instruction& inst, ImageModel& image, const ShellCommand& command) {
  std::string flags;
  std::vector<const ShellWord*> paths = Operands(command, flags);
  bool recursive = flags.find('r') != std::string::npos || flags.find('R') != std::string::npos;
  for (const ShellWord* word : paths) {
    if (!word->exact) {
      if (MentionsDriver(word->value))
        ctx.Unknown(image, inst, "cuda.drivers", "rm of \"" + word->value.substr(0, 200) + "\" whose path cannot be computed");
      continue;
    }
    std::string target = CanonicalPath(image, word->value);
    std::string by = "rm " + word->value.substr(0, 200);
    RemoveRows(image.drivers, image, inst.line, target, recursive, by);
    RemoveRows(image.runtimes, image, inst.line, target, recursive, by);
  }
  return OkStatus();
}

Status ApplyLink(const Context& ctx, const Instruction& inst, ImageModel& image, const ShellCommand& command) {
  const auto& w = command.words;
  bool symbolic = false;
  std::vector<const ShellWord*> operands;
  for (size_t i = 1; i < w.size(); ++i) {
    const std::string& word = w[i].value;
    if (StartsWith(word, "-") && word.size() > 1) {
      if (word == "--symbolic" || (word[1] != '-' && word.find('s') != std::string::npos)) symbolic = true;
      if (word == "-t" || word == "--target-directory") return OkStatus();  // rare form, not read
      continue;
    }
    operands.push_back(&w[i]);
  }
  if (operands.size() != 2) return OkStatus();
  const ShellWord& target = *operands[0];
  const ShellWord& link = *operands[1];
  if (!StartsWith(BaseName(target.value), "libcuda.so")) return OkStatus();
  if (!target.exact || !link.exact) {
    ctx.Unknown(image, inst, "cuda.drivers", "ln of libcuda with a path that cannot be computed");
    return OkStatus();
  }
  std::string link_path = link.value;
  if (EndsWith(link_path, "/")) link_path += BaseName(target.value);
  std::string resolved_target = target.value;
  if (!StartsWith(resolved_target, "/")) resolved_target = DirName(link_path) + "/" + resolved_target;
  std::string canonical_target = CanonicalPath(image, resolved_target);
  facts::Driver row;
  row.provenance = ctx.Where(inst, image, "instruction");
  row.kind = DriverKindOf(canonical_target);
  // A link to a file the model knows has its version; a link into a compat
  // directory, that of the compat library there.
  for (const facts::Driver& existing : image.drivers)
    if (!existing.path.empty() && CanonicalPath(image, existing.path) == canonical_target) row.version = existing.version;
  if (row.kind == "compat" && !row.version)
    for (const facts::Driver& existing : image.drivers)
      if (existing.kind == "compat" && !existing.path.empty() &&
          DirName(CanonicalPath(image, existing.path)) == DirName(canonical_target))
        row.version = existing.version;
  row.name = BaseName(link_path);
  row.path = CleanPath(link_path);
  row.link_target = target.value;
  row.resolves_to = canonical_target;
  row.source = "symlink";
  if (!symbolic) row.hard_link = true;
  image.PutDriver(std::move(row));
  return OkStatus();
}

// mv SRC DEST / mv SRC... DIR: rows under a moved path move with it (e.g.
// `mv /usr/local/cuda/compat /usr/local/cuda/compat.disabled`, which takes
// the compat library out of the directory the container toolkit reads).
Status ApplyMove(const Context& ctx, const Instruction& inst, ImageModel& image, const ShellCommand& command) {
  std::string flags;
  std::vector<const ShellWord*> operands = Operands(command, flags);
  if (operands.size() < 2 || flags.find('t') != std::string::npos) return OkStatus();  // -t DIR: not read
  bool exact = true, driver = false;
  for (const ShellWord* word : operands) {
    exact = exact && word->exact;
    driver = driver || MentionsDriver(word->value);
  }
  if (!exact) {
    if (driver) ctx.Unknown(image, inst, "cuda.drivers", "mv of a path that cannot be computed");
    return OkStatus();
  }
  const std::string& dest_word = operands.back()->value;
  bool into_dir = operands.size() > 2 || EndsWith(dest_word, "/");
  std::string dest = CanonicalPath(image, dest_word);
  for (size_t i = 0; i + 1 < operands.size(); ++i) {
    std::string source = CanonicalPath(image, operands[i]->value);
    std::string moved_to = into_dir ? CleanPath(dest + "/" + BaseName(source)) : dest;
    std::string by = "mv " + operands[i]->value.substr(0, 200) + " " + dest_word.substr(0, 200);
    auto rewrite = [&](const std::string& path) -> std::optional<std::string> {
      std::string canonical = CanonicalPath(image, path);
      if (canonical == source) return moved_to;
      if (StartsWith(canonical, source + "/")) return moved_to + canonical.substr(source.size());
      return std::nullopt;
    };
    for (facts::Driver& row : image.drivers) {
      auto moved = rewrite(row.path);
      if (!moved) continue;
      image.changes.push_back({inst.line, by, row});
      row.path = *moved;
      row.name = BaseName(*moved);
      std::vector<std::string> aliases;
      for (const std::string& alias : row.aliases.value_or(std::vector<std::string>{}))
        if (auto moved_alias = rewrite(alias);
            moved_alias && *moved_alias != row.path && std::find(aliases.begin(), aliases.end(), *moved_alias) == aliases.end())
          aliases.push_back(*moved_alias);
      if (aliases.empty()) row.aliases.reset();
      else row.aliases = std::move(aliases);
      row.provenance = ctx.Where(inst, image, "instruction");
    }
    for (facts::Runtime& row : image.runtimes) {
      auto moved = row.path ? rewrite(*row.path) : std::nullopt;
      if (!moved) continue;
      image.changes.push_back({inst.line, by, row});
      row.path = *moved;
      row.provenance = ctx.Where(inst, image, "instruction");
    }
  }
  return OkStatus();
}

}  // namespace imagelint::dockerfile
