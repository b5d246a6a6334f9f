// Stage flow: which stages the target builds on (FROM <stage>), the ARG
// scopes of BuildKit, ENV/LABEL, and COPY/ADD (also --from another stage).
#pragma once

#include <map>
#include <string>

#include "dockerfile/context.h"

namespace imagelint::dockerfile {

// COPY/ADD: libcuda files copied in, ld.so.conf files written by heredoc,
// CUDA trees copied from another stage (unknown: their contents are not followed).
Status ApplyCopy(const Context& context, const Instruction& inst, ImageModel& image);

// TARGETPLATFORM, TARGETOS, TARGETARCH... for `platform` ("linux/arm64/v8").
std::map<std::string, std::string> PlatformArgs(const std::string& platform, const std::string& build_platform);

}  // namespace imagelint::dockerfile
