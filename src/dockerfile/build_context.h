// The build context as a pre-merge gate sees it: the files a Dockerfile
// COPYs from the repository are there. What installs depend on is read from
// them: requirement files (with -r/-c includes and index options), the
// dependencies of a project installed with `pip install .` (pyproject.toml,
// setup.cfg) and conda environment files. Every file is untrusted input:
// bounded in size, count and include depth, include cycles reported, text that
// is not UTF-8 refused, and nothing outside the context is read (symbolic
// links that lead out of it, `..` paths, files that are not regular).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "dockerfile/context.h"
#include "dockerfile/pip.h"

namespace imagelint::dockerfile {

// What a requirements file (and the files it includes) asks pip for.
struct RequirementsRead {
  std::vector<Requirement> requirements;        // origin: "requirements.txt:3"
  std::map<std::string, Requirement> constraints;  // -c files, by name
  std::string index_url;                        // the last -i/--index-url of the files
  std::vector<std::string> extra_index_urls;
  std::vector<std::string> find_links;
  std::vector<std::string> unread;              // what was not read, and why
  std::vector<std::string> files;               // context paths read
  bool lock_unreadable = false;                 // a lock file was there, but not one imagelint could read
  // How a file written during the build came to list what it lists ("written
  // by poetry export at line 5 from app/poetry.lock"), said on the install's line.
  std::vector<std::string> notes;
};

// Adds one requirement line (PEP 508) read from a file at `origin`
// ("pyproject.toml:12"); a URL or path is recorded as unread.
void AddRequirement(const std::string& text, const std::string& origin, bool constraints, RequirementsRead& out);

// Where the image has `container_path` from: the context path (relative to
// the context) of the file, or why it has none ("not copied from the build
// context", "excluded by .dockerignore").
struct ContextSource {
  std::optional<std::string> path;
  std::string why_not;
};
ContextSource FindInContext(const Context& ctx, const ImageModel& image, const std::string& container_path);

// Reads one context file, bounded (by `max_bytes`, 0 = the limit of one
// install file); the error text says what is wrong with it.
Result<std::string> ReadContextFile(const Context& ctx, const std::string& context_path, size_t max_bytes = 0);

// `pip install -r FILE` (or -c FILE: constraints) at `container_path`.
void ReadRequirements(const Context& ctx, const ImageModel& image, const std::string& container_path,
                      bool constraints, RequirementsRead& out);

// The build backend (and the pyproject.toml naming it) of the project at
// `container_dir` when it is a python_build_backends row (a pure-Python
// build) and the project declares no build hook: building it compiles no GPU
// code. nullopt when the project is not in the context, names another
// backend, or may run a hook.
std::optional<std::string> PurePythonBuild(const Context& ctx, const ImageModel& image, const std::string& container_dir);

// `pip install DIR[extras]`: the project's declared dependencies from
// pyproject.toml ([project] dependencies, optional-dependencies of the
// extras) or setup.cfg ([options] install_requires); setup.py is a program
// and is not run. A Poetry project's own table is read with `poetry_groups`
// ("*": every group not marked optional, as `poetry install` takes them).
void ReadProject(const Context& ctx, const ImageModel& image, const std::string& container_dir,
                 const std::vector<std::string>& extras, RequirementsRead& out,
                 const std::vector<std::string>& poetry_groups = {});

// A conda environment file (environment.yml): channels, conda specs, and the
// pip requirements of its `- pip:` entry.
struct EnvironmentRead {
  std::vector<std::string> channels;
  std::vector<std::string> conda_specs;
  std::vector<std::string> pip_requirements;
  std::string unread;  // why the file was not read ("" when it was)
  std::string file;    // context path read
};
EnvironmentRead ReadEnvironment(const Context& ctx, const ImageModel& image, const std::string& container_path);

// What a COPY/ADD of the context brings that may hold GPU code: its ELF files
// (executables, shared libraries, objects), found by their magic bytes. The
// walk follows no symbolic link, honours .dockerignore and is bounded in
// entries and depth; `unread` says why it stopped, if it did.
struct CopiedElf {
  std::vector<std::string> elf;  // context paths, the first few
  size_t elf_count = 0;
  std::string unread;
  // Each ELF file with the path COPY gives it in the image, up to
  // ContextLimits::max_binary_files / max_binary_bytes (then `over_limit`).
  std::vector<ContextFile> files;
  uint64_t bytes = 0;
  bool over_limit = false;
};
// `dest` is the COPY's destination in the image (absolute), `dest_dir`
// whether it names a directory (a trailing '/', several sources, ".").
CopiedElf FindCopiedElf(const Context& ctx, const std::vector<std::string>& sources, const std::string& dest,
                        bool dest_dir);

// The container path of a word a RUN gives relative to its directory.
std::string InRun(const ImageModel& image, const std::string& word);

// An absolute container path with `.` and `..` resolved as the kernel would
// without links ("/app/./x" -> "/app/x", "/c/../../etc" -> "/etc").
std::string NormalPath(std::string_view path);

}  // namespace imagelint::dockerfile
