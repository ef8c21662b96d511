#!/usr/bin/env python3
"""Validates gpuprobe's JSON outputs against the machine-readable schemas in docs/schema/.

    validate_outputs.py [--versioned-only] [--schemas DIR] PATH [PATH ...]

A PATH is a file or a folder (every *.json under it). Each document is checked against the schema
its own `schema` and `schema_version` name (docs/schema/<schema>.v<version>.schema.json, JSON
Schema draft 2020-12), plus what a schema cannot say (a machine model's metric ids are unique).
One line per violation, `FILE: $.json.path: what is wrong`; exit status 1 if any file is invalid,
unreadable or names no known schema. A JSON file without a `schema` key is an error too, unless
--versioned-only, which skips it (fixtures and other tools' files live next to gpuprobe's).
Needs the `jsonschema` package (scripts/requirements.txt: scripts/setup.sh puts it in .venv)."""
import argparse
import glob
import json
import os
import re
import sys

try:
    import jsonschema
    import referencing
except ImportError:  # one line, like every gpuprobe error
    sys.stderr.write("gpuprobe: error: validate_outputs.py needs the jsonschema package "
                     "(scripts/setup.sh installs it into .venv; or pip install jsonschema)\n")
    sys.exit(1)

SCHEMA_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "docs", "schema")
SCHEMA_FILE = re.compile(r"^(?P<name>[a-z0-9_.]+)\.v(?P<version>\d+)\.schema\.json$")
MAX_MESSAGE = 160


class Schemas:
    """Every docs/schema/*.schema.json, by (schema name, version), sharing one registry so that
    one schema can $ref another's definitions by $id."""

    def __init__(self, folder=SCHEMA_DIR):
        self.folder = folder
        self.by_key = {}
        resources = []
        for path in sorted(glob.glob(os.path.join(folder, "*.schema.json"))):
            m = SCHEMA_FILE.match(os.path.basename(path))
            if not m:
                raise ValueError(f"{path}: not named <schema>.v<version>.schema.json")
            with open(path, encoding="utf-8") as f:
                schema = json.load(f)
            jsonschema.Draft202012Validator.check_schema(schema)
            resources.append((schema["$id"], referencing.Resource.from_contents(schema)))
            self.by_key[(m["name"], int(m["version"]))] = schema
        if not self.by_key:
            raise ValueError(f"no *.schema.json in {folder}")
        registry = referencing.Registry().with_resources(resources)
        self.validators = {
            key: jsonschema.Draft202012Validator(
                schema, registry=registry,
                format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)
            for key, schema in self.by_key.items()}

    def validator_for(self, doc):
        return self.validators.get((doc.get("schema"), doc.get("schema_version")))


def json_path(error):
    path = "$"
    for part in error.absolute_path:
        path += f"[{part}]" if isinstance(part, int) else f".{part}"
    return path


def short(text):
    text = " ".join(str(text).split())
    return text if len(text) <= MAX_MESSAGE else text[:MAX_MESSAGE - 3] + "..."


def describe(error):
    """One line for one violation, without echoing a whole sub-document."""
    v, value = error.validator, error.validator_value
    if v == "not" and isinstance(value, dict) and list(value) == ["required"]:
        return f"must not have {', '.join(value['required'])} here"
    if v in ("oneOf", "anyOf") and error.context:
        best = jsonschema.exceptions.best_match(error.context)
        return f"matches no allowed form ({short(best.message)})"
    if v in ("const", "enum", "type", "pattern", "minimum", "maximum", "exclusiveMinimum",
             "minLength", "maxItems", "minItems", "format"):
        shown = json.dumps(error.instance)
        if len(shown) > 60:
            shown = shown[:57] + "..."
        rule = {"type": f"is not of type {json.dumps(value)}",
                "const": f"must be {json.dumps(value)}",
                "enum": f"is not one of {json.dumps(value)}",
                "pattern": f"does not match {value}"}.get(v, f"fails {v} {json.dumps(value)}")
        return short(f"{shown} {rule}")
    return short(error.message)


def extra_checks(doc):
    """What JSON Schema cannot say. Returns (json path, message) pairs."""
    found = []
    if doc.get("schema") == "gpuprobe.machine_model" and isinstance(doc.get("metrics"), list):
        seen = {}
        for i, m in enumerate(doc["metrics"]):
            if isinstance(m, dict) and isinstance(m.get("id"), str):
                if m["id"] in seen:
                    found.append((f"$.metrics[{i}].id",
                                  f"{m['id']} repeats metrics[{seen[m['id']]}].id"))
                seen.setdefault(m["id"], i)
    return found


def validate_document(doc, schemas):
    """The violations of one parsed document: a list of 'json.path: message' lines."""
    if not isinstance(doc, dict) or "schema" not in doc:
        return ["$: no `schema` key: not a versioned gpuprobe document"]
    validator = schemas.validator_for(doc)
    if validator is None:
        return [f"$: no schema for {json.dumps(doc.get('schema'))} version "
                f"{json.dumps(doc.get('schema_version'))} in {schemas.folder}"]
    lines = []
    for error in sorted(validator.iter_errors(doc), key=lambda e: list(map(str, e.absolute_path))):
        lines.append(f"{json_path(error)}: {describe(error)}")
    lines += [f"{path}: {message}" for path, message in extra_checks(doc)]
    return lines


def json_files(paths):
    for path in paths:
        if os.path.isdir(path):
            for root, dirs, files in os.walk(path):
                dirs.sort()
                for name in sorted(files):
                    if name.endswith(".json"):
                        yield os.path.join(root, name)
        else:
            yield path


def validate_paths(paths, schemas, versioned_only=False, out=sys.stdout):
    """Validates files and folders; prints one line per violation; returns (files, violations)."""
    checked = violations = 0
    for path in json_files(paths):
        try:
            with open(path, encoding="utf-8") as f:
                doc = json.load(f)
        except (OSError, ValueError) as e:
            print(f"{path}: cannot read: {short(e)}", file=out)
            violations += 1
            continue
        if versioned_only and not (isinstance(doc, dict) and "schema" in doc):
            continue
        checked += 1
        for line in validate_document(doc, schemas):
            print(f"{path}: {line}", file=out)
            violations += 1
    return checked, violations


class Parser(argparse.ArgumentParser):
    def error(self, message):  # one line and exit 1, like every gpuprobe error
        self.exit(1, f"gpuprobe: error: {message} (see --help)\n")


def main(argv=None):
    parser = Parser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+", metavar="PATH", help="a JSON file or a folder")
    parser.add_argument("--schemas", default=SCHEMA_DIR, help="folder of *.schema.json")
    parser.add_argument("--versioned-only", action="store_true",
                        help="skip JSON files without a `schema` key instead of failing them")
    args = parser.parse_args(argv)
    for path in args.paths:
        if not os.path.exists(path):
            sys.stderr.write(f"gpuprobe: error: {path} does not exist\n")
            return 1
    try:
        schemas = Schemas(args.schemas)
    except (OSError, ValueError, jsonschema.SchemaError) as e:
        sys.stderr.write(f"gpuprobe: error: cannot load the schemas: {short(e)}\n")
        return 1
    checked, violations = validate_paths(args.paths, schemas, args.versioned_only)
    print(f"validated {checked} file(s): {violations} violation(s)", file=sys.stderr)
    return 1 if violations or not checked else 0


if __name__ == "__main__":
    sys.exit(main())
