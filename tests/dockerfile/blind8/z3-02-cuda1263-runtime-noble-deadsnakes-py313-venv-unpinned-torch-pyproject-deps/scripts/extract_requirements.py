"""Write [project].dependencies (and any --extra groups) of pyproject.toml, one per line."""
import argparse
import tomllib

p = argparse.ArgumentParser()
p.add_argument("output")
p.add_argument("--extra", action="append", default=[])
a = p.parse_args()
with open("pyproject.toml", "rb") as f:
    project = tomllib.load(f)["project"]
deps = list(project["dependencies"])
for name in a.extra:
    deps += project.get("optional-dependencies", {}).get(name, [])
with open(a.output, "w", encoding="utf-8") as out:
    out.write("\n".join(deps) + "\n")
