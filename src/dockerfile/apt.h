// apt-get / apt / yum / dnf / zypper and dpkg: packages that install or remove
// a libcuda or libcudart (system_packages in packages.yaml).
#pragma once

#include <string>
#include <string_view>

#include "dockerfile/context.h"
#include "dockerfile/shell.h"

namespace imagelint::dockerfile {

bool IsSystemPackageManager(std::string_view tool);
Status ApplyApt(const Context& context, const Instruction& inst, ImageModel& image, const ShellCommand& command);
Status ApplyDpkg(const Context& context, const Instruction& inst, ImageModel& image, const ShellCommand& command);

// Removes the driver and runtime rows whose package matches `spec` (a name or
// glob, `=version` ignored), recording each removal with the line.
void RemovePackage(ImageModel& image, int line, const std::string& spec);

}  // namespace imagelint::dockerfile
