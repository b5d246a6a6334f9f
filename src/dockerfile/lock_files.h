// Lock files that installers read in a RUN (uv sync, poetry install, pdm
// sync): the exact versions they install, read from the build context as
// untrusted text (docs/dockerfile.md "Lock files").
#pragma once

#include <string>

#include "dockerfile/build_context.h"
#include "dockerfile/shell.h"

namespace imagelint::dockerfile {

// The TOML lock formats whose packages are `[[package]]` tables with `name`
// and `version` (uv.lock, poetry.lock, pdm.lock): the packages of
// `container_dir`/`file` as exact requirements, the indexes they come from as
// extra index URLs. A package locked at several versions for different
// platforms is taken at the one that installs on Linux; when that is not
// clear it is not taken and `unread` says why.
void ReadTomlLock(const Context& ctx, const ImageModel& image, const std::string& container_dir,
                  const std::string& file, RequirementsRead& out);

// `pixi install|run|shell-hook` in the project at `project_dir`: the conda
// and PyPI packages pixi.lock locks for the command's environment (-e,
// default "default") and the stage's platform (pixi.cpp).
Status ApplyPixi(const Context& ctx, const Instruction& inst, ImageModel& image, const ShellCommand& command,
                 const std::string& project_dir);

// `pipenv install|sync` of the project at `project_dir`: Pipfile.lock's
// packages, or the Pipfile's when there is no lock and the command may lock
// (pipenv.cpp).
Status ApplyPipenv(const Context& ctx, const Instruction& inst, ImageModel& image, const ShellCommand& command,
                   const std::string& project_dir);

}  // namespace imagelint::dockerfile
