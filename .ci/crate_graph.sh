#!/usr/bin/env bash
# The layers the compiler keeps. pgnfen-core (crates/core: the FEN model, the
# game scanner, classification) must not come to depend on threads, Arrow,
# compression or the command line; pgnfen (crates/pgnfen: the engine and the
# tasks) not on the command line's crates, nor on Arrow without its `export`
# feature. Fails naming the crate that crept in.
set -euo pipefail
cd "$(dirname "$0")/.."
status=0
check() {
  local package=$1 flags=$2
  shift 2
  local tree
  # shellcheck disable=SC2086 # $flags is empty or one flag
  tree=$(cargo tree -p "$package" $flags -e normal --prefix none --format '{p}' | awk '{print $1}' | sort -u)
  for banned in "$@"; do
    if grep -qx "$banned" <<<"$tree"; then
      echo "crate graph: $package $flags depends on $banned" >&2
      status=1
    fi
  done
  echo "crate graph: $package $flags holds $(wc -l <<<"$tree") crates, none of: $*"
}
check pgnfen-core "" clap clap_builder rayon rayon-core arrow-array arrow-schema parquet indicatif signal-hook zstd flate2 bzip2 zip liblzma
check pgnfen "" clap clap_builder clap_complete clap_mangen indicatif annotate-snippets anstream signal-hook
# Without its default feature `export`, the library builds no Arrow or Parquet.
check pgnfen --no-default-features arrow-array arrow-schema arrow-data parquet csv
exit "$status"
