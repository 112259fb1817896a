#!/usr/bin/env python3
"""Whole-command benchmark of pgnfen against grep, wc and pgn-extract, in one run.

Builds up to three archives of about SIZE_MB each (default 1024) from the corpus PGN
files ($PGNFEN_CORPUS, else samples/), under bench/out/:

  ordinary  archive.pgn           the corpus files repeated (about 13 % of the games
                                  carry a FEN; every FEN repeats once per copy)
  distinct  archive-distinct.pgn  the same, each FEN tag made distinct by rewriting
                                  its fullmove number (see distinct_fens below); the
                                  games whose FEN cannot be rewritten so are in the
                                  first copy only (without_fixed_fens): no FEN value
                                  repeats but within a header
  fen       archive-fen.pgn       only the corpus games with a FEN tag, repeated,
                                  FENs made distinct the same way (an engine-testing
                                  archive: every game starts from a book position)

Each archive is made again when the corpus or the way it is made changed (a
`.stamp` file beside it). A command that fails stops the benchmark. Each table
says how much of the machine other processes took while it ran: pgnfen uses every
core, grep and zstd one, so other work flatters the yardsticks.

The repeats of the ordinary archive let the per-thread memos of FEN analyses answer
almost every FEN after the first copy; the other two show the full price of a FEN.
On each archive it times, with the file in the page cache, in RUNS rounds (default 3)
that each run every command once (a ratio to grep is the median of the rounds' ratios,
so that a slow spell of the machine weighs on both sides of it):

  pgnfen stats / filter --class standard -o /dev/null / convert --to shredder -o /dev/null / check
  pgnfen filter --tag 'WhiteElo>=2500' -o /dev/null / split -o '/tmp/DIR/{class}.pgn'
  grep -c '^\\[Event '   and   wc -l         (the yardsticks of raw scanning speed)
  pgn-extract --nosetuptags and pgn-extract -t (WhiteElo >= "2500") on a 100 MB slice
  (scaled to the whole size)
  pgnfen stats on a .pgn.zst of the ordinary archive against zstd -dc > /dev/null
  pgnfen stats and stats -j1 on a pzstd -p2 -3 .zst of the ordinary archive (frames
  decoded in parallel) against zstd -dc > /dev/null, paired rounds
  pgnfen filter -o x.pgn.zst (frames compressed on every core) against -o x.pgn,
  alternating runs
  pgnfen export -o x.parquet (and .csv.zst) against pgnfen stats in the same run, with
  the output's size; and on the real corpus (real/*.pgn concatenated, 26 MB) against
  python-chess read_headers -> pandas -> Parquet (in .venv: chess, pandas, pyarrow)

and the peak RSS of each pgnfen command (/usr/bin/time -v). Prints a table per archive
with MB/s and ratios to grep (measured in the same run).

Usage: python3 bench/bench.py [SIZE_MB] [RUNS] [--archives ordinary,distinct,fen]
                              [--baseline BIN] [--no-extract]
  --baseline BIN  also time BIN (another pgnfen build) on every pgnfen command, runs of
                  the two binaries alternating, and print the paired ratio new/old
                  (median of the per-pair ratios)
  --no-extract    skip pgn-extract and zstd (quick iteration; e.g. SIZE_MB 256)
Needs: cargo build --release; optional: pgn-extract, zstd, /usr/bin/time (apt-get install
pgn-extract zstd time).
"""
import argparse, glob, hashlib, json, os, re, resource, shlex, shutil, statistics, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def release_dir():
    """Where `cargo build --release` writes: target/release, or release/ under
    CARGO_TARGET_DIR when it is set (a relative one from the repository)."""
    return os.path.join(ROOT, os.environ.get("CARGO_TARGET_DIR") or "target", "release")


BIN = os.path.join(release_dir(), "pgnfen")
OUT = os.path.join(ROOT, "bench", "out")
PGN_EXTRACT = shutil.which("pgn-extract") or ("/usr/games/pgn-extract" if os.path.exists("/usr/games/pgn-extract") else None)
ARCHIVES = {
    "ordinary": "archive.pgn",
    "distinct": "archive-distinct.pgn",
    "fen": "archive-fen.pgn",
}
# A FEN tag alone on its line whose fullmove number is canonical (no leading zero,
# not 0: those are warnings the rewrite must not remove) and below FULLMOVE_STEP.
FEN_LINE = re.compile(rb'^\[FEN "([^"\\\r\n]* )([1-9][0-9]{0,2})"\][ \t]*\r?$', re.M)
FULLMOVE_STEP = 1000
# Changed whenever the archives' making changes, so that archives of an older
# making are built again (with the corpus files' names, sizes and times, and
# the size asked for, in each archive's `.stamp` file).
ARCHIVE_MAKING = 2

# The speed targets (docs/performance.md), each measured as a ratio in this run: name ->
# (how the ratio reads, target, "<=" or ">="). `TARGETS_SEEN` gets the ratios.
TARGETS = [
    ("export -o x.parquet / stats (ordinary)", 2.5, "<="),
    ("stats on pzstd .zst / zstd -dc > /dev/null", 0.6, "<="),
    ("stats / grep -c (fen)", 0.8, "<="),
    ("convert --to shredder / grep -c (fen)", 1.2, "<="),
    ("stats / grep -c (ordinary)", 0.6, "<="),
    ("filter --class standard / grep -c (ordinary)", 0.6, "<="),
    # The ordinary rows again without the memo's help (docs/performance.md: no
    # cache that only a repeated archive can hit counts toward a target).
    ("stats / grep -c (distinct)", 0.6, "<="),
    ("filter --class standard / grep -c (distinct)", 0.6, "<="),
    ("Python games().headers vs python-chess read_headers (x faster)", 25.0, ">="),
    ("writing -o x.pgn.zst / writing -o x.pgn", 1.5, "<="),
]
TARGETS_SEEN = {}


def cpu_seconds():
    """(CPU-seconds the whole machine has been busy, CPU-seconds of this
    benchmark and the commands it ran, wall-clock seconds): the difference of
    two readings tells how much other processes took meanwhile. pgnfen runs
    on every core and grep or zstd on one, so a core taken by other work
    slows only pgnfen's side of a ratio."""
    with open("/proc/stat") as f:
        ticks = [int(x) for x in f.readline().split()[1:9]]
    busy = (sum(ticks) - ticks[3] - ticks[4]) / os.sysconf("SC_CLK_TCK")  # less idle and iowait
    own = sum(r.ru_utime + r.ru_stime for r in (resource.getrusage(resource.RUSAGE_SELF),
                                                 resource.getrusage(resource.RUSAGE_CHILDREN)))
    return busy, own, time.perf_counter()


def other_load(since):
    """What other processes took since the reading `since`: (CPU-seconds,
    share of all cores' time)."""
    busy, own, wall = cpu_seconds()
    other = max(0.0, (busy - since[0]) - (own - since[1]))
    return other, other / max(1e-9, (wall - since[2]) * (os.cpu_count() or 1))


def corpus_block():
    corpus = os.environ.get("PGNFEN_CORPUS", "")
    files = (sorted(glob.glob(os.path.join(corpus, "**", "*.pgn"), recursive=True)) if corpus else []) or sorted(glob.glob(os.path.join(ROOT, "samples", "*.pgn")))
    # Keep every game whole: each file is followed by a blank line.
    return b"".join(open(f, "rb").read().rstrip(b"\r\n") + b"\n\n" for f in files)


def fen_games(block):
    """The games of `block` that have a FEN tag, byte for byte (pgnfen filter --tag)."""
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "block.pgn")
        with open(src, "wb") as f:
            f.write(block)
        p = subprocess.run([BIN, "-q", "filter", "--tag", "FEN~", src], stdout=subprocess.PIPE, check=True)
        return p.stdout


def distinct_fens(block):
    """A template of `block` whose FEN tags get distinct fullmove numbers per copy.

    Returns (pieces, slots, headers): `block` cut at each rewritable fullmove number
    (pieces has one more element than slots), for each slot (original number, header
    index). In copy c, header h's tags get `number + (c * headers + h) * FULLMOVE_STEP`:
    FENs of different headers never meet, and the FEN tags of one header keep their
    equalities (a repeated FEN tag with the same value stays a repeat, not a
    duplicate-tag problem), so classes and problems do not change. Only the clock
    changes, which no check reads beyond its syntax.
    """
    pieces, slots = [], []
    last, header, prev_end = 0, -1, None
    for m in FEN_LINE.finditer(block):
        # The same header as the last FEN tag when only tag lines lie between them.
        lines = block[prev_end:m.start()].split(b"\n")[1:-1] if prev_end is not None else [b""]
        if any(not l.strip() or not l.startswith(b"[") for l in lines):
            header += 1
        pieces.append(block[last:m.start(2)])
        slots.append((int(m.group(2)), header))
        last, prev_end = m.end(2), m.end()
    pieces.append(block[last:])
    return pieces, slots, header + 1


FEN_TAG_LINE = re.compile(rb'^\[FEN ', re.M)


def without_fixed_fens(block):
    """`block` without the games whose FEN tags the rewrite cannot make
    distinct (a FEN tag not alone on its line, without clocks, or with a
    fullmove number of 0, a leading zero or 1,000 and more: 558 FEN tags of the
    corpus, mostly puzzles' `... 1 0` and FENs without clocks). A distinct
    archive has them in its first copy only, so that no FEN value of it
    repeats (but within one header, where repeats are kept as they are).
    The games are cut by pgnfen itself (export's offsets and lengths)."""
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "block.pgn")
        with open(src, "wb") as f:
            f.write(block)
        p = subprocess.run([BIN, "-q", "export", "--format", "jsonl", "--tags", "Event", src],
                           stdout=subprocess.PIPE, check=True)
    kept = []
    for line in p.stdout.splitlines():
        row = json.loads(line)
        game = block[row["offset"]:row["offset"] + row["length"]]
        if len(FEN_TAG_LINE.findall(game)) == len(FEN_LINE.findall(game)):
            kept.append(game)
    return b"".join(kept)


def build_archive(path, size, block, distinct):
    with open(path + ".tmp", "wb") as out:
        written, copy = 0, 0
        if distinct:
            templates = [distinct_fens(block), distinct_fens(without_fixed_fens(block))]
            headers = max(t[2] for t in templates)
        while written < size:
            if distinct:
                pieces, slots, _ = templates[min(copy, 1)]
                base = copy * headers
                if (base + headers) * FULLMOVE_STEP >= 2**32:
                    sys.exit("archive too large for distinct fullmove numbers")
                parts = [pieces[0]]
                for (n, h), piece in zip(slots, pieces[1:]):
                    parts.append(b"%d" % (n + (base + h) * FULLMOVE_STEP))
                    parts.append(piece)
                data = b"".join(parts)
            else:
                data = block
            out.write(data)
            written += len(data)
            copy += 1
    os.replace(path + ".tmp", path)
    return written, copy


def run_timed(cmd, sink, shell=False):
    """One run of `cmd`, its output into `sink`: its wall time. A run that
    fails stops the benchmark: a command that exits at once would otherwise
    read as fast as a target asks (`pgnfen check` may exit 1, for problems)."""
    with open(os.path.join(OUT, "stderr.txt"), "wb") as err:
        t = time.perf_counter()
        p = subprocess.run(cmd, shell=shell, stdout=sink, stderr=err, check=False)
        elapsed = time.perf_counter() - t
    ok = (0, 1) if isinstance(cmd, list) and "check" in cmd else (0,)
    if p.returncode not in ok:
        with open(os.path.join(OUT, "stderr.txt"), "rb") as err:
            tail = err.read()[-2000:].decode("utf-8", "replace")
        shown = cmd if shell else shlex.join(cmd)
        sys.exit(f"bench: {shown} exited with status {p.returncode}; its standard error:\n{tail}")
    return elapsed


def timed(cmd, runs, shell=False):
    # Standard output goes to a file, not /dev/null: GNU grep stops at the first
    # match when it sees its output is /dev/null.
    times = []
    with open(os.path.join(OUT, "stdout.txt"), "wb") as sink:
        for _ in range(runs):
            sink.seek(0)
            sink.truncate()
            times.append(run_timed(cmd, sink, shell))
    return statistics.median(times), times


def rounds(cmds, runs):
    """Each of `cmds` (name, argv) run once per round, `runs` rounds, the order
    rotated from round to round: the times of each command by round."""
    times = {name: [] for name, _ in cmds}
    for r in range(runs):
        k = r % len(cmds)
        for name, cmd in cmds[k:] + cmds[:k]:
            times[name].append(timed(cmd, 1)[0])
    return times


def paired(new, old, runs):
    """Alternating runs of two commands: medians of each, and the median new/old ratio."""
    a, b = [], []
    for i in range(runs):
        first, second = (new, old) if i % 2 == 0 else (old, new)
        t1 = timed(first, 1)[0]
        t2 = timed(second, 1)[0]
        (a if first is new else b).append(t1)
        (b if first is new else a).append(t2)
    return statistics.median(a), statistics.median(b), statistics.median(x / y for x, y in zip(a, b))


def peak_rss_mib(cmd):
    if not os.path.exists("/usr/bin/time"):
        return None
    p = subprocess.run(["/usr/bin/time", "-f", "%M"] + cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        return int(p.stderr.strip().splitlines()[-1]) / 1024
    except (ValueError, IndexError):
        return None


def pgnfen_commands(binary, archive, split_dir):
    return [
        ("pgnfen stats", [binary, "--no-progress", "stats", archive]),
        ("pgnfen filter --class standard", [binary, "--no-progress", "-q", "filter", "--class", "standard", "-o", "/dev/null", archive]),
        ("pgnfen convert --to shredder", [binary, "--no-progress", "-q", "convert", "--to", "shredder", "-o", "/dev/null", archive]),
        ("pgnfen check", [binary, "--no-progress", "check", archive]),
        ("pgnfen filter --tag 'WhiteElo>=2500'", [binary, "--no-progress", "-q", "filter", "--tag", "WhiteElo>=2500", "-o", "/dev/null", archive]),
        ("pgnfen split -o '/tmp/DIR/{class}.pgn'", [binary, "--no-progress", "-q", "split", "-o", os.path.join(split_dir, "{class}.pgn"), archive]),
    ]


def bench_archive(kind, archive, args):
    start = cpu_seconds()
    size = os.path.getsize(archive)
    mb = size / 1e6
    subprocess.run(["cat", archive], stdout=subprocess.DEVNULL)  # into the page cache
    games = subprocess.run(["grep", "-c", r"^\[Event ", archive], capture_output=True, text=True).stdout.strip()
    fens = subprocess.run(["grep", "-c", r"^\[FEN ", archive], capture_output=True, text=True).stdout.strip()
    print(f"== {kind}: {archive}, {mb:.0f} MB, {int(games):,} [Event lines, {int(fens):,} [FEN lines; "
          f"{os.cpu_count()} cores, medians of {args.runs} rounds (ratios: per round, to grep's time in it)")

    # Every command runs once per round, the rounds one after the other, so that
    # a slow spell of the machine (page-cache writeback, another process) hits
    # all of them alike; a ratio to grep is the median of the ratios of the
    # rounds (each command against grep's time in the same round).
    split_dir = tempfile.mkdtemp(prefix="pgnfen-split-")
    old_dir = tempfile.mkdtemp(prefix="pgnfen-split-old-")
    grep_name = "grep -c '^\\[Event '"
    cmds = [(grep_name, ["grep", "-c", r"^\[Event ", archive]), ("wc -l", ["wc", "-l", archive])]
    new_cmds = pgnfen_commands(BIN, archive, split_dir)
    cmds += new_cmds
    if args.baseline:
        cmds += [("old " + name, cmd) for name, cmd in pgnfen_commands(args.baseline, archive, old_dir)]
    times = rounds(cmds, args.runs)
    grep_times = times[grep_name]
    grep = statistics.median(grep_times)
    ratio_to_grep = {name: statistics.median(t / g for t, g in zip(ts, grep_times)) for name, ts in times.items()}
    rows = [(grep_name, grep, None, None), ("wc -l", statistics.median(times["wc -l"]), None, None)]
    by_name = {}
    for name, cmd in new_cmds:
        t = statistics.median(times[name])
        pair = None
        if args.baseline:
            old = times["old " + name]
            pair = (statistics.median(old), statistics.median(a / b for a, b in zip(times[name], old)))
        rows.append((name, t, peak_rss_mib(cmd), pair))
        by_name[name] = ratio_to_grep[name] * grep
    shutil.rmtree(split_dir, ignore_errors=True)
    shutil.rmtree(old_dir, ignore_errors=True)

    extract = {}
    if not PGN_EXTRACT and not args.no_extract:
        print("pgn-extract not found (apt-get install pgn-extract): its rows are skipped")
    if PGN_EXTRACT and not args.no_extract:
        slice_path = os.path.join(OUT, "slice.pgn")
        with open(archive, "rb") as src, open(slice_path, "wb") as dst:
            dst.write(src.read(100 * 10**6))
            rest = src.read(1 << 20)
            dst.write(rest[: rest.find(b"\n[Event ") + 1] if b"\n[Event " in rest else rest)
        slice_mb = os.path.getsize(slice_path) / 1e6
        t = timed([PGN_EXTRACT, "--quiet", "--nosetuptags", "-o", "/dev/null", slice_path], args.runs)[0]
        extract["nosetuptags"] = t * mb / slice_mb
        rows.append((f"pgn-extract --nosetuptags (100 MB slice, x{mb / slice_mb:.1f})", extract["nosetuptags"], None, None))
        crit = os.path.join(OUT, "criteria.txt")
        with open(crit, "w") as f:
            f.write('WhiteElo >= "2500"\n')
        t = timed([PGN_EXTRACT, "--quiet", "-t" + crit, "-o", "/dev/null", slice_path], args.runs)[0]
        extract["t"] = t * mb / slice_mb
        rows.append((f"pgn-extract -t WhiteElo>=2500 (100 MB slice, x{mb / slice_mb:.1f})", extract["t"], None, None))

    head = f"{'command':<48} {'seconds':>8} {'MB/s':>8} {'vs grep':>8} {'RSS MiB':>8}"
    if args.baseline:
        head += f" {'old s':>8} {'new/old':>8}"
    print(head)
    for name, t, rss, pair in rows:
        rss_s = f"{rss:8.1f}" if rss is not None else f"{'-':>8}"
        line = f"{name:<48} {t:8.3f} {mb / t:8.0f} {ratio_to_grep.get(name, t / grep):8.2f} {rss_s}"
        if pair:
            line += f" {pair[0]:8.3f} {pair[1]:8.3f}"
        print(line)
    stats_time = by_name["pgnfen stats"]
    filter_time = by_name["pgnfen filter --class standard"]
    tag_time = by_name["pgnfen filter --tag 'WhiteElo>=2500'"]
    split_time = by_name["pgnfen split -o '/tmp/DIR/{class}.pgn'"]
    if extract:
        print(f"pgnfen filter is {extract['nosetuptags'] / filter_time:.0f}x faster than pgn-extract --nosetuptags")
        print(f"pgnfen filter --tag is {extract['t'] / tag_time:.0f}x faster than pgn-extract -t")
    print(f"pgnfen check / pgnfen stats: {by_name['pgnfen check'] / stats_time:.2f}")
    print(f"pgnfen stats / grep -c: {stats_time / grep:.2f}; filter / grep -c: {filter_time / grep:.2f}; "
          f"convert / grep -c: {by_name['pgnfen convert --to shredder'] / grep:.2f}")
    other, share = other_load(start)
    print(f"other processes took {other:.1f} CPU-seconds while these rounds ran ({share:.0%} of the cores' time)")
    print(f"pgnfen filter --tag / grep -c: {tag_time / grep:.2f}")
    if kind == "fen":
        TARGETS_SEEN["stats / grep -c (fen)"] = stats_time / grep
        TARGETS_SEEN["convert --to shredder / grep -c (fen)"] = by_name["pgnfen convert --to shredder"] / grep
    if kind in ("ordinary", "distinct"):
        TARGETS_SEEN[f"stats / grep -c ({kind})"] = stats_time / grep
        TARGETS_SEEN[f"filter --class standard / grep -c ({kind})"] = filter_time / grep
    print(f"pgnfen split / pgnfen filter --class standard: {split_time / filter_time:.2f} "
          f"(split writes every game to a file, filter here writes to /dev/null)")

    if kind == "ordinary":
        export_bench(archive, mb, stats_time, args.runs)
        pzstd_bench(archive, args.runs)
        zst_write_bench(archive, args.runs)
    if kind == "ordinary" and shutil.which("zstd") and not args.no_extract:
        zst = archive + ".zst"
        if not os.path.exists(zst) or os.path.getmtime(zst) < os.path.getmtime(archive):
            subprocess.run(["zstd", "-q", "-f", "-T0", archive, "-o", zst], check=True)
        dc = timed(f"zstd -dcf {shlex.quote(zst)} > /dev/null", args.runs, shell=True)[0]
        st = timed([BIN, "--no-progress", "stats", zst], args.runs)[0]
        print(f"zstd -dc > /dev/null: {dc:.3f}s; pgnfen stats on .zst: {st:.3f}s; ratio {st / dc:.2f}")
    print()


def zst_write_bench(archive, runs):
    """Writing a .pgn.zst (independent frames compressed on every core) against
    writing the same games plain, both to files under bench/out (the same disk),
    in alternating runs; the ratio is of wall times, pair by pair."""
    plain = os.path.join(OUT, "written.pgn")
    zst = os.path.join(OUT, "written.pgn.zst")
    cmd = lambda out: [BIN, "--no-progress", "-q", "filter", "--class", "standard", "-o", out, archive]
    z, p, ratio = paired(cmd(zst), cmd(plain), max(runs, 3))
    TARGETS_SEEN["writing -o x.pgn.zst / writing -o x.pgn"] = ratio
    print(f"\nwriting -o x.pgn.zst {z:.3f}s ({os.path.getsize(zst) / 1e6:.0f} MB) against -o x.pgn "
          f"{p:.3f}s ({os.path.getsize(plain) / 1e6:.0f} MB): {ratio:.2f}x (filter --class standard)")
    for f in (plain, zst):
        os.remove(f)


def pzstd_bench(archive, runs):
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
        ("zstd -dc > /dev/null", f"zstd -dcf {shlex.quote(pz)} > /dev/null", True),
        ("pgnfen stats", [BIN, "--no-progress", "stats", pz], False),
        ("pgnfen stats -j1", [BIN, "--no-progress", "-j1", "stats", pz], False),
    ]
    times = {name: [] for name, _, _ in cmds}
    with open(os.path.join(OUT, "stdout.txt"), "wb") as sink:
        for _ in range(max(runs, 5)):
            for name, cmd, shell in cmds:
                times[name].append(run_timed(cmd, sink, shell))
    med = {name: statistics.median(ts) for name, ts in times.items()}
    dc = med["zstd -dc > /dev/null"]
    TARGETS_SEEN["stats on pzstd .zst / zstd -dc > /dev/null"] = med["pgnfen stats"] / dc
    print(f"\npzstd -p2 -3 archive ({os.path.getsize(pz) / 1e6:.0f} MB compressed), "
          f"{os.cpu_count()} cores, medians of {max(runs, 5)} paired rounds:")
    for name, cmd, _ in cmds:
        rss = None if name.startswith("zstd") else peak_rss_mib(cmd)
        rss_s = f", peak RSS {rss:.0f} MiB" if rss is not None else ""
        print(f"  {name:<22} {med[name]:7.3f}s  {med[name] / dc:5.2f}x zstd -dc{rss_s}")
    target = next(t for name, t, _ in TARGETS if name == "stats on pzstd .zst / zstd -dc > /dev/null")
    print(f"  (targets on 2 cores: pgnfen stats <= {target}x, pgnfen stats -j1 ~ 1.0x)")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("size_mb", nargs="?", type=int, default=1024)
    ap.add_argument("runs", nargs="?", type=int, default=3)
    ap.add_argument("--archives", default="ordinary,distinct,fen")
    ap.add_argument("--baseline")
    ap.add_argument("--no-extract", action="store_true")
    args = ap.parse_args()
    if not os.path.exists(BIN):
        sys.exit("build first: cargo build --release")
    kinds = [k for k in args.archives.split(",") if k]
    for k in kinds:
        if k not in ARCHIVES:
            sys.exit(f"unknown archive {k!r}; expected some of {','.join(ARCHIVES)}")
    os.makedirs(OUT, exist_ok=True)
    if not os.environ.get("PGNFEN_CORPUS"):
        print("PGNFEN_CORPUS is not set: the archives are made of samples/ (28 KB), not the corpus")
    block = corpus_block()
    suffix = "" if args.size_mb == 1024 else f"-{args.size_mb}"
    start = cpu_seconds()
    for kind in kinds:
        name = ARCHIVES[kind].replace(".pgn", f"{suffix}.pgn")
        path = os.path.join(OUT, name)
        want = args.size_mb * 2**20
        # What the archive is made of and how: an archive of another corpus or
        # an older making is made again (the size alone would not tell).
        stamp = hashlib.sha256(block + json.dumps([ARCHIVE_MAKING, kind, want]).encode()).hexdigest()
        stamp_path = path + ".stamp"
        made = open(stamp_path).read().strip() if os.path.exists(stamp_path) and os.path.exists(path) else None
        if made != stamp:
            source = fen_games(block) if kind == "fen" else block
            written, copies = build_archive(path, want, source, kind != "ordinary")
            with open(stamp_path, "w") as f:
                f.write(stamp + "\n")
            print(f"built {path}: {written / 1e6:.0f} MB, {copies} copies of {len(source) / 1e6:.2f} MB")
        bench_archive(kind, path, args)
    python_headers_bench()
    print_targets(other_load(start))


def python_headers_bench():
    """`for g in pgnfen.games(p): g.headers` against python-chess's read_headers
    loop on the real corpus files (python/bench.py, in .venv with the package
    and chess installed)."""
    py = os.path.join(ROOT, ".venv", "bin", "python")
    corpus = os.environ.get("PGNFEN_CORPUS", "")
    check = subprocess.run([py, "-c", "import chess, pgnfen"], capture_output=True) if os.path.exists(py) else None
    if not corpus or check is None or check.returncode != 0:
        print("Python headers: skipped (needs PGNFEN_CORPUS and .venv with pgnfen and chess: scripts/test-all.sh, pip install chess)")
        return
    p = subprocess.run([py, os.path.join(ROOT, "python", "bench.py")], capture_output=True, text=True)
    print(p.stdout.rstrip())
    m = re.search(r"^headers: .* rounds\): ([0-9.]+)x", p.stdout, re.M)
    if p.returncode == 0 and m:
        TARGETS_SEEN["Python games().headers vs python-chess read_headers (x faster)"] = float(m.group(1))


def print_targets(load):
    """Every speed target with its ratio in this run, and how much of the
    machine other processes took meanwhile (`load`, from `other_load`)."""
    print("\n== speed targets, ratios of this run")
    other, share = load
    print(f"other processes took {other:.1f} CPU-seconds during the run ({share:.0%} of the cores' time)"
          + ("; above a few per cent the ratios against grep and zstd (one thread) flatter them"
             " against pgnfen (every core): run again on a quiet machine" if share > 0.03 else ""))
    print(f"{'ratio':<64} {'now':>7} {'target':>9}  met")
    for name, target, way in TARGETS:
        got = TARGETS_SEEN.get(name)
        if got is None:
            print(f"{name:<64} {'-':>7} {way + ' ' + format(target, 'g'):>9}  not measured in this run")
            continue
        met = got <= target if way == "<=" else got >= target
        print(f"{name:<64} {got:7.2f} {way + ' ' + format(target, 'g'):>9}  {'yes' if met else 'no'}")


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


def export_bench(archive, mb, stats_time, runs):
    tmp = tempfile.mkdtemp(prefix="pgnfen-export-")
    out = os.path.join(tmp, "x.parquet")
    rows = []
    for name, cmd, path in [
        ("pgnfen export -o x.parquet", [BIN, "--no-progress", "-q", "export", "-o", out, archive], out),
        ("pgnfen export -o x.csv.zst", [BIN, "--no-progress", "-q", "export", "-o", out + ".csv.zst", archive], out + ".csv.zst"),
    ]:
        # stats and export alternate, so that both see the same machine load.
        pairs = []
        for _ in range(runs):
            pairs.append((timed([BIN, "--no-progress", "stats", archive], 1)[0], timed(cmd, 1)[0]))
        st = statistics.median(p[0] for p in pairs)
        ex = statistics.median(p[1] for p in pairs)
        rows.append((name, ex, st, os.path.getsize(path), peak_rss_mib(cmd)))
    print(f"\n{'command':<32} {'seconds':>8} {'MB/s':>8} {'stats s':>8} {'x stats':>8} {'size MB':>8} {'RSS MiB':>8}")
    for name, ex, st, size, rss in rows:
        rss_s = f"{rss:8.1f}" if rss is not None else f"{'-':>8}"
        print(f"{name:<32} {ex:8.3f} {mb / ex:8.0f} {st:8.3f} {ex / st:8.2f} {size / 1e6:8.1f} {rss_s}")
    print("(target: export -o x.parquet <= 2.5x stats, peak RSS < 256 MiB)")
    TARGETS_SEEN["export -o x.parquet / stats (ordinary)"] = rows[0][1] / rows[0][2]

    # python-chess read_headers -> pandas -> Parquet, on the real corpus.
    py = os.path.join(ROOT, ".venv", "bin", "python")
    corpus = os.path.join(os.environ.get("PGNFEN_CORPUS", ""), "real")
    check = subprocess.run([py, "-c", "import chess, pandas, pyarrow"], capture_output=True) if os.path.exists(py) else None
    if not os.path.isdir(corpus) or check is None or check.returncode != 0:
        print("python-chess comparison skipped: needs PGNFEN_CORPUS (its real/ folder) and .venv with chess, pandas, pyarrow")
        shutil.rmtree(tmp, ignore_errors=True)
        return
    real = os.path.join(tmp, "real.pgn")
    with open(real, "wb") as f:
        for name in sorted(glob.glob(os.path.join(corpus, "*.pgn"))):
            f.write(open(name, "rb").read().rstrip(b"\r\n") + b"\n\n")
    real_mb = os.path.getsize(real) / 1e6
    ours = timed([BIN, "--no-progress", "-q", "export", "-o", out, real], 3)[0]
    theirs = []
    for _ in range(max(1, min(runs, 3))):
        p = subprocess.run([py, "-c", PANDAS_SCRIPT, real, os.path.join(tmp, "pc.parquet")], capture_output=True, text=True, check=True)
        theirs.append(float(p.stdout.split()[0]))
    theirs = statistics.median(theirs)
    print(f"real corpus ({real_mb:.1f} MB): pgnfen export -o x.parquet {ours:.3f} s ({real_mb / ours:.0f} MB/s); "
          f"python-chess read_headers -> pandas -> Parquet {theirs:.2f} s ({real_mb / theirs:.2f} MB/s): "
          f"{theirs / ours:.0f}x (target: >= 100x)")
    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
