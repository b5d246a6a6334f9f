// Text helpers of the Dockerfile module that common/text.h and
// common/version.h do not provide (those serve everything else).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace imagelint::dockerfile {

// "12.4.1", "535.104.05": starts with a digit, only digits and dots, no trailing dot.
bool IsDottedNumber(std::string_view text);
// "1.12.1" -> "1.12"; text with fewer than two components comes back as it is.
std::string MajorMinor(std::string_view version);
// "/usr//local/cuda/" -> "/usr/local/cuda": no doubled or trailing slashes.
std::string CleanPath(std::string_view path);
// ENV/LABEL/ARG/COPY arguments split at unquoted blanks; quotes and escapes
// stay in the words (ExpandWord reads them).
std::vector<std::string> SplitKeepingQuotes(std::string_view text, char escape);

// The shell's glob match, as fnmatch(3): `*`, `?`, `[...]` (`!`/`^`, ranges),
// `\` escapes; with `pathname` (FNM_PATHNAME) none of them matches `/`.
// Iterative, O(pattern x text) at worst: patterns come from Dockerfiles.
bool GlobMatch(std::string_view pattern, std::string_view text, bool pathname);

}  // namespace imagelint::dockerfile
