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
    assert len(problems) == 4, problems
    assert any(p.startswith("README.md:1:") and "no such file" in p for p in problems)
    assert any("no heading #missing" in p for p in problems)
    assert any("outside the repository" in p for p in problems)
    assert any("../shared" in p for p in problems)


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
