// COPY and ADD (https://docs.docker.com/reference/dockerfile/#copy).
//
// A copied file is known only by its name: a `libcuda.so.<version>` is a
// driver (kind by directory: stubs/, compat/, else bundled) with the version
// its name carries; a heredoc written to /etc/ld.so.conf.d is a loader entry.
// `COPY --from=<stage or image>` brings the runtime and libcuda rows of that
// model whose files (or the links to them) lie under the source, moved to the
// destination; only when that model's rows are themselves unknown do drivers
// and runtimes become unknown rather than guessed.
#include "common/text.h"
#include "dockerfile/build_code.h"
#include "dockerfile/build_context.h"
#include "dockerfile/file_ops.h"
#include "dockerfile/frameworks.h"
#include "dockerfile/stages.h"
#include "dockerfile/util.h"

namespace imagelint::dockerfile {
namespace {

// A row brought by this COPY: the instruction's provenance, keeping what
// knowledge the value rests on.
facts::Provenance CopiedHere(const Context& ctx, const Instruction& inst, const ImageModel& image,
                             const facts::Provenance& original) {
  facts::Provenance where = ctx.Where(inst, image, "instruction");
  where.knowledge = original.knowledge;
  where.unconfirmed = original.unconfirmed;
  return where;
}

// `COPY --from=<stage> <source> <dest>`: the stage's framework rows whose
// files lie under `source` (a venv, /usr/local, a conda prefix) come along, so a
// torch installed in a builder and copied into a thin final stage is still
// read. Their provenance names the COPY; the original install stays in `origin`.
void CopyFrameworks(const Context& ctx, const Instruction& inst, ImageModel& image, const ImageModel& stage,
                    const std::string& source, const std::string& dest) {
  std::string from = CleanPath(source);
  for (const facts::Framework& row : stage.frameworks) {
    auto root = stage.framework_roots.find(row.name);
    std::string at = root == stage.framework_roots.end() ? "" : root->second;
    if (at.empty()) continue;
    bool inside = from == "/" || at == from || StartsWith(at, from + "/");
    // Only the site-packages of the prefix: `COPY --from=b /usr/local/lib/python3.11/site-packages ...`.
    bool packages = StartsWith(from, at + "/") && (from.find("site-packages") != std::string::npos ||
                                                   from.find("dist-packages") != std::string::npos);
    if (!inside && !packages) continue;
    for (const facts::Runtime& runtime : stage.runtimes)
      if (runtime.package == row.package && runtime.path && StartsWith(*runtime.path, "<")) {
        facts::Runtime copy = runtime;
        copy.provenance = CopiedHere(ctx, inst, image, runtime.provenance);
        image.PutRuntime(std::move(copy));
      }
    if (packages) {
      facts::Framework copy = row;
      copy.provenance = ctx.Where(inst, image, "instruction");
      ReplaceFramework(image, std::move(copy));
      image.framework_roots[row.name] = CleanPath(dest) == from ? at : "";
      continue;
    }
    // A directory source copies its contents into the destination directory.
    std::string target = CleanPath(dest);
    std::string moved = from == "/" ? at : CleanPath(target + at.substr(from.size()));
    facts::Framework copy = row;
    copy.provenance = ctx.Where(inst, image, "instruction");
    ReplaceFramework(image, std::move(copy));
    image.framework_roots[row.name] = moved;
  }
}

// Where COPY puts `file` when it copies `source` (a file, a directory whose
// contents land in `dest`, or a glob of one directory's entries); nullopt when
// `file` is not copied. BuildKit follows a link named as the source, so a row
// reached through one of its aliases (/usr/local/cuda -> cuda-12.4) is copied.
std::optional<std::string> CopiedTo(const std::string& file, const std::string& source, const std::string& dest,
                                    bool dest_dir) {
  std::string from = CleanPath(source), target = CleanPath(dest);
  if (file == from) return dest_dir ? CleanPath(target + "/" + BaseName(file)) : target;
  if (from == "/" || from.empty()) return CleanPath(target + "/" + file);
  if (StartsWith(file, from + "/")) return CleanPath(target + "/" + file.substr(from.size()));
  size_t slash = from.rfind('/');
  if (from.find_first_of("*?[") != std::string::npos && slash != std::string::npos &&
      from.find_first_of("*?[") > slash && StartsWith(file, from.substr(0, slash + 1)) &&
      GlobMatch(from.substr(slash + 1), file.substr(slash + 1), true))
    return CleanPath(target + "/" + file.substr(slash + 1));
  return std::nullopt;
}

// The source as the copied model resolves it: /usr/local/cuda[/...] is the
// link to its toolkit directory (cuda_link -> cuda_home).
std::string ResolvedSource(const ImageModel& stage, const std::string& source) {
  std::string from = CleanPath(source);
  if (stage.cuda_link.empty() || stage.cuda_home.empty()) return from;
  if (from == stage.cuda_link || StartsWith(from, stage.cuda_link + "/"))
    return stage.cuda_home + from.substr(stage.cuda_link.size());
  return from;
}

template <typename Row>
std::optional<std::string> RowCopiedTo(const Row& row, const std::string& path, const std::string& source,
                                       const std::string& resolved, const std::string& dest, bool dest_dir) {
  if (path.empty() || path[0] != '/') return std::nullopt;
  if (auto moved = CopiedTo(path, source, dest, dest_dir)) return moved;
  if (resolved != CleanPath(source))
    if (auto moved = CopiedTo(path, resolved, dest, dest_dir)) return moved;
  for (const std::string& alias : row.aliases.value_or(std::vector<std::string>{}))
    if (auto moved = CopiedTo(alias, source, dest, dest_dir)) return moved;
  return std::nullopt;
}

// The stage's (or image's) libcudart and libcuda rows under `source`, at their
// new place. Returns whether that model's rows are known (else the copy is not
// followed and the caller marks them unknown).
bool CopyCudaRows(const Context& ctx, const Instruction& inst, ImageModel& image, const ImageModel& stage,
                  const std::string& source, const std::string& dest, bool dest_dir, const std::string& from) {
  const std::string resolved = ResolvedSource(stage, source);
  // Past the limit the caller stops the build; no row more is worth copying.
  auto full = [&] { return image.drivers.size() + image.runtimes.size() > ctx.options.limits.max_library_rows; };
  for (const facts::Runtime& row : stage.runtimes) {
    if (full()) break;
    auto moved = RowCopiedTo(row, row.path.value_or(""), source, resolved, dest, dest_dir);
    if (!moved) continue;
    facts::Runtime copy = row;
    copy.provenance = CopiedHere(ctx, inst, image, row.provenance);
    copy.path = *moved;
    copy.aliases.reset();
    image.PutRuntime(std::move(copy));
  }
  for (const facts::Driver& row : stage.drivers) {
    if (full()) break;
    auto moved = RowCopiedTo(row, row.path, source, resolved, dest, dest_dir);
    if (!moved) continue;
    facts::Driver copy = row;
    copy.provenance = CopiedHere(ctx, inst, image, row.provenance);
    copy.path = *moved;
    copy.name = BaseName(*moved);
    copy.aliases.reset();
    copy.kind = DriverKindOf(CanonicalPath(image, *moved));
    copy.copied_from = source;
    copy.copied_from_stage = from;
    image.PutDriver(std::move(copy));
  }
  return stage.runtimes_known && stage.drivers_known && !stage.HasUnknown("cuda.runtimes") &&
         !stage.HasUnknown("cuda.drivers");
}


// What a COPY/ADD of the build context may bring of GPU code: ELF files of
// the context, read by options.context_binaries with the image analyzers
// (without a reader they stay undecided, named), archives ADD unpacks and
// URLs ADD downloads (not read). Without a context nothing of it is seen.
void CopiedBinaries(const Context& ctx, const Instruction& inst, ImageModel& image, const std::vector<std::string>& words,
                    const ImageModel::ContextCopy& copy) {
  const std::vector<std::string>& sources = copy.sources;
  for (size_t i = 0; i + 1 < words.size(); ++i)
    if (words[i].find("://") != std::string::npos)
      ctx.Unknown(image, inst, "binaries", inst.keyword + " downloads " + words[i].substr(0, 200) + ", which is not read",
                  "scan the built image");
  if (sources.empty()) return;
  if (inst.keyword == "ADD")
    for (const std::string& source : sources)
      for (std::string_view ext : {".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tbz2", ".tar.xz", ".txz", ".tar.zst"})
        if (EndsWith(ToLower(source), ext)) {
          ctx.Unknown(image, inst, "binaries", "ADD unpacks the archive " + source.substr(0, 200) + ", whose files are not read",
                      "scan the built image");
          break;
        }
  if (ctx.options.context_dir.empty()) {
    ctx.Unknown(image, inst, "binaries", "copies files from the build context, which was not read",
                "give the build context (imagelint --context DIR, the folder docker build gets)");
    return;
  }
  CopiedElf found = FindCopiedElf(ctx, sources, copy.dest, copy.dest_dir);
  if (!found.unread.empty())
    ctx.Unknown(image, inst, "binaries", "copies from the build context: " + found.unread, "scan the built image");
  if (found.elf_count == 0) return;
  if (ctx.options.context_binaries != nullptr && !found.over_limit && found.unread.empty()) {
    auto rows = ctx.options.context_binaries->Read(found.files);
    if (rows.ok() && image.built_binaries.size() + rows->size() <= kMaxBuiltBinaries) {
      for (facts::Binary& row : *rows) {
        row.provenance = ctx.Where(inst, image, "instruction");
        row.source = "build context: " + inst.keyword;
        image.built_binaries.push_back(std::move(row));
      }
      return;
    }
    std::string why = rows.ok() ? "over " + std::to_string(kMaxBuiltBinaries) + " binaries with GPU code"
                                : rows.error().ToString();
    ctx.Unknown(image, inst, "binaries", "copies ELF files from the build context that were not read: " + why.substr(0, 300),
                "scan the built image");
    return;
  }
  std::string names;
  for (const std::string& name : found.elf) names += (names.empty() ? "" : ", ") + name.substr(0, 200);
  ctx.Unknown(image, inst, "binaries",
              "copies " + std::to_string(found.elf_count) + " ELF file" + (found.elf_count == 1 ? "" : "s") +
                  " from the build context (" + names + (found.elf_count > found.elf.size() ? ", …" : "") +
                  "): their GPU code is not read",
              "scan the built image");
}

}  // namespace

Status ApplyCopy(const Context& ctx, const Instruction& inst, ImageModel& image) {
  auto vars = image.Vars();
  std::string from_stage;
  for (const Flag& flag : inst.flags)
    if (flag.name == "from") {
      auto expanded = ctx.Expand(inst, flag.value, vars);
      if (!expanded.ok()) return expanded.error();
      from_stage = *expanded;
    }
  std::vector<std::string> words;
  if (inst.json_form) {
    words = inst.json_arguments;
  } else {
    for (const std::string& raw : SplitKeepingQuotes(inst.arguments, ctx.file.escape)) {
      auto expanded = ctx.Expand(inst, raw, vars);
      if (!expanded.ok()) return expanded.error();
      words.push_back(*expanded);
    }
  }
  if (words.size() < 2 && inst.heredocs.empty())
    return ctx.ErrorAt(inst, inst.keyword + " requires a source and a destination");
  if (words.empty()) return OkStatus();
  const std::string& dest = words.back();
  bool dest_dir = EndsWith(dest, "/") || words.size() > 2;
  for (const Heredoc& doc : inst.heredocs) {  // COPY <<EOF /etc/ld.so.conf.d/compat.conf
    std::string path = dest_dir ? CleanPath(dest) + "/" + doc.delimiter : dest;
    if (StartsWith(path, "/etc/ld.so.conf")) WriteLdSoConf(ctx, inst, image, ShellWord{path, true, false}, doc.body, true, true);
  }
  if (from_stage.empty()) {
    ImageModel::ContextCopy copy;
    for (size_t i = 0; i + 1 < words.size(); ++i)
      if (!StartsWith(words[i], "<<") && words[i].find("://") == std::string::npos) copy.sources.push_back(words[i]);
    copy.dest = NormalPath(StartsWith(dest, "/") ? dest : image.workdir + "/" + dest);
    copy.dest_dir = dest_dir || dest == "." || dest == "./";
    copy.line = inst.line;
    CopiedBinaries(ctx, inst, image, words, copy);
    if (!copy.sources.empty() && image.context_copies.size() < 4096) image.context_copies.push_back(std::move(copy));
  }
  const ImageModel* stage = nullptr;
  if (!from_stage.empty() && ctx.stage_model) stage = ctx.stage_model(from_stage, inst.stage);
  if (!from_stage.empty() && !stage && ctx.image_model) {
    stage = ctx.image_model(from_stage, inst);
    // Why the image was not read ("image REF not read (docker: …)") belongs
    // to this instruction's report, as it does for a FROM.
    if (stage)
      for (const facts::DockerfileNote& note : stage->notes)
        ctx.AddNote(image, inst, "COPY --from: " + (StartsWith(note.note, "base image ") ? note.note.substr(5) : note.note));
  }
  if (!from_stage.empty() && (!stage || !stage->binaries_known || stage->HasUnknown("binaries") ||
                              !stage->built_binaries.empty() || !stage->base_binaries.empty()))
    ctx.Unknown(image, inst, "binaries",
                "copies from " + from_stage.substr(0, 200) + ", whose GPU code is not known file by file",
                "scan the built image");
  for (size_t i = 0; i + 1 < words.size(); ++i) {
    const std::string& source = words[i];
    if (StartsWith(source, "<<")) continue;
    bool followed = false;
    if (stage) {
      CopyFrameworks(ctx, inst, image, *stage, source, dest);
      // A requirements file the stage wrote (`poetry export -o`) keeps what it lists.
      for (const auto& [path, content] : stage->generated_requirements)
        if (auto moved = CopiedTo(path, source, dest, dest_dir); moved && image.generated_requirements.size() < 64)
          image.generated_requirements[*moved] = content;
      followed = CopyCudaRows(ctx, inst, image, *stage, source, dest, dest_dir, from_stage);
      // Copying a stage into the next one twice doubles its rows per stage.
      const size_t rows = image.drivers.size() + image.runtimes.size();
      if (rows > ctx.options.limits.max_library_rows)
        return ctx.ErrorAt(inst, "the image would hold " + std::to_string(rows) +
                                     " libcuda and libcudart files, over imagelint's limit of " +
                                     std::to_string(ctx.options.limits.max_library_rows) + " (max_library_rows)");
    }
    std::string base = BaseName(CleanPath(source));
    if (StartsWith(base, "libcuda.so") || (base.find('*') != std::string::npos && GlobMatch(base, "libcuda.so.1", false))) {
      std::string path = dest_dir ? CleanPath(dest) + "/" + base : dest;
      std::string version = StartsWith(base, "libcuda.so.") ? base.substr(11) : "";
      facts::Driver row;
      row.provenance = ctx.Where(inst, image, "instruction");
      row.name = BaseName(path);
      row.path = path;
      if (IsDottedNumber(version) && version.find('.') != std::string::npos) row.version = version;
      row.kind = DriverKindOf(CanonicalPath(image, path));
      row.source = "copy";
      row.copied_from = source;
      if (!from_stage.empty()) row.copied_from_stage = from_stage;
      image.PutDriver(std::move(row));
      continue;
    }
    if (!from_stage.empty() && !followed &&
        (StartsWith(CleanPath(source), "/usr/local/cuda") || source.find("nvidia") != std::string::npos)) {
      std::string what = "copies " + source.substr(0, 200) + " from " + from_stage.substr(0, 200) + ": contents not followed";
      ctx.Unknown(image, inst, "cuda.drivers", what);
      ctx.Unknown(image, inst, "cuda.runtimes", what);
    }
    if (inst.keyword == "ADD" && EndsWith(source, ".run"))
      ctx.AddNote(image, inst, "adds installer " + source.substr(0, 200) + " (not read)");
  }
  return OkStatus();
}

}  // namespace imagelint::dockerfile
