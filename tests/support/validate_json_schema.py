#!/usr/bin/env python3
"""Validates JSON documents against a JSON Schema (draft 2020-12).

usage: validate_json_schema.py SCHEMA.json DOCUMENT.json...

Exit 0: every document is valid. Exit 1: at least one is not (each error is
printed as "DOCUMENT: path: message"). Exit 2: bad usage or unreadable input.
Exit 3: the jsonschema module (Debian: python3-jsonschema) is missing, so the
caller can fail (CI) or skip (developer machine) on purpose.
"""
import json
import sys

try:
    import jsonschema
    from jsonschema import Draft202012Validator
except ImportError as error:  # pragma: no cover - depends on the machine
    print(f"python3-jsonschema is not installed: {error}", file=sys.stderr)
    sys.exit(3)


def main(argv):
    if len(argv) < 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    try:
        with open(argv[1], encoding="utf-8") as handle:
            schema = json.load(handle)
        Draft202012Validator.check_schema(schema)
    except (OSError, ValueError, jsonschema.exceptions.SchemaError) as error:
        print(f"{argv[1]}: {error}", file=sys.stderr)
        return 2
    validator = Draft202012Validator(schema)
    failed = False
    for name in argv[2:]:
        try:
            with open(name, encoding="utf-8") as handle:
                document = json.load(handle)
        except (OSError, ValueError) as error:
            print(f"{name}: {error}", file=sys.stderr)
            return 2
        errors = sorted(validator.iter_errors(document), key=lambda e: list(e.absolute_path))
        for error in errors[:20]:
            where = "/".join(str(part) for part in error.absolute_path) or "(root)"
            print(f"{name}: {where}: {error.message[:300]}")
        failed = failed or bool(errors)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
