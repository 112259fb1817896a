"""pgnfen.dask.stats on a LocalCluster of 2 workers against the CLI, paired.

    .venv/bin/python python/bench_dask.py ARCHIVE.pgn.zst [ROUNDS] [PARTITION_MB]

ARCHIVE is best a pzstd-written file (bench/bench.py makes one of the 1 GiB
archive: bench/out/archive.pgn.pzstd.zst). Each round runs `pgnfen stats`,
`pgnfen stats -j1`, `zstd -dc > /dev/null` and `pgnfen.dask.stats` in turn;
medians are reported with the ratios.
"""

import os
import shutil
import statistics
import subprocess
import sys
import time

# This script lives beside the package's sources: import the installed package
# (in main, so that --help needs neither pgnfen nor Dask).
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path = [p for p in sys.path if os.path.abspath(p or ".") != HERE]

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The program `cargo build --release` built (CARGO_TARGET_DIR moves it; a
# relative one from the repository).
BIN = os.path.join(ROOT, os.environ.get("CARGO_TARGET_DIR") or "target", "release", "pgnfen")


def timed(cmd, shell=False):
    t = time.perf_counter()
    subprocess.run(cmd, shell=shell, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - t


def main():
    # No options: -h or --help prints the usage (no argument, or any other
    # word with a dash, too, as an error) instead of being taken for a file.
    if sys.argv[1:] in (["-h"], ["--help"]):
        print(__doc__)
        return
    if len(sys.argv) < 2 or any(a.startswith("-") for a in sys.argv[1:]):
        sys.exit(__doc__)
    import pgnfen
    import pgnfen.dask
    from dask.distributed import Client, LocalCluster
    path = sys.argv[1]
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    size = int(sys.argv[3] if len(sys.argv) > 3 else 32) << 20
    parts = pgnfen.dask.partitions([path], size)
    print(f"{path}: {os.path.getsize(path) / 1e6:.0f} MB, {len(parts)} partitions of ~{size >> 20} MiB ({parts[0][1]})")
    times = {"zstd -dc > /dev/null": [], "pgnfen stats": [], "pgnfen stats -j1": [], "pgnfen.dask.stats (2 workers)": []}
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, Client(cluster) as client:
        expected = pgnfen.stats(path)
        for _ in range(rounds):
            if shutil.which("zstd"):
                times["zstd -dc > /dev/null"].append(timed(f"zstd -dc {path} > /dev/null", shell=True))
            times["pgnfen stats"].append(timed([BIN, "-q", "--no-progress", "stats", path]))
            times["pgnfen stats -j1"].append(timed([BIN, "-q", "--no-progress", "-j1", "stats", path]))
            t = time.perf_counter()
            got = pgnfen.dask.stats([path], client=client, partition_size=size)
            times["pgnfen.dask.stats (2 workers)"].append(time.perf_counter() - t)
            assert got == expected, "dask stats differ from pgnfen.stats"
    med = {k: statistics.median(v) for k, v in times.items() if v}
    cli = med["pgnfen stats"]
    dc = med.get("zstd -dc > /dev/null")
    for k, v in med.items():
        extra = f"  {v / dc:5.2f}x zstd -dc" if dc else ""
        print(f"  {k:<32} {v:7.3f}s  {v / cli:5.2f}x the CLI{extra}")


if __name__ == "__main__":
    main()
