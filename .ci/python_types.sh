#!/usr/bin/env bash
# The Python package's typing: the stubs agree with the built module
# (mypy.stubtest) and the examples type-check against them (mypy --strict).
# Needs the package installed in the venv (scripts/test-all.sh or
# `maturin develop`); installs mypy there. PYTHON names the venv's python.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$(pwd)"
PYTHON="${PYTHON:-.venv/bin/python}"
# An absolute path: the checks below run from other folders.
case "$PYTHON" in
  /*) ;;
  */*) PYTHON="$root/$PYTHON" ;;
  *) PYTHON="$(command -v "$PYTHON")" ;;
esac

# pyarrow-stubs: `scan()` returns a pyarrow type, which is `Any` without them.
"$PYTHON" -m pip install --quiet --disable-pip-version-check "mypy>=1.10" pyarrow-stubs

echo "== mypy --strict python/examples"
# From python/, so that mypy reads the package's stubs and types.py as the
# package's users see them.
(cd python && "$PYTHON" -m mypy --strict --no-incremental examples)

echo "== stubtest pgnfen"
# From an empty folder, so that `import pgnfen` is the installed package (its
# native module included), whether pip installed it or maturin develop linked
# it; pgnfen.types and pgnfen.dask are checked as its submodules.
empty="$(mktemp -d)"
trap 'rm -rf "$empty"' EXIT
(cd "$empty" && "$PYTHON" -m mypy.stubtest pgnfen \
  --allowlist "$root/.ci/stubtest-allowlist.txt" \
  --mypy-config-file "$root/python/pyproject.toml")
