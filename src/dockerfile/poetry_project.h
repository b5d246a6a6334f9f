// A Poetry project's own dependency tables (`[tool.poetry.dependencies]`,
// `[tool.poetry.group.<name>.dependencies]`, the legacy
// `[tool.poetry.dev-dependencies]`), read as Poetry reads them
// (https://python-poetry.org/docs/dependency-specification/): its constraint
// syntax becomes PEP 440 specifiers, a dependency's `source` the index it
// comes from, and of several constraints for one package the one whose
// markers hold on Linux. poetry-core builds the same table into a wheel's
// metadata, so `pip install .` of a Poetry project installs it too.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dockerfile/build_context.h"

namespace imagelint::dockerfile {

// Poetry's version constraint as PEP 440 specifiers: "2.2.1" -> "==2.2.1",
// "^2.1" -> ">=2.1,<3", "^0.2.3" -> ">=0.2.3,<0.3", "~1.2" -> ">=1.2,<1.3",
// "1.*" -> "==1.*", "*" -> "" (any), ">=1.2, <1.5" as written; nullopt for
// what Poetry would read but this does not (unions with `||`).
std::optional<std::string> PoetryConstraint(std::string_view constraint);

// The requirements of `text` (a pyproject.toml at context path `file`): the
// main table and each group of `groups` ("dev" also reads the legacy
// dev-dependencies table). Returns false when the file has no
// `[tool.poetry.dependencies]` table; what it cannot read is in out.unread.
bool ReadPoetryDependencies(const std::string& text, const std::string& file, const std::vector<std::string>& groups,
                            RequirementsRead& out);

}  // namespace imagelint::dockerfile
