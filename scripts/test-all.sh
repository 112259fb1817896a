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
# features (crates/pgnfen/Cargo.toml aligns them), so it compiles little more
# than pyo3, the binding and what only the binding uses.
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

echo "== cargo test --release --no-fail-fast ${ignored[*]:-} (the whole output in $log)"
# --show-output keeps what passing tests print, so that .ci/no_silent_skips.py
# can tell that no test passed by skipping its work. That is thousands of
# lines (tests that check a panic print it; the warnings the tests provoke),
# so the terminal gets the compiler's errors, each test binary's result line
# and, at the end, the failures.
: > "$log"
cargo test --release --no-fail-fast -- --show-output "${ignored[@]}" > "$log" 2>&1 &
cargo_pid=$!
tail -n +1 -f --pid="$cargo_pid" "$log" 2>/dev/null \
  | grep -E --line-buffered '^(error(\[E[0-9]+\])?:|test result: |     Running |   Doc-tests )' \
  | sed -u -E 's/^     Running (unittests )?([^ ]+).*/  \1\2/; s/^   Doc-tests (.*)/  doc tests of \1/'
wait "$cargo_pid" || failed+=("cargo test")
awk '/^test result:/ {p += $4; f += $6; i += $8} END {printf "cargo test: %d passed, %d failed, %d ignored (%s)\n", p, f, i, "ignored: they need the corpus or a tool; scripts/test-all.sh --include-ignored"}' "$log"
if [[ " ${failed[*]:-} " == *" cargo test "* ]]; then
  # Each failing test's output and cargo's list of them; a build that failed
  # has none: the end of the log then.
  if grep -q '^failures:$' "$log"; then
    awk '/^failures:$/ {f = 1} /^test result:/ {f = 0} f' "$log" | head -200
  else
    tail -40 "$log"
  fi
fi

PYTHON="${PYTHON:-python3}"
# The package needs CPython 3.10 or later: said plainly here, for the Python
# that would make .venv or the one an older .venv was made with, rather than
# left to fail inside pip.
too_old() { ! "$1" -c 'import sys; sys.exit(sys.version_info < (3, 10))' 2>/dev/null; }
python_problem=
if [ -x .venv/bin/python ]; then
  if too_old .venv/bin/python; then
    python_problem=".venv was made with $(.venv/bin/python --version 2>&1), and the Python package needs 3.10 or later: remove .venv (and give a newer Python with PYTHON=python3.x)"
  fi
elif too_old "$PYTHON"; then
  python_problem="the Python package needs Python 3.10 or later; $PYTHON is $("$PYTHON" --version 2>&1) (give another with PYTHON=python3.x)"
fi

if [ -n "$python_problem" ]; then
  echo "$python_problem" >&2
  failed+=("the Python tests (no Python 3.10 or later)")
else
  if [ ! -x .venv/bin/python ]; then
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
fi

if [ ${#failed[@]} -gt 0 ]; then
  printf 'FAILED: %s\n' "${failed[@]}" >&2
  exit 1
fi
echo "== all tests passed"
