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
  pgnfen export -o x.parquet (and .csv.zst) against pgnfen stats in the same run, with
  the output's size; and on the real corpus (real/*.pgn concatenated, 26 MB) against
  python-chess read_headers -> pandas -> Parquet (in .venv: chess, pandas, pyarrow)

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
    corpus = os.path.normpath(os.path.join(ROOT, "..", "shared", "corpus"))
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

    export_bench(archive, mb, stats_time)

    if shutil.which("zstd"):
        zst = archive + ".zst"
        if not os.path.exists(zst) or os.path.getmtime(zst) < os.path.getmtime(archive):
            subprocess.run(["zstd", "-q", "-f", "-T0", archive, "-o", zst], check=True)
        dc = timed(f"zstd -dc {zst} > /dev/null", shell=True)
        st = timed([BIN, "--no-progress", "stats", zst])
        print(f"\nzstd -dc > /dev/null: {dc:.3f}s; pgnfen stats on .zst: {st:.3f}s; ratio {st / dc:.2f}")


PANDAS_SCRIPT = r'''
import sys, time, chess.pgn, pandas
t = time.perf_counter()
rows = []
with open(sys.argv[1], encoding="utf-8", errors="replace") as f:
    while (h := chess.pgn.read_headers(f)) is not None:
        rows.append(dict(h))
pandas.DataFrame(rows).to_parquet(sys.argv[2], compression="zstd")
print(time.perf_counter() - t, len(rows))
'''


def export_bench(archive, mb, stats_time):
    tmp = tempfile.mkdtemp(prefix="pgnfen-export-")
    out = os.path.join(tmp, "x.parquet")
    rows = []
    for name, cmd, path in [
        ("pgnfen export -o x.parquet", [BIN, "--no-progress", "-q", "export", "-o", out, archive], out),
        ("pgnfen export -o x.csv.zst", [BIN, "--no-progress", "-q", "export", "-o", out + ".csv.zst", archive], out + ".csv.zst"),
    ]:
        # stats and export alternate, so that both see the same machine load.
        pairs = []
        for _ in range(RUNS):
            pairs.append((timed([BIN, "--no-progress", "stats", archive]), timed(cmd)))
        st = statistics.median(p[0] for p in pairs)
        ex = statistics.median(p[1] for p in pairs)
        rows.append((name, ex, st, os.path.getsize(path), peak_rss_mib(cmd)))
    print(f"\n{'command':<32} {'seconds':>8} {'MB/s':>8} {'stats s':>8} {'x stats':>8} {'size MB':>8} {'RSS MiB':>8}")
    for name, ex, st, size, rss in rows:
        rss_s = f"{rss:8.1f}" if rss is not None else f"{'-':>8}"
        print(f"{name:<32} {ex:8.3f} {mb / ex:8.0f} {st:8.3f} {ex / st:8.2f} {size / 1e6:8.1f} {rss_s}")
    print("(target: export -o x.parquet <= 2.5x stats, peak RSS < 256 MiB)")

    # python-chess read_headers -> pandas -> Parquet, on the real corpus.
    py = os.path.join(ROOT, ".venv", "bin", "python")
    corpus = os.path.join(os.environ.get("PGNFEN_CORPUS") or os.path.normpath(os.path.join(ROOT, "..", "shared", "corpus")), "real")
    check = subprocess.run([py, "-c", "import chess, pandas, pyarrow"], capture_output=True) if os.path.exists(py) else None
    if not os.path.isdir(corpus) or check is None or check.returncode != 0:
        print("python-chess comparison skipped: needs ../shared/corpus/real and .venv with chess, pandas, pyarrow")
        shutil.rmtree(tmp, ignore_errors=True)
        return
    real = os.path.join(tmp, "real.pgn")
    with open(real, "wb") as f:
        for name in sorted(glob.glob(os.path.join(corpus, "*.pgn"))):
            f.write(open(name, "rb").read().rstrip(b"\r\n") + b"\n\n")
    real_mb = os.path.getsize(real) / 1e6
    ours = timed([BIN, "--no-progress", "-q", "export", "-o", out, real])
    theirs = []
    for _ in range(max(1, min(RUNS, 3))):
        p = subprocess.run([py, "-c", PANDAS_SCRIPT, real, os.path.join(tmp, "pc.parquet")], capture_output=True, text=True, check=True)
        theirs.append(float(p.stdout.split()[0]))
    theirs = statistics.median(theirs)
    print(f"real corpus ({real_mb:.1f} MB): pgnfen export -o x.parquet {ours:.3f} s ({real_mb / ours:.0f} MB/s); "
          f"python-chess read_headers -> pandas -> Parquet {theirs:.2f} s ({real_mb / theirs:.2f} MB/s): "
          f"{theirs / ours:.0f}x (target: >= 100x)")
    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
