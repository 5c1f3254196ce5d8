"""Validates overlapscope's JSON outputs against docs/schema/*.json (JSON Schema draft 2020-12).

Usage: schema_validate.py SCHEMA_DIR KIND=FILE...   (KIND: report, check, diff, stats)
Prints each document that does not validate with its first errors and exits 1; exits 77 (a skip)
only when Python's jsonschema module is missing (Debian: python3-jsonschema)."""
import json
import os
import sys

try:
    import jsonschema
except ImportError:
    print("skipped: Python's jsonschema module is missing (apt-get install python3-jsonschema)")
    sys.exit(77)


def validators(schema_dir):
    """One validator per kind, each resolving the others by their $id (check.json and diff.json
    refer to report.json relative to theirs)."""
    schemas = {}
    for name in ("report", "check", "diff", "stats"):
        with open(os.path.join(schema_dir, name + ".json"), encoding="utf-8") as f:
            schemas[name] = json.load(f)
    cls = jsonschema.Draft202012Validator
    for schema in schemas.values():
        cls.check_schema(schema)
    try:  # jsonschema 4.18 and later: the referencing library
        from referencing import Registry, Resource

        registry = Registry().with_resources(
            (s["$id"], Resource.from_contents(s)) for s in schemas.values())
        return {k: cls(s, registry=registry) for k, s in schemas.items()}
    except ImportError:  # older: RefResolver with a store
        store = {s["$id"]: s for s in schemas.values()}
        return {k: cls(s, resolver=jsonschema.RefResolver.from_schema(s, store=store)) for k, s in schemas.items()}


def main():
    checkers = validators(sys.argv[1])
    bad = 0
    counts = {}
    for argument in sys.argv[2:]:
        kind, path = argument.split("=", 1)
        counts[kind] = counts.get(kind, 0) + 1
        try:
            with open(path, encoding="utf-8") as f:
                document = json.load(f)
        except ValueError as error:
            bad += 1
            print(f"{path} ({kind}): not JSON: {error}")
            continue
        errors = sorted(checkers[kind].iter_errors(document), key=lambda e: [str(p) for p in e.absolute_path])
        if errors:
            bad += 1
            print(f"{path} ({kind}): {len(errors)} errors")
            for error in errors[:5]:
                where = "/".join(str(p) for p in error.absolute_path)
                print(f"  at /{where}: {error.message[:300]}")
    print(", ".join(f"{n} {k}" for k, n in sorted(counts.items())), "documents validated;", bad, "invalid")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
