// pip, pip3, python -m pip and uv pip: which Python packages a command
// installs or removes, and the CUDA build each framework gets.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dockerfile/context.h"
#include "dockerfile/shell.h"

namespace imagelint::dockerfile {

// `command.words[first]` is the first word after `pip` (or `uv pip`).
// Installers that install a project from its lock file: `uv sync` (and
// `uv run`, which syncs first), `poetry install|sync`, `pdm install|sync`,
// `pipenv install|sync` and `pixi install|run|shell-hook` read uv.lock /
// poetry.lock / pdm.lock / Pipfile.lock / pixi.lock in the project's
// directory (lock_files.h). Returns false when `command` is none of these.
bool ApplyLockedInstall(const Context& ctx, const Instruction& inst, ImageModel& image, const ShellCommand& command);

// Where a pip command puts its packages: the venv its executable (or
// --python) lives in, --prefix/--target (`option_root`), $VIRTUAL_ENV, the
// first venv-like directory on $PATH, else the system prefix /usr/local
// (pip's scheme for Debian and the python images). Only COPY --from reads it.
std::string InstallRoot(const ImageModel& image, const ShellCommand& command, const std::string& option_root);

Status ApplyPip(const Context& context, const Instruction& inst, ImageModel& image, const ShellCommand& command,
                size_t first, bool uv);

// One requirement of a pip command line (PEP 508 subset: name, extras, `==`
// pins; wheel file names). nullopt: a URL, a path, a VCS reference, or text
// the scanner does not read (too long, several lines).
struct Requirement {
  std::string name;  // normalized
  std::vector<std::string> extras;
  std::string version;  // "1.12.1+cu113" from ==, ===, = or a wheel name; "" = not pinned
  std::string specifier;  // PEP 440 specifiers when not one exact pin (">=2.1,<2.3", "~=1.8", "==2.1.*")
  std::string assumed_because;  // a requirement imagelint adds (a companion's torch): why
  std::string origin;           // read from a file: "requirements.txt:3"
  // The one index this requirement comes from (Poetry's `source =`), over the
  // command's own; "" = the command's indexes.
  std::string index_url;
  bool exact = true;    // false: a shell value in it could not be computed
  std::string raw;
};
std::optional<Requirement> ParseRequirement(const ShellWord& word);

// The variant an index URL selects for a package served from `hosts`, named
// by the path segment after one of `paths` (the package row's index_paths):
// https://download.pytorch.org/whl/cu121 -> "cu121", .../whl/cpu -> "cpu",
// .../whl/nightly/rocm6.2 -> "rocm6.2"; "" when the URL says none.
std::string IndexVariant(std::string_view url, const std::vector<std::string>& hosts,
                         const std::vector<std::string>& paths);

// PyTorch's variant names: "cu113" -> "11.3", "cu92" -> "9.2", "cu130" -> "13.0"; "" for others.
std::string CudaFromVariant(std::string_view variant);

}  // namespace imagelint::dockerfile
