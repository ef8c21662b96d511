#!/usr/bin/env python3
"""Code and docs cite files in the repository or public primary sources, never the project's
private notes that a reader of the repository does not have (the names PRIVATE matches: notes,
reviews and reports kept beside the checkout, not in it). Every file git tracks is scanned; the one allowed mention is a copied file's provenance line ("Copied
unchanged from ..."). A planted citation proves the scan can fail."""
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cuda_tools import Checks, test_args  # noqa: E402

PRIVATE = re.compile(r"PTX_NOTES|PROBES\.md|DEVELOPERS\.md|FIRST-CONTACT|HOSTILE-TEST|STYLE\.md|"
                     r"shared/(docs|data)|\.\./shared")
PROVENANCE = "Copied unchanged from"
SELF = os.path.join("tests", "test_citations.py")


def private_citations(root):
    files = subprocess.run(["git", "-C", root, "ls-files", "-co", "--exclude-standard"], check=True,
                           capture_output=True, text=True).stdout.split("\n")
    found = []
    for rel in filter(None, files):
        path = os.path.join(root, rel)
        if rel == SELF or not os.path.isfile(path) or os.path.islink(path):
            continue
        try:
            with open(path, encoding="utf-8") as f:
                lines = f.readlines()
        except (UnicodeDecodeError, OSError):
            continue  # binary data (plots, archives)
        for number, line in enumerate(lines, 1):
            if PRIVATE.search(line) and PROVENANCE not in line:
                found.append(f"{rel}:{number}: {line.strip()[:100]}")
    return found


def main():
    args = test_args(__doc__.splitlines()[0])
    check = Checks("citations")
    found = private_citations(args.source_dir)
    check(not found, "private notes cited:\n  " + "\n  ".join(found))
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(["git", "init", "-q", tmp], check=True)
        with open(os.path.join(tmp, "a.cpp"), "w") as f:
            f.write("// see " + "PTX" + "_NOTES.md section 2.2\n")  # split: this file cites nothing
        with open(os.path.join(tmp, "b.md"), "w") as f:
            f.write("<!-- Copied unchanged from shared/docs/B.md -->\n")
        planted = private_citations(tmp)
        check(len(planted) == 1 and planted[0].startswith("a.cpp:1:"),
              f"the planted citation was not caught alone: {planted}")
    return check.finish()


if __name__ == "__main__":
    sys.exit(main())
