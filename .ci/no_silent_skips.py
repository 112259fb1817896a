#!/usr/bin/env python3
"""Fails when a Rust test passed while saying it skipped its work.

A test that cannot run for want of a tool or of the corpus must be
`#[ignore = "needs ..."]` (counted as ignored in cargo's summary), never print
"skipped" and return (counted as passed). Reads the log that
scripts/test-all.sh writes (`cargo test -- --show-output`, which prints what
passing tests printed, in "successes:" blocks) and lists every passing test
whose output mentions a skip.

    python3 .ci/no_silent_skips.py target/test-all.log
"""
import re
import sys

SKIP = re.compile(r"\bskip(s|ped|ping)?\b", re.IGNORECASE)
SECTION = re.compile(r"^---- (.+) stdout ----$")


def silent_skips(lines):
    found = []
    in_successes = False
    test = None
    for line in lines:
        line = line.rstrip("\n")
        if line == "successes:":
            # The first "successes:" opens the outputs, the second lists names.
            in_successes = not in_successes
            test = None
            continue
        if line.startswith("running ") or line.startswith("test result:"):
            in_successes, test = False, None
            continue
        if not in_successes:
            continue
        m = SECTION.match(line)
        if m:
            test = m.group(1)
        elif test and SKIP.search(line):
            found.append((test, line.strip()))
    return found


def main():
    if sys.argv[1:2] in (["-h"], ["--help"]):
        print(__doc__)
        return
    path = sys.argv[1] if len(sys.argv) > 1 else "target/test-all.log"
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            lines = f.readlines()
    except OSError as e:
        sys.exit(f"no_silent_skips: {path}: {e.strerror} (the log of scripts/test-all.sh)")
    if not any(l.startswith("test result:") for l in lines):
        sys.exit(f"{path}: no cargo test results in it")
    found = silent_skips(lines)
    for test, line in found:
        print(f"{test}: passed but printed: {line}")
    if found:
        sys.exit(f"{len(found)} passing test(s) skipped their work: make them #[ignore = \"needs ...\"]")
    print(f"{path}: no passing test skipped its work")


if __name__ == "__main__":
    main()
