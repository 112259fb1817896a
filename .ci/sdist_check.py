"""What the Python package's sdist holds: everything a build from it needs, the
licence, one version, and not the tests that only run in the repository.

    python3 .ci/sdist_check.py pgnfen-X.Y.Z.tar.gz REPOSITORY

(`maturin sdist` in python/ makes the archive; .ci/run calls this.) The wheel
is checked by python/tests/test_packaging.py, on the package pip installed.
"""

import re
import sys
import tarfile
from email.parser import HeaderParser
from pathlib import Path


def workspace_version(repository):
    text = (repository / "Cargo.toml").read_text(encoding="utf-8")
    section = re.search(r"^\[workspace\.package\]\n(.*?)(?=^\[|\Z)", text, re.M | re.S)
    return re.search(r'^version = "([^"]+)"', section.group(1), re.M).group(1)


def main(archive, repository):
    repository = Path(repository)
    version = workspace_version(repository)
    top = f"pgnfen-{version}"
    problems = []
    with tarfile.open(archive) as tar:
        names = set(tar.getnames())
        needed = [
            "PKG-INFO",
            "COPYING",
            "pyproject.toml",
            "Cargo.toml",
            "Cargo.lock",
            "README.md",
            "pgnfen/__init__.py",
            "pgnfen/__init__.pyi",
            "pgnfen/py.typed",
            "python/Cargo.toml",
            "python/src/lib.rs",
            "crates/core/src/lib.rs",
            "crates/pgnfen/src/lib.rs",
        ]
        for name in needed:
            if f"{top}/{name}" not in names:
                problems.append(f"missing: {name}")
        tests = sorted(n for n in names if n.startswith(f"{top}/python/tests/") or n.startswith(f"{top}/tests/"))
        if tests:
            problems.append(f"the Python tests are in it: {tests[:3]}")
        info = HeaderParser().parsestr(tar.extractfile(f"{top}/PKG-INFO").read().decode("utf-8"))
        if info["Version"] != version:
            problems.append(f"PKG-INFO version {info['Version']}, the workspace's {version}")
        if info["License-Expression"] != "GPL-3.0-or-later":
            problems.append(f"License-Expression: {info['License-Expression']}")
        copying = tar.extractfile(f"{top}/COPYING").read()
        if copying != (repository / "COPYING").read_bytes():
            problems.append("COPYING differs from the repository's")
    if problems:
        print("\n".join(problems), file=sys.stderr)
        sys.exit(1)
    print(f"{archive}: {len(names)} entries, version {version}, licence and sources present, no tests")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
