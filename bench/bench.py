#!/usr/bin/env python3
"""Whole-command benchmark of pgnfen against grep, wc and pgn-extract, in one run.

Builds an archive of about SIZE_MB (default 1024) by repeating the corpus PGN files
(../shared/corpus, or samples/ when the corpus is absent), then times, each the median
of RUNS runs (default 3), with the file in the page cache:

  pgnfen stats / filter --class standard -o /dev/null / convert --to shredder -o /dev/null / check
  pgnfen filter --tag 'WhiteElo>=2500' -o /dev/null / split -o '/tmp/DIR/{class}.pgn'
  grep -c '^\\[Event '   and   wc -l         (the yardsticks of raw scanning speed)
  pgn-extract --nosetuptags and pgn-extract -t (WhiteElo >= "2500") on a 100 MB slice
  (scaled to the whole size)
  pgnfen stats on a .pgn.zst of the archive against zstd -dc > /dev/null
  pgnfen stats and stats -j1 on a pzstd -p2 -3 .zst of the archive (frames decoded in
  parallel) against zstd -dc > /dev/null, paired rounds (`... SIZE_MB RUNS pzstd`: only this)

and the peak RSS of each pgnfen command (/usr/bin/time -v). Prints a table with MB/s and
ratios. Usage: python3 bench/bench.py [SIZE_MB] [RUNS]
Needs: cargo build --release; optional: pgn-extract, zstd, /usr/bin/time (apt-get install
pgn-extract zstd time).
"""
import glob, os, shutil, statistics, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(ROOT, "target", "release", "pgnfen")
SIZE_MB = int(sys.argv[1]) if len(sys.argv) > 1 else 1024
RUNS = int(sys.argv[2]) if len(sys.argv) > 2 else 3
OUT = os.path.join(ROOT, "bench", "out")
PGN_EXTRACT = shutil.which("pgn-extract") or ("/usr/games/pgn-extract" if os.path.exists("/usr/games/pgn-extract") else None)


def build_archive(path, size):
    # PGNFEN_CORPUS names the corpus when ../shared is not beside the checkout (a worktree).
    corpus = os.environ.get("PGNFEN_CORPUS") or os.path.normpath(os.path.join(ROOT, "..", "shared", "corpus"))
    files = sorted(glob.glob(os.path.join(corpus, "**", "*.pgn"), recursive=True)) or sorted(glob.glob(os.path.join(ROOT, "samples", "*.pgn")))
    # Keep every game whole: each file is followed by a blank line.
    block = b"".join(open(f, "rb").read().rstrip(b"\r\n") + b"\n\n" for f in files)
    with open(path, "wb") as out:
        written = 0
        while written < size:
            out.write(block)
            written += len(block)
    return written


def timed(cmd, shell=False):
    # Standard output goes to a file, not /dev/null: GNU grep stops at the first
    # match when it sees its output is /dev/null.
    runs = []
    with open(os.path.join(OUT, "stdout.txt"), "wb") as sink:
        for _ in range(RUNS):
            sink.seek(0)
            sink.truncate()
            t = time.perf_counter()
            subprocess.run(cmd, shell=shell, stdout=sink, stderr=subprocess.DEVNULL, check=False)
            runs.append(time.perf_counter() - t)
    return statistics.median(runs)


def peak_rss_mib(cmd):
    if not os.path.exists("/usr/bin/time"):
        return None
    p = subprocess.run(["/usr/bin/time", "-f", "%M"] + cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        return int(p.stderr.strip().splitlines()[-1]) / 1024
    except (ValueError, IndexError):
        return None


def main():
    if not os.path.exists(BIN):
        sys.exit("build first: cargo build --release")
    os.makedirs(OUT, exist_ok=True)
    archive = os.path.join(OUT, "archive.pgn")
    size = os.path.getsize(archive) if os.path.exists(archive) else 0
    if abs(size - SIZE_MB * 2**20) > 64 * 2**20:
        size = build_archive(archive, SIZE_MB * 2**20)
    mb = size / 1e6
    subprocess.run(["cat", archive], stdout=subprocess.DEVNULL)  # into the page cache
    print(f"archive: {archive}, {mb:.0f} MB, {os.cpu_count()} cores, median of {RUNS} runs\n")

    rows = []
    grep = timed(["grep", "-c", r"^\[Event ", archive])
    rows.append(("grep -c '^\\[Event '", grep, None))
    rows.append(("wc -l", timed(["wc", "-l", archive]), None))
    commands = [
        ("pgnfen stats", [BIN, "--no-progress", "stats", archive]),
        ("pgnfen filter --class standard", [BIN, "--no-progress", "-q", "filter", "--class", "standard", "-o", "/dev/null", archive]),
        ("pgnfen convert --to shredder", [BIN, "--no-progress", "-q", "convert", "--to", "shredder", "-o", "/dev/null", archive]),
        ("pgnfen check", [BIN, "--no-progress", "check", archive]),
        ("pgnfen filter --tag 'WhiteElo>=2500'", [BIN, "--no-progress", "-q", "filter", "--tag", "WhiteElo>=2500", "-o", "/dev/null", archive]),
    ]
    split_dir = tempfile.mkdtemp(prefix="pgnfen-split-")
    commands.append(("pgnfen split -o '/tmp/DIR/{class}.pgn'", [BIN, "--no-progress", "-q", "split", "-o", os.path.join(split_dir, "{class}.pgn"), archive]))
    for name, cmd in commands:
        rows.append((name, timed(cmd), peak_rss_mib(cmd)))
    shutil.rmtree(split_dir, ignore_errors=True)
    stats_time = rows[2][1]
    filter_time = rows[3][1]
    tag_time, split_time = rows[6][1], rows[7][1]

    if PGN_EXTRACT:
        slice_path = os.path.join(OUT, "slice.pgn")
        with open(archive, "rb") as src, open(slice_path, "wb") as dst:
            dst.write(src.read(100 * 10**6))
            rest = src.read(1 << 20)
            dst.write(rest[: rest.find(b"\n[Event ") + 1] if b"\n[Event " in rest else rest)
        slice_mb = os.path.getsize(slice_path) / 1e6
        t = timed([PGN_EXTRACT, "--quiet", "--nosetuptags", "-o", "/dev/null", slice_path])
        rows.append((f"pgn-extract --nosetuptags (100 MB slice, x{mb / slice_mb:.1f})", t * mb / slice_mb, None))
        crit = os.path.join(OUT, "criteria.txt")
        with open(crit, "w") as f:
            f.write('WhiteElo >= "2500"\n')
        t = timed([PGN_EXTRACT, "--quiet", "-t" + crit, "-o", "/dev/null", slice_path])
        rows.append((f"pgn-extract -t WhiteElo>=2500 (100 MB slice, x{mb / slice_mb:.1f})", t * mb / slice_mb, None))

    print(f"{'command':<48} {'seconds':>8} {'MB/s':>8} {'vs grep':>8} {'RSS MiB':>8}")
    for name, t, rss in rows:
        rss_s = f"{rss:8.1f}" if rss is not None else f"{'-':>8}"
        print(f"{name:<48} {t:8.3f} {mb / t:8.0f} {t / grep:8.2f} {rss_s}")
    if PGN_EXTRACT:
        print(f"\npgnfen filter is {rows[-2][1] / filter_time:.0f}x faster than pgn-extract --nosetuptags")
        print(f"pgnfen filter --tag is {rows[-1][1] / tag_time:.0f}x faster than pgn-extract -t (target: >= 100x)")
    print(f"pgnfen check / pgnfen stats: {rows[5][1] / stats_time:.2f}")
    print(f"pgnfen filter --tag / grep -c: {tag_time / grep:.2f} (target: <= 1.0)")
    print(f"pgnfen split / pgnfen filter --class standard: {split_time / filter_time:.2f} "
          f"(target: <= 1.3; split writes every game to a file, filter here writes to /dev/null)")

    pzstd_bench(archive)
    if shutil.which("zstd"):
        zst = archive + ".zst"
        if not os.path.exists(zst) or os.path.getmtime(zst) < os.path.getmtime(archive):
            subprocess.run(["zstd", "-q", "-f", "-T0", archive, "-o", zst], check=True)
        dc = timed(f"zstd -dc {zst} > /dev/null", shell=True)
        st = timed([BIN, "--no-progress", "stats", zst])
        print(f"\nzstd -dc > /dev/null: {dc:.3f}s; pgnfen stats on .zst: {st:.3f}s; ratio {st / dc:.2f}")


def pzstd_bench(archive):
    """pgnfen stats on a pzstd-written archive (independent frames, decoded in
    parallel) against `zstd -dc > /dev/null`: the commands are run in turn,
    round after round (paired, so that the load of the machine hits them alike),
    and the medians compared."""
    if not shutil.which("pzstd"):
        print("\npzstd not found (apt-get install zstd): the pzstd benchmark is skipped")
        return
    pz = archive + ".pzstd.zst"
    if not os.path.exists(pz) or os.path.getmtime(pz) < os.path.getmtime(archive):
        subprocess.run(["pzstd", "-q", "-f", "-p2", "-3", archive, "-o", pz], check=True)
    subprocess.run(["cat", pz], stdout=subprocess.DEVNULL)
    cmds = [
        ("zstd -dc > /dev/null", f"zstd -dc {pz} > /dev/null", True),
        ("pgnfen stats", [BIN, "--no-progress", "stats", pz], False),
        ("pgnfen stats -j1", [BIN, "--no-progress", "-j1", "stats", pz], False),
    ]
    times = {name: [] for name, _, _ in cmds}
    with open(os.path.join(OUT, "stdout.txt"), "wb") as sink:
        for _ in range(max(RUNS, 5)):
            for name, cmd, shell in cmds:
                t = time.perf_counter()
                subprocess.run(cmd, shell=shell, stdout=sink, stderr=subprocess.DEVNULL, check=False)
                times[name].append(time.perf_counter() - t)
    med = {name: statistics.median(ts) for name, ts in times.items()}
    dc = med["zstd -dc > /dev/null"]
    print(f"\npzstd -p2 -3 archive ({os.path.getsize(pz) / 1e6:.0f} MB compressed), "
          f"{os.cpu_count()} cores, medians of {max(RUNS, 5)} paired rounds:")
    for name, cmd, _ in cmds:
        rss = None if name.startswith("zstd") else peak_rss_mib(cmd)
        rss_s = f", peak RSS {rss:.0f} MiB" if rss is not None else ""
        print(f"  {name:<22} {med[name]:7.3f}s  {med[name] / dc:5.2f}x zstd -dc{rss_s}")
    print("  (targets on 2 cores: pgnfen stats <= 0.65x, pgnfen stats -j1 ~ 1.0x)")


if __name__ == "__main__":
    if len(sys.argv) > 3 and sys.argv[3] == "pzstd":
        # Only the pzstd comparison: python3 bench/bench.py SIZE_MB RUNS pzstd
        os.makedirs(OUT, exist_ok=True)
        path = os.path.join(OUT, "archive.pgn")
        if not os.path.exists(path) or abs(os.path.getsize(path) - SIZE_MB * 2**20) > 64 * 2**20:
            build_archive(path, SIZE_MB * 2**20)
        pzstd_bench(path)
    else:
        main()
