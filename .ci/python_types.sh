#!/usr/bin/env bash
# The Python package's typing: the stubs agree with the built module
# (mypy.stubtest) and the examples type-check against them (mypy --strict).
# Needs the package installed in the venv (scripts/test-all.sh or
# `maturin develop`); installs mypy there. PYTHON names the venv's python.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-.venv/bin/python}"

"$PYTHON" -m pip install --quiet --disable-pip-version-check "mypy>=1.10"

echo "== mypy --strict python/examples"
# From python/, so that mypy reads the package's stubs and types.py as the
# package's users see them.
(cd python && "$PYTHON" -m mypy --strict --no-incremental examples)

echo "== stubtest pgnfen"
# Run from the repository root so that `import pgnfen` is the installed
# package (the native module included), not a source folder without it.
"$PYTHON" -m mypy.stubtest pgnfen pgnfen.types pgnfen.dask \
  --allowlist .ci/stubtest-allowlist.txt --mypy-config-file /dev/null
