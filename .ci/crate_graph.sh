#!/usr/bin/env bash
# The layers the compiler keeps: the crate without I/O (pgnfen-core: the FEN
# model, the game scanner, classification) must not come to depend on threads,
# Arrow or the command line. Fails naming the crate that crept in.
set -euo pipefail
cd "$(dirname "$0")/.."
status=0
tree=$(cargo tree -p pgnfen-core -e normal --prefix none --format '{p}' | awk '{print $1}' | sort -u)
for banned in clap clap_builder rayon rayon-core arrow-array arrow-schema parquet indicatif signal-hook zstd flate2 bzip2 zip liblzma; do
  if grep -qx "$banned" <<<"$tree"; then
    echo "crate graph: pgnfen-core depends on $banned" >&2
    status=1
  fi
done
[ "$status" -eq 0 ] && echo "crate graph: pgnfen-core holds $(wc -l <<<"$tree") crates, none of the banned ones"
exit "$status"
