// The context every step shares: errors at an instruction, BuildKit's word
// expansion, and the provenance stamped on each fact row.
#include "dockerfile/context.h"

namespace imagelint::dockerfile {
namespace {
// image.layers[].created_by and rows' created_by: enough to recognise the
// instruction, bounded so that a huge RUN does not repeat in every row.
constexpr size_t kMaxCreatedBy = 400;
}  // namespace

std::string CreatedBy(const Instruction& inst) {
  return inst.original.size() > kMaxCreatedBy ? inst.original.substr(0, kMaxCreatedBy) + "…" : inst.original;
}

Error Context::ErrorAt(const Instruction& inst, const std::string& message) const {
  return MakeErrorAtLine(file.path, inst.line, inst.column, message);
}

Result<std::string> Context::Expand(const Instruction& inst, std::string_view word,
                                    const std::map<std::string, std::string>& vars, bool* exact) const {
  auto expanded = ExpandWord(word, vars, file.escape);
  if (!expanded.ok()) return ErrorAt(inst, expanded.error().message);
  if (exact) *exact = expanded->exact;
  return expanded->value;
}

facts::Provenance Context::Where(const Instruction& inst, const ImageModel& image, const std::string& origin) const {
  facts::Provenance where;
  where.dockerfile = file.path;
  where.dockerfile_line = inst.line;
  where.layer = image.layers.empty() ? 0 : image.layers.size() - 1;
  where.created_by = CreatedBy(inst);
  where.origin = origin;
  return where;
}

facts::Layer Context::MakeLayer(const Instruction& inst, bool base_image) const {
  facts::Layer layer;
  layer.created_by = CreatedBy(inst);
  layer.dockerfile = file.path;
  layer.dockerfile_line = inst.line;
  layer.instruction = inst.keyword;
  if (base_image) layer.base_image = true;
  // Only RUN, COPY and ADD make file-system layers (BuildKit marks the rest empty_layer).
  if (!base_image && inst.keyword != "RUN" && inst.keyword != "COPY" && inst.keyword != "ADD") layer.empty_layer = true;
  return layer;
}

void Context::Unknown(ImageModel& image, const Instruction& inst, const std::string& fact,
                      const std::string& reason, const std::string& decide) const {
  image.unknown.push_back({fact, file.path, inst.line, reason, decide.empty() ? std::nullopt : std::optional(decide)});
  if (fact == "frameworks") MayReplaceFrameworks(image, inst.line, reason);
}

// An install the reader cannot follow may upgrade or downgrade the Python
// frameworks installed before it (pip replaces a release that a requirement
// pins differently): what each brings that a verdict rests on, its GPU code
// and its CUDA runtime, is then not known. The rows stay, saying so.
void MayReplaceFrameworks(ImageModel& image, int line, const std::string& reason) {
  for (facts::Framework& row : image.frameworks) {
    if (row.replaceable || row.provenance.dockerfile_line.value_or(0) >= line) continue;
    const std::string why = "line " + std::to_string(line) + " may replace it: " + reason.substr(0, 300);
    row.replaceable = why;
    row.sass.reset();
    row.ptx.reset();
    const std::string package = row.package.value_or(row.name);
    for (facts::Runtime& runtime : image.runtimes)
      if (runtime.package && (*runtime.package == package || *runtime.package == row.name) && runtime.version) {
        runtime.version = std::nullopt;
        runtime.version_unknown_reason = row.name + " " + why;
      }
  }
}

void Context::AddNote(ImageModel& image, const Instruction& inst, const std::string& text) const {
  image.notes.push_back({inst.line, text});
}

}  // namespace imagelint::dockerfile
