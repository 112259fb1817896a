#!/usr/bin/env bash
# The one test command: every Rust test binary, then the Python package's tests
# in a virtual environment (.venv at the repository root, created once, reused).
#
#   scripts/test-all.sh                     # what a fresh clone can run
#   scripts/test-all.sh --include-ignored   # also the ignored tests: they need
#       PGNFEN_CORPUS (the corpus folder), zsh, fish, groff, pzstd and Python's
#       jsonschema (.ci/run installs them)
#
# Every step runs even when an earlier one failed; the script exits 1 if any
# test failed and names the steps. One build of the dependencies serves all
# steps: `cargo test --release` builds the CLI the Python tests compare with,
# and maturin builds the extension in the same target folder with the same
# features (Cargo.toml aligns them), so only pyo3 and the binding are compiled.
set -uo pipefail
cd "$(dirname "$0")/.."

ignored=()
case "${1:-}" in
  "") ;;
  --include-ignored) ignored=(--include-ignored) ;;
  *) echo "usage: scripts/test-all.sh [--include-ignored]" >&2; exit 2 ;;
esac

failed=()
mkdir -p target
log=target/test-all.log

echo "== cargo test --release --no-fail-fast ${ignored[*]:-} (output also in $log)"
# --show-output keeps what passing tests print, so that .ci/no_silent_skips.py
# can tell that no test passed by skipping its work.
cargo test --release --no-fail-fast -- --show-output "${ignored[@]}" 2>&1 | tee "$log"
[ "${PIPESTATUS[0]}" -eq 0 ] || failed+=("cargo test")

PYTHON="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  if ! "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 10))' 2>/dev/null; then
    echo "the Python package needs Python 3.10 or later; $PYTHON is $("$PYTHON" --version 2>&1) (give another with PYTHON=python3.x)" >&2
    printf 'FAILED: %s\n' "${failed[@]}" "the Python tests (no Python 3.10 or later)" >&2
    exit 1
  fi
  echo "== creating .venv"
  "$PYTHON" -m venv .venv || { echo "cannot create .venv with $PYTHON" >&2; exit 1; }
fi
echo "== pip install ./python[test] (maturin builds the extension)"
# pip always rebuilds and reinstalls a local directory, so this tests this tree.
if .venv/bin/python -m pip install --quiet --disable-pip-version-check "./python[test]"; then
  echo "== pytest python/tests"
  # -rs lists every skipped test with its reason in the summary.
  .venv/bin/python -m pytest python/tests -q -rs -p no:cacheprovider || failed+=("pytest")
else
  failed+=("pip install ./python[test]")
fi

if [ ${#failed[@]} -gt 0 ]; then
  printf 'FAILED: %s\n' "${failed[@]}" >&2
  exit 1
fi
echo "== all tests passed"
