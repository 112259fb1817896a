#!/usr/bin/env python3
"""The README's Install section, run as written in a clean home folder.

Copies the built binary to HOME/.cargo/bin of a fresh temporary HOME (as
`cargo install` puts it), runs the README's shell block that installs the man
page and the completions with bash, then checks from clean shells that
`man pgnfen` finds the page (man-db derives it from PATH) and that bash (with
bash-completion), zsh (compinit) and fish load the completion.

Usage: python3 .ci/check_install.py [BINARY]   (default target/release/pgnfen,
       or release/pgnfen under CARGO_TARGET_DIR when it is set)
Needs man-db, bash-completion, zsh and fish; exits 1 naming what failed.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def install_block():
    """The sh block of the README's Install section that writes the man page."""
    text = open(os.path.join(ROOT, "README.md"), encoding="utf-8").read()
    section = text.split("\n## Install\n", 1)[1].split("\n## ", 1)[0]
    for block in re.findall(r"```sh\n(.*?)```", section, re.S):
        if "pgnfen man >" in block:
            return block
    sys.exit("check_install: no shell block writing the man page in the README's Install section")


def main():
    if sys.argv[1:2] in (["-h"], ["--help"]):
        print(__doc__)
        return 0
    binary = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, os.environ.get("CARGO_TARGET_DIR") or "target", "release", "pgnfen"))
    if not os.path.isfile(binary):
        print(f"check_install: {binary} not found: run cargo build --release first, or name the binary")
        return 1
    missing = [tool for tool in ("man", "manpath", "zsh", "fish") if shutil.which(tool) is None]
    if not os.path.exists("/usr/share/bash-completion/bash_completion"):
        missing.append("bash-completion")
    if missing:
        print(f"check_install: missing tools: {', '.join(missing)} (apt-get install man-db bash-completion zsh fish)")
        return 1
    failures = []
    with tempfile.TemporaryDirectory() as home:
        bin_dir = os.path.join(home, ".cargo", "bin")
        os.makedirs(bin_dir)
        shutil.copy2(binary, os.path.join(bin_dir, "pgnfen"))
        env = {"HOME": home, "PATH": f"{bin_dir}:/usr/local/bin:/usr/bin:/bin", "TERM": "dumb", "MANPAGER": "cat", "PAGER": "cat"}

        def sh(args, **kw):
            return subprocess.run(args, env=env, cwd=home, capture_output=True, text=True, timeout=60, **kw)

        run = sh(["bash", "--norc", "--noprofile", "-e", "-c", install_block()])
        if run.returncode != 0:
            failures.append(f"the Install block failed ({run.returncode}): {run.stderr.strip()}")
        where = sh(["man", "-w", "pgnfen"])
        if where.returncode != 0 or not where.stdout.startswith(home):
            failures.append(f"man -w pgnfen: {where.stdout.strip() or where.stderr.strip()} (manpath: {sh(['manpath']).stdout.strip()})")
        bash = sh(["bash", "--norc", "--noprofile", "-c",
                   "source /usr/share/bash-completion/bash_completion; __load_completion pgnfen; complete -p pgnfen"])
        if "_pgnfen" not in bash.stdout:
            failures.append(f"bash: no completion loaded: {bash.stderr.strip()}")
        with open(os.path.join(home, ".zshrc"), "w") as f:
            f.write("fpath+=~/.zfunc\nautoload -Uz compinit && compinit\n")
        zsh = sh(["zsh", "-i", "-c", "print -r -- ${_comps[pgnfen]}"])
        if "_pgnfen" not in zsh.stdout:
            failures.append(f"zsh: no completion loaded: {zsh.stderr.strip()}")
        fish = sh(["fish", "-c", "complete -C 'pgnfen conv'"])
        if not fish.stdout.startswith("convert"):
            failures.append(f"fish: no completion for 'pgnfen conv': {fish.stdout.strip()} {fish.stderr.strip()}")
    for failure in failures:
        print(f"check_install: {failure}")
    if failures:
        return 1
    print("check_install: man page and bash, zsh and fish completions installed as the README says")
    return 0


if __name__ == "__main__":
    sys.exit(main())
