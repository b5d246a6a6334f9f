// Requirements files written by a RUN (requirements_export.h).
#include "dockerfile/requirements_export.h"

#include <algorithm>
#include <memory>

#include "common/text.h"
#include "dockerfile/build_context.h"
#include "dockerfile/lock_files.h"
#include "dockerfile/util.h"

namespace imagelint::dockerfile {
namespace {

// An image keeps at most this many generated files (each a copy of what a
// lock lists): a Dockerfile exporting in a loop cannot grow the model.
constexpr size_t kMaxGeneratedFiles = 64;

bool Among(const std::vector<std::string>& options, const std::string& option) {
  return std::find(options.begin(), options.end(), option) != options.end();
}

struct ExportWords {
  std::string output, format, project;
  std::vector<std::string> groups, inputs, index_urls, extra_index_urls;
};

ExportWords ReadWords(const RequirementsExporter& row, const ShellCommand& command) {
  ExportWords out;
  const auto& w = command.words;
  for (size_t i = row.command.size(); i < w.size(); ++i) {
    const std::string& word = w[i].value;
    std::string option = word.substr(0, word.find('='));
    const bool inline_value = word.find('=') != std::string::npos && StartsWith(word, "--");
    auto value = [&]() -> std::string {
      if (inline_value) return word.substr(word.find('=') + 1);
      return i + 1 < w.size() ? w[++i].value : "";
    };
    if (Among(row.output_options, option)) out.output = value();
    else if (Among(row.format_options, option)) out.format = value();
    else if (Among(row.project_options, option)) out.project = value();
    else if (Among(row.group_options, option)) {
      for (const std::string& group : SplitOn(value(), ','))
        if (!group.empty()) out.groups.push_back(group);
    } else if (Among(row.valued_options, option)) {
      // An index on a resolver's command line decides the variants it pins.
      std::string taken = value();
      if (taken.empty()) continue;
      if (option == "-i" || option == "--index-url" || option == "--default-index") out.index_urls.push_back(taken);
      else if (option == "--extra-index-url" || option == "--index") out.extra_index_urls.push_back(taken);
    } else if (!StartsWith(word, "-")) {
      out.inputs.push_back(word);
    }
  }
  return out;
}

// Where the command writes: its output option, else its standard output
// redirected to a file, else the row's default beside the first input.
std::string OutputPath(const RequirementsExporter& row, const ExportWords& words, const ShellCommand& command,
                       const ImageModel& image) {
  if (!words.output.empty()) return words.output == "-" ? "" : InRun(image, words.output);
  for (const ShellRedirect& redirect : command.redirects)
    if ((redirect.op == ">" || redirect.op == ">>" || redirect.op == "1>" || redirect.op == ">|") && redirect.target.exact)
      return InRun(image, redirect.target.value);
  if (row.default_output.empty()) return "";
  std::string first = words.inputs.empty() ? (row.default_inputs.empty() ? "" : row.default_inputs.front()) : words.inputs.front();
  if (EndsWith(first, ".in")) return InRun(image, first.substr(0, first.size() - 3) + ".txt");
  std::string dir = DirName(first);
  return InRun(image, dir.empty() ? row.default_output : dir + "/" + row.default_output);
}

// A lock exporter: the lock's packages, or the project's dependencies that
// the lock satisfies when the lock is not there to read.
void ReadLock(const Context& ctx, const ImageModel& image, const RequirementsExporter& row, const ExportWords& words,
              RequirementsRead& out, std::string& note) {
  std::string dir = words.project.empty() ? image.run_cwd : InRun(image, words.project);
  ReadTomlLock(ctx, image, dir, row.lock, out);
  if (!out.files.empty()) {
    note = "from " + out.files.front();
    return;
  }
  std::vector<std::string> why = std::move(out.unread);
  out.unread.clear();
  out.lock_unreadable = false;
  ReadProject(ctx, image, dir, {}, out, words.groups);
  if (!out.files.empty()) {
    note = "from the project's dependencies (" + out.files.front() + "), which " + row.lock + " satisfies; the lock: " +
           (why.empty() ? std::string("not read") : why.front().substr(0, 300));
  } else {
    out.unread.insert(out.unread.begin(), why.begin(), why.end());
  }
}

// A resolver: the requirements of its inputs (requirement files, or a
// project's pyproject.toml / setup.cfg), each resolved later as pip would.
void ReadInputs(const Context& ctx, const ImageModel& image, const RequirementsExporter& row, const ExportWords& words,
                RequirementsRead& out) {
  std::vector<std::string> inputs = words.inputs.empty() ? row.default_inputs : words.inputs;
  for (const std::string& input : inputs) {
    const std::string base = BaseName(input);
    if (base == "pyproject.toml" || base == "setup.cfg" || base == "setup.py") {
      std::string dir = DirName(InRun(image, input));
      ReadProject(ctx, image, dir.empty() ? "/" : dir, {}, out);
    } else {
      ReadRequirements(ctx, image, InRun(image, input), false, out);
    }
  }
  if (!words.index_urls.empty()) out.index_url = words.index_urls.back();
  for (const std::string& url : words.extra_index_urls) out.extra_index_urls.push_back(url);
}

}  // namespace

bool ApplyRequirementsExport(const Context& ctx, const Instruction& inst, ImageModel& image, const ShellCommand& command) {
  std::vector<std::string> words;
  for (const ShellWord& word : command.words) words.push_back(word.value);
  const RequirementsExporter* row = ctx.knowledge.commands().FindExporter(words);
  if (row == nullptr) return false;
  const ExportWords read = ReadWords(*row, command);
  if (!row->formats.empty() && !read.format.empty() && !Among(row->formats, read.format)) return true;
  const std::string output = OutputPath(*row, read, command, image);
  if (output.empty()) return true;  // printed, not written
  auto content = std::make_shared<RequirementsRead>();
  std::string from;
  if (row->from_lock) ReadLock(ctx, image, *row, read, *content, from);
  else ReadInputs(ctx, image, *row, read, *content);
  if (from.empty() && !content->files.empty()) {
    for (const std::string& file : content->files) from += (from.empty() ? "from " : ", ") + file.substr(0, 200);
  }
  std::string command_name;
  for (const std::string& word : row->command) command_name += (command_name.empty() ? "" : " ") + word;
  if (!from.empty()) {
    std::string note = output.substr(0, 200) + " was written by " + command_name + " at line " +
                       std::to_string(inst.line) + " " + from;
    ctx.AddNote(image, inst, command_name + " writes " + output.substr(0, 200) + " " + from);
    content->notes.push_back(std::move(note));
  }
  if (image.generated_requirements.size() < kMaxGeneratedFiles || image.generated_requirements.count(output))
    image.generated_requirements[output] = std::move(content);
  return true;
}

}  // namespace imagelint::dockerfile
