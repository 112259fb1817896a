#!/usr/bin/env bash
# The one test command: the Rust tests, then the Python package's tests in a
# virtual environment (.venv at the repository root, created once, reused).
# The Python tests compare the package with the CLI, so the CLI is built first.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== cargo test --release"
cargo test --release
echo "== cargo build --release (the CLI the Python tests compare with)"
cargo build --release

PYTHON="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  echo "== creating .venv"
  "$PYTHON" -m venv .venv
fi
echo "== pip install ./python[test] (maturin builds the extension)"
# pip always rebuilds and reinstalls a local directory, so this tests this tree.
.venv/bin/python -m pip install --quiet --disable-pip-version-check "./python[test]"
echo "== pytest python/tests"
.venv/bin/python -m pytest python/tests -q -p no:cacheprovider
