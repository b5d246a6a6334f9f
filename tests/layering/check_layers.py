#!/usr/bin/env python3
"""Fails on an #include (or a CMake DEPS entry) that runs against the data flow.

tests/layering/layers.txt lists the library's modules in data-flow order, each
with the modules it may use; this script checks every file under src/ and
include/imagelint/ against it:

  * an include of another module's header (include/imagelint/<h>.h, owned as
    the data file says, or src/<module>/...) needs that module among the
    includer's dependencies; a module may name only modules listed above it;
  * another module's private header (src/<module>/x.h) needs an `allow` line
    for exactly that header (src/common's headers are shared by design);
  * CMake `DEPS imagelint_<module>` of src/<module>/CMakeLists.txt obeys the same;
  * no library file includes cli/ headers or CLI11, and none reads the process
    environment (getenv, environ, isatty) or bakes IMAGELINT_DATA_DIR.

Each exception is an `allow` line with its reason. Exit 0 when clean, 1 with
one line per violation. `--self-test` plants violations in a scratch tree and
checks that each one is caught.
"""
import os
import re
import sys
import tempfile

INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
DEPS = re.compile(r'imagelint_([a-z_]+)')
ENVIRONMENT = re.compile(r'\b(getenv|secure_getenv|environ|isatty|IMAGELINT_DATA_DIR)\b')
SHARED_MODULES = {"common"}  # src/common/*.h are the shared helpers (text.h, version.h)


class Layers:
    def __init__(self, path):
        self.order = []           # modules in data-flow order
        self.deps = {}            # module -> set of modules it may use
        self.headers = {}         # "imagelint/x.h" -> module
        self.allow = {}           # (module, target) -> reason; target: module or header path
        self.env_allow = {}       # (file, token) -> reason
        self.problems = []
        with open(path) as f:
            for number, raw in enumerate(f, 1):
                line = raw.split("#", 1)[0].strip() if not raw.lstrip().startswith("allow") else raw.strip()
                if not line:
                    continue
                where = f"{path}:{number}"
                if line.startswith("allow-env "):
                    m = re.match(r'allow-env\s+(\S+)\s+(\S+)\s*:\s*(.+)', line)
                    if not m:
                        self.problems.append(f"{where}: expected 'allow-env FILE TOKEN: reason'")
                        continue
                    self.env_allow[(m.group(1), m.group(2))] = m.group(3)
                elif line.startswith("allow "):
                    m = re.match(r'allow\s+(\S+)\s*->\s*(\S+)\s*:\s*(.+)', line)
                    if not m:
                        self.problems.append(f"{where}: expected 'allow MODULE -> TARGET: reason'")
                        continue
                    self.allow[(m.group(1), m.group(2))] = m.group(3)
                elif line.startswith("header "):
                    m = re.match(r'header\s+(\S+)\s*:\s*(\S+)$', line)
                    if not m:
                        self.problems.append(f"{where}: expected 'header imagelint/x.h: MODULE'")
                        continue
                    self.headers[m.group(1)] = m.group(2)
                else:
                    m = re.match(r'([a-z_]+)\s*:\s*(.*)$', line)
                    if not m:
                        self.problems.append(f"{where}: expected 'MODULE: DEPENDENCY...'")
                        continue
                    module, deps = m.group(1), m.group(2).split()
                    for dep in deps:
                        if dep not in self.deps:
                            self.problems.append(f"{where}: {module} depends on {dep}, which is not listed above it "
                                                 "(dependencies run with the data flow)")
                    self.order.append(module)
                    self.deps[module] = set(deps)

    def owner_of_public(self, header):
        if header in self.headers:
            return self.headers[header]
        name = os.path.splitext(os.path.basename(header))[0]
        return name if name in self.deps else None


def check(root, layers_path):
    layers = Layers(layers_path)
    problems = list(layers.problems)
    used_allows = set()
    src = os.path.join(root, "src")
    modules = sorted(d for d in os.listdir(src) if os.path.isdir(os.path.join(src, d)))
    for module in modules:
        if module != "cli" and module not in layers.deps:
            problems.append(f"src/{module}: not placed in {layers_path} (add it where it sits in the data flow)")

    def allowed(module, target):
        if (module, target) in layers.allow:
            used_allows.add((module, target))
            return True
        return False

    def check_use(module, other, what, private_header=None):
        if other == module or other is None:
            return None
        if module == "cli":
            if private_header and other not in SHARED_MODULES and not allowed(module, private_header):
                return f"includes {private_header}, a private header of {other} (use its public header)"
            return None
        if other == "cli":
            return f"{what}: a library module depends on the command line"
        if private_header and other not in SHARED_MODULES:
            if allowed(module, private_header):
                return None
            return f"includes {private_header}, a private header of {other}"
        if other in layers.deps.get(module, set()):
            return None
        if allowed(module, other):
            return None
        if other in layers.deps and module in layers.deps and layers.order.index(other) > layers.order.index(module):
            return f"{what}: runs backwards ({other} comes after {module} in the data flow)"
        return f"{what}: {other} is not among {module}'s dependencies"

    files = []
    for base in ("src", os.path.join("include", "imagelint")):
        for dirpath, _, names in os.walk(os.path.join(root, base)):
            for name in names:
                files.append(os.path.join(dirpath, name))
    for path in sorted(files):
        rel = os.path.relpath(path, root)
        parts = rel.split(os.sep)
        if parts[0] == "include":
            module = layers.owner_of_public("imagelint/" + parts[-1])
            if module is None:
                problems.append(f"{rel}: no module owns this public header (add a 'header' line)")
                continue
        else:
            module = parts[1]
        if parts[-1] == "CMakeLists.txt":
            if module == "cli":
                continue
            with open(path) as f:
                text = f.read()
            m = re.search(r'DEPS([^)]*)\)', text)
            for dep in DEPS.findall(m.group(1) if m else ""):
                problem = check_use(module, dep, f"DEPS imagelint_{dep}")
                if problem:
                    problems.append(f"{rel}: {problem}")
            continue
        if not rel.endswith((".h", ".hpp", ".cpp", ".cc")):
            continue
        with open(path, errors="replace") as f:
            lines = f.readlines()
        for number, line in enumerate(lines, 1):
            where = f"{rel}:{number}"
            if module != "cli":
                code = line.split("//", 1)[0]
                for token in ENVIRONMENT.findall(code):
                    file_key = "/".join(parts)
                    if (file_key, token) in layers.env_allow:
                        used_allows.add(("env", file_key, token))
                    else:
                        problems.append(f"{where}: {token}: the library reads no environment (src/cli passes values in)")
            m = INCLUDE.match(line)
            if not m:
                continue
            bracket, header = m.groups()
            if bracket == "<":
                if header.startswith("CLI/") and module != "cli":
                    problems.append(f"{where}: <{header}>: CLI11 belongs to src/cli")
                continue
            if header.startswith("imagelint/"):
                other = layers.owner_of_public(header)
                if other is None:
                    problems.append(f"{where}: {header}: no module owns it")
                    continue
                problem = check_use(module, other, header)
            elif "/" in header:
                other = header.split("/", 1)[0]
                problem = check_use(module, other, header, private_header=header)
            else:
                continue  # beside the includer: its own module
            if problem:
                problems.append(f"{where}: {problem}")
    stale = [f"allow {m} -> {t}" for (m, t) in layers.allow if (m, t) not in used_allows]
    stale += [f"allow-env {f} {t}" for (f, t) in layers.env_allow if ("env", f, t) not in used_allows]
    return problems, stale


def self_test(layers_path):
    """Each planted violation must be reported; the clean tree must pass."""
    plants = {
        "backward include (cache uses scan internals)": ("src/cache/x.cpp", '#include "scan/scanner.h"\n'),
        "backward public include (knowledge uses analysis)": ("src/knowledge/x.cpp", '#include "imagelint/analysis.h"\n'),
        "scan doing the merge": ("src/scan/x.cpp", '#include "imagelint/tree.h"\n'),
        "library includes cli/": ("src/report/x.cpp", '#include "cli/options.h"\n'),
        "library includes CLI11": ("src/config/x.cpp", '#include <CLI/CLI.hpp>\n'),
        "library reads the environment": ("src/rules/x.cpp", 'const char* d = std::getenv("X");\n'),
    }
    layers = ("common:\nknowledge: common\nsource: common\nscan: common source\ncache: common scan\n"
              "merge: common scan\nrules: common\nanalysis: common knowledge rules\nconfig: common rules analysis\n"
              "report: common rules analysis config\nheader imagelint/tree.h: merge\n")
    failures = 0
    for name, planted in [("clean tree", None)] + list(plants.items()):
        with tempfile.TemporaryDirectory() as root:
            for module in ("common", "knowledge", "source", "scan", "cache", "merge", "rules", "analysis",
                           "config", "report", "cli"):
                os.makedirs(os.path.join(root, "src", module))
            os.makedirs(os.path.join(root, "include", "imagelint"))
            for header in ("analysis.h", "tree.h", "rules.h"):
                open(os.path.join(root, "include", "imagelint", header), "w").close()
            open(os.path.join(root, "src", "scan", "scanner.h"), "w").close()
            open(os.path.join(root, "src", "cli", "options.h"), "w").write('#include <CLI/CLI.hpp>\n')
            open(os.path.join(root, "src", "analysis", "a.cpp"), "w").write('#include "imagelint/rules.h"\n')
            if planted:
                open(os.path.join(root, planted[0]), "w").write(planted[1])
            path = os.path.join(root, "layers.txt")
            open(path, "w").write(layers)
            problems, _ = check(root, path)
            caught = bool(problems)
            if caught != (planted is not None):
                failures += 1
                print(f"self-test: {name}: {'reported' if caught else 'not reported'}: {problems}")
    print(f"self-test: {len(plants)} planted violations, {failures} failures")
    return 1 if failures else 0


def main():
    root = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
    layers_path = os.path.join(root, "tests", "layering", "layers.txt")
    if "--self-test" in sys.argv:
        return self_test(layers_path)
    problems, stale = check(root, layers_path)
    for problem in problems:
        print(problem)
    for entry in stale:
        print(f"note: {entry} no longer needed; remove it from tests/layering/layers.txt")
    print(f"layering: {len(problems)} violation(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
