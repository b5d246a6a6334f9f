// File operations in RUN that change driver and loader facts: rm, ln, mv, and
// writes into /etc/ld.so.conf(.d).
#pragma once

#include <string>

#include "dockerfile/context.h"
#include "dockerfile/shell.h"

namespace imagelint::dockerfile {

Status ApplyRemove(const Context& context, const Instruction& inst, ImageModel& image, const ShellCommand& command);
Status ApplyLink(const Context& context, const Instruction& inst, ImageModel& image, const ShellCommand& command);
Status ApplyMove(const Context& context, const Instruction& inst, ImageModel& image, const ShellCommand& command);

// `echo DIR > /etc/ld.so.conf.d/x.conf` (and tee, printf, COPY heredocs):
// the loader will search DIR. `truncate`: the file is rewritten, not appended to.
void WriteLdSoConf(const Context& context, const Instruction& inst, ImageModel& image, const ShellWord& target,
                   const std::string& text, bool exact, bool truncate);

// A path as the image resolves it: clean, and through the /usr/local/cuda
// symlink to the toolkit directory it points at.
std::string CanonicalPath(const ImageModel& image, const std::string& path);

// The kind of a libcuda by where it lives: stub (…/stubs/), compat (…/compat/), else bundled.
std::string DriverKindOf(const std::string& canonical_path);

}  // namespace imagelint::dockerfile
