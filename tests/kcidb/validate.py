#!/usr/bin/env python3
"""validate.py SCHEMA DOCUMENT: checks a KCIDB I/O document.

Validates DOCUMENT against the vendored kcidb-io JSON schema (v5.3, Draft 2020-12,
python3-jsonschema), checks the "date-time" and "uri" formats itself (the
format checkers need packages Debian does not install with jsonschema),
and the links the schema cannot state: unique IDs per object type, every
build's checkout_id and every test's build_id present in the document.
Prints each problem and exits 1; prints "valid: N checkouts, N builds,
N tests" and exits 0; exits 2 when the document is not JSON at all.
"""
import json
import re
import sys

import jsonschema

DATE_TIME = re.compile(r"^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$")
URI = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:[^\s]*$")


def format_problems(doc):
    """The date-time and uri fields of doc that are not."""
    for kind in ("checkouts", "builds", "tests"):
        for i, obj in enumerate(doc.get(kind, [])):
            for key, value in obj.items():
                if key in ("start_time", "_timestamp") and not DATE_TIME.match(str(value)):
                    yield f"{kind}[{i}].{key}: not a date-time: {value!r}"
                if key.endswith("_url") and not URI.match(str(value)):
                    yield f"{kind}[{i}].{key}: not a URI: {value!r}"
            for f in obj.get("output_files", []) + obj.get("input_files", []):
                if not URI.match(str(f.get("url", ""))):
                    yield f"{kind}[{i}]: file URL not a URI: {f.get('url')!r}"


def link_problems(doc):
    """Duplicate IDs and links to objects the document does not hold."""
    ids = {}
    for kind in ("checkouts", "builds", "tests"):
        seen = set()
        for obj in doc.get(kind, []):
            if obj.get("id") in seen:
                yield f"{kind}: duplicate id {obj.get('id')}"
            seen.add(obj.get("id"))
        ids[kind] = seen
    for b in doc.get("builds", []):
        if b.get("checkout_id") not in ids["checkouts"]:
            yield f"build {b.get('id')}: checkout_id {b.get('checkout_id')} not in the document"
    for t in doc.get("tests", []):
        if t.get("build_id") not in ids["builds"]:
            yield f"test {t.get('id')}: build_id {t.get('build_id')} not in the document"


def main():
    with open(sys.argv[1]) as f:
        schema = json.load(f)
    try:
        with open(sys.argv[2]) as f:
            doc = json.load(f)
    except (ValueError, OSError) as e:
        print(f"not JSON: {e}")
        return 2
    validator = jsonschema.Draft202012Validator
    validator.check_schema(schema)
    problems = [f"{'/'.join(map(str, e.absolute_path))}: {e.message}"
                for e in validator(schema).iter_errors(doc)]
    if not problems and isinstance(doc, dict):
        problems += list(format_problems(doc)) + list(link_problems(doc))
    for p in problems:
        print(p)
    if problems:
        return 1
    print(f"valid: {len(doc.get('checkouts', []))} checkouts, {len(doc.get('builds', []))} builds, "
          f"{len(doc.get('tests', []))} tests")
    return 0


if __name__ == "__main__":
    sys.exit(main())
