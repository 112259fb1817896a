#!/usr/bin/env python3
"""Link and path check of the documentation.

Every relative link in README.md, CONTRIBUTING.md, ARCHITECTURE.md,
CHANGELOG.md and docs/*.md must name a file or folder inside the repository,
and an anchor (`page.md#section`, `#section`) must name a heading of that page
(GitHub's heading ids). No page may mention `../shared`: the documentation
stands on its own, with nothing beside the repository.

Nor may any other file of the repository, outside `.ci/` (whose CI script
finds the corpus beside the repository) and CHANGELOG.md (history, kept as it
was written), point to a document that is not in it: `../shared`, a
specification `SPEC.md` or its sections (`SPEC §10`), or an issue tracker's
numbers (`issue #25`). A comment points to the page under docs/ instead.

Usage: python3 .ci/check_links.py [--root DIR]
Exit status 0 when every link resolves and nothing points outside; 1 with one
line per offender (`FILE:LINE: message`).
"""
import argparse
import os
import re
import subprocess
import sys
import unicodedata
from urllib.parse import unquote

PAGES = ["README.md", "CONTRIBUTING.md", "ARCHITECTURE.md", "CHANGELOG.md"]
FORBIDDEN = "../shared"
# What no file outside .ci/ may mention (bytes: the files need not be text).
OUTSIDE = re.compile(rb"\.\./shared|SPEC\.md|SPEC \xc2\xa7|\b[Ii]ssue #[0-9]+")
# Not searched for OUTSIDE: the CI's own folder, the history, and what is
# neither committed nor meant to be (build output, virtual environments).
OUTSIDE_EXEMPT = (".ci/",)
SKIPPED_FOLDERS = {".git", ".venv", "target", "__pycache__", ".pytest_cache", ".mypy_cache", "out", "corpus", "artifacts"}

FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)[ \t#]*$")
# [text](target "title") and ![alt](target); the target may be <...>.
INLINE = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*(<[^>]*>|[^)\s]+)(?:\s+\"[^\"]*\")?\s*\)")
# [label]: target
REFERENCE = re.compile(r"^ {0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)")
CODE_SPAN = re.compile(r"(`+)(.+?)\1")
SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def pages(root):
    found = [p for p in PAGES if os.path.isfile(os.path.join(root, p))]
    docs = os.path.join(root, "docs")
    if os.path.isdir(docs):
        found += sorted(
            os.path.join("docs", name) for name in os.listdir(docs) if name.endswith(".md")
        )
    return found


def repository_files(root):
    """The repository's files, relative to `root`: those git knows (committed
    or to be added; not ignored) when `root` is a git work tree, else every
    file but those in build and cache folders."""
    try:
        listed = subprocess.run(
            ["git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            capture_output=True, check=True,
        ).stdout
        if os.path.realpath(subprocess.run(
            ["git", "-C", root, "rev-parse", "--show-toplevel"], capture_output=True, text=True, check=True,
        ).stdout.strip()) == os.path.realpath(root):
            return sorted({name.decode("utf-8", "surrogateescape") for name in listed.split(b"\0") if name})
    except (OSError, subprocess.CalledProcessError):
        pass
    found = []
    for folder, subfolders, names in os.walk(root):
        subfolders[:] = [d for d in subfolders if d not in SKIPPED_FOLDERS]
        found += [os.path.relpath(os.path.join(folder, n), root) for n in names]
    return sorted(found)


def outside_mentions(root):
    """`FILE:LINE: ...` for each mention of a document outside the repository
    in a file outside `.ci/`."""
    problems = []
    for name in repository_files(root):
        if name.replace(os.sep, "/").startswith(OUTSIDE_EXEMPT):
            continue
        path = os.path.join(root, name)
        if not os.path.isfile(path) or os.path.islink(path):
            continue
        with open(path, "rb") as f:
            data = f.read()
        for m in OUTSIDE.finditer(data):
            line = data.count(b"\n", 0, m.start()) + 1
            what = m.group(0).decode("utf-8", "replace")
            problems.append(f"{name}:{line}: mentions {what!r}, outside the repository (point to docs/ instead)")
    return problems


def prose_lines(text):
    """(line number, line) outside fenced code blocks, with code spans blanked
    out (a link shown as code is an example, not a link)."""
    fence = None
    for number, line in enumerate(text.splitlines(), 1):
        m = FENCE.match(line)
        if fence is None and m:
            fence = m.group(1)[0] * len(m.group(1))
            continue
        if fence is not None:
            if m and m.group(1).startswith(fence):
                fence = None
            continue
        yield number, CODE_SPAN.sub(lambda c: " " * len(c.group(0)), line)


def slug(heading):
    """GitHub's id for a heading: markup dropped, lower case, punctuation other
    than `-` and `_` removed, spaces turned into hyphens."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # links: their text
    text = re.sub(r"<[^>]+>", "", text)  # inline HTML
    text = text.replace("`", "").replace("*", "")
    text = text.strip().lower()
    kept = []
    for ch in text:
        if ch in "-_ " or unicodedata.category(ch)[0] in "LN":
            kept.append(ch)
    return "".join(kept).replace(" ", "-")


def anchors(path, cache):
    if path not in cache:
        ids, seen = set(), {}
        with open(path, encoding="utf-8") as f:
            text = f.read()
        fence = None
        for line in text.splitlines():
            m = FENCE.match(line)
            if fence is None and m:
                fence = m.group(1)[0] * len(m.group(1))
                continue
            if fence is not None:
                if m and m.group(1).startswith(fence):
                    fence = None
                continue
            h = HEADING.match(line)
            if h:
                base = slug(h.group(2))
                n = seen.get(base, 0)
                seen[base] = n + 1
                ids.add(base if n == 0 else f"{base}-{n}")
        for m in re.finditer(r"<a\s+(?:name|id)=\"([^\"]+)\"", text):
            ids.add(m.group(1))
        cache[path] = ids
    return cache[path]


def check(root):
    root = os.path.realpath(root)
    problems = []
    cache = {}
    for page in pages(root):
        path = os.path.join(root, page)
        with open(path, encoding="utf-8") as f:
            text = f.read()
        for number, line in enumerate(text.splitlines(), 1):
            if FORBIDDEN in line:
                problems.append(f"{page}:{number}: mentions {FORBIDDEN} (outside the repository)")
        for number, line in prose_lines(text):
            targets = [m.group(1) for m in INLINE.finditer(line)]
            targets += [m.group(1) for m in REFERENCE.finditer(line)]
            for target in targets:
                target = target.strip("<>")
                if SCHEME.match(target) or target.startswith("//"):
                    continue  # a web address or mailto: not ours to resolve
                file_part, _, anchor = target.partition("#")
                file_part = unquote(file_part)
                if file_part.startswith("/"):
                    problems.append(f"{page}:{number}: absolute path {target!r}")
                    continue
                resolved = os.path.realpath(os.path.join(os.path.dirname(path), file_part)) if file_part else path
                if resolved != root and not resolved.startswith(root + os.sep):
                    problems.append(f"{page}:{number}: {target!r} points outside the repository")
                    continue
                if not os.path.exists(resolved):
                    problems.append(f"{page}:{number}: {target!r}: no such file {os.path.relpath(resolved, root)}")
                    continue
                if anchor and resolved.endswith(".md") and os.path.isfile(resolved):
                    if unquote(anchor) not in anchors(resolved, cache):
                        problems.append(
                            f"{page}:{number}: {target!r}: no heading #{anchor} in {os.path.relpath(resolved, root)}"
                        )
    pages_checked = set(pages(root))
    for problem in outside_mentions(root):
        # A page's `../shared` is reported above already.
        name, _, rest = problem.partition(":")
        if name in pages_checked and "'../shared'" in rest:
            continue
        problems.append(problem)
    return problems


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default_root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap.add_argument("--root", default=default_root, help="the repository (default: this script's)")
    args = ap.parse_args()
    problems = check(args.root)
    for p in problems:
        print(p)
    checked = len(pages(os.path.realpath(args.root)))
    if problems:
        print(f"check_links: {len(problems)} problem(s): broken links or paths in {checked} pages, "
              "or mentions of documents outside the repository", file=sys.stderr)
        return 1
    print(f"check_links: every link of {checked} pages resolves, and no file points outside the repository",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
