"""Tests of .ci/check_links.py on small made-up repositories.

Run: python3 -m pytest .ci/test_check_links.py -q
"""
import importlib.util
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("check_links", os.path.join(HERE, "check_links.py"))
check_links = importlib.util.module_from_spec(spec)
spec.loader.exec_module(check_links)


def repo(tmp_path, files):
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return str(tmp_path)


def test_good_links_pass(tmp_path):
    root = repo(tmp_path, {
        "README.md": "# T\n\nSee [docs](docs/README.md), [cmd](docs/commands.md#convert-and-fen), "
                     "[web](https://example.org/x) and [top](#t).\n",
        "docs/README.md": "# Index\n\n[back](../README.md#t) [src](../src/)\n",
        "docs/commands.md": "# Commands\n\n## `convert` and `fen`\n",
        "src/lib.rs": "",
    })
    assert check_links.check(root) == []


def test_missing_file_anchor_outside_and_shared_are_reported(tmp_path):
    root = repo(tmp_path, {
        "README.md": "[a](docs/nope.md)\n[b](docs/x.md#missing)\n[c](../outside.md)\n"
                     "the contract is ../shared/SPEC.md\n",
        "docs/x.md": "# X\n",
    })
    problems = check_links.check(root)
    assert len(problems) == 5, problems
    assert any(p.startswith("README.md:1:") and "no such file" in p for p in problems)
    assert any("no heading #missing" in p for p in problems)
    assert any("points outside the repository" in p for p in problems)
    assert any("../shared" in p for p in problems)
    assert any(p.startswith("README.md:4:") and "'SPEC.md'" in p for p in problems)


def test_outside_documents_are_reported_in_any_file(tmp_path):
    root = repo(tmp_path, {
        "README.md": "# T\n",
        "src/lib.rs": "//! Time controls (SPEC \u00a710) and more\n\n// as issue #25 asks\n",
        "tests/t.py": '"""The guarantees (Issue #19)."""\n',
        "samples/a.pgn": '[Event "the corpus in ../shared/corpus"]\n',
        "docs/x.md": "# X\n\nSee SPEC.md.\n",
        "ok.rs": "// issue #abc, SPECIAL, #25 alone, section \u00a710, spec\n",
        ".ci/run": "corpus=../shared/corpus  # see SPEC.md, issue #1\n",
        "CHANGELOG.md": "* found by a test of SPEC \u00a79\n",
        "target/x.txt": "issue #7\n",
    })
    problems = check_links.check(root)
    assert sorted(problems) == sorted([
        "src/lib.rs:1: mentions 'SPEC \u00a7', outside the repository (point to docs/ instead)",
        "src/lib.rs:3: mentions 'issue #25', outside the repository (point to docs/ instead)",
        "tests/t.py:1: mentions 'Issue #19', outside the repository (point to docs/ instead)",
        "samples/a.pgn:1: mentions '../shared', outside the repository (point to docs/ instead)",
        "docs/x.md:3: mentions 'SPEC.md', outside the repository (point to docs/ instead)",
        "CHANGELOG.md:1: mentions 'SPEC \u00a7', outside the repository (point to docs/ instead)",
    ]), problems


def test_links_in_code_are_not_links(tmp_path):
    root = repo(tmp_path, {
        "README.md": "```\n[a](nope.md)\n```\n\nand `[b](nope.md)` too\n",
    })
    assert check_links.check(root) == []


def test_duplicate_headings_get_numbered_ids(tmp_path):
    root = repo(tmp_path, {
        "README.md": "# A\n\n## Examples\n\n## Examples\n\n[x](#examples-1) [y](#examples)\n",
    })
    assert check_links.check(root) == []


def test_exit_status(tmp_path):
    root = repo(tmp_path, {"README.md": "[a](gone.md)\n"})
    script = os.path.join(HERE, "check_links.py")
    run = subprocess.run([sys.executable, script, "--root", root], capture_output=True, text=True)
    assert run.returncode == 1
    assert "README.md:1: 'gone.md'" in run.stdout
