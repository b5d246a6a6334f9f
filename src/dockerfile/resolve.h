// Which torch release an installer picks when the Dockerfile does not pin one:
// PEP 440 specifiers against the releases the knowledge tables know, per
// index (a download.pytorch.org variant index, or PyPI with its default CUDA
// per release). The answer is an assumption and says so: the newest release
// known as of the tables' date, which the text of the finding states.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "imagelint/image_knowledge.h"
#include "imagelint/knowledge.h"

namespace imagelint::dockerfile {

// Whether some release of the series `release` ("2.1": 2.1.0, 2.1.1, ...)
// satisfies every clause of a PEP 440 specifier set (">=2.1,<2.3", "~=1.8",
// "==2.1.*", "!=2.2.*"); an empty set is satisfied. nullopt: a clause this
// reader does not know (arbitrary equality, markers), so nothing is assumed.
std::optional<bool> SeriesSatisfies(std::string_view release, std::string_view specifiers);

struct ResolvedTorch {
  std::string release;  // "2.14"
  std::string variant;  // "cu126"
  std::string cuda;     // "12.6"
  std::string source;   // "PyPI default of torch 2.14" or the index
  std::string knowledge;  // sources.yaml id of the row
  std::string unconfirmed;
};

// The newest torch series the tables know that satisfies `specifiers`:
// from the variant index `variant` ("cu126"), or with `variant` empty from
// PyPI (its default CUDA per release). `extra_variant` (an --extra-index-url
// or -f page) competes with PyPI as pip does: the higher version wins, and at
// the same version the `+cuXYZ` local version sorts above PyPI's plain one.
// `python` ("3.8"; "" = not known) leaves out the series with no wheel for
// that interpreter (pypi_releases python_min), as pip skips them.
std::optional<ResolvedTorch> NewestTorch(const Knowledge& knowledge, const PackageKnowledge& packages,
                                         std::string_view variant, std::string_view extra_variant, bool pypi,
                                         std::string_view specifiers, std::string_view python = "");

// The newest `released` month of the torch table ("2026-10"): the date the
// assumption is made as of.
std::string TorchTablesDate(const Knowledge& knowledge);

}  // namespace imagelint::dockerfile
