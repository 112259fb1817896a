"""Benchmark of the pgnfen Python package (a script, not a timed test).

    .venv/bin/python python/bench.py [--repeat N] [--rounds R] [FILE...]

Without files: the real files of the corpus ($PGNFEN_CORPUS/real/*.pgn). The files are
concatenated, N times (default 4, so that start-up costs do not dominate),
into one temporary file so that each measurement reads the same bytes.
Measures, in one run on the same file:

* pgnfen.stats(path) against the CLI (`pgnfen stats --format json`), best of 3
  (target: at most 1.1x the CLI's time);
* `for g in pgnfen.games(path): g.headers` against python-chess's
  `chess.pgn.read_headers` loop, in games per second (target: at least 25x,
  as docs/performance.md says);
  then loops over the mapping `g.tags`, taken and not read, and reading one tag.
  Each loop runs R times (default 3) in rounds, python-chess's and pgnfen's in
  turn; the ratio is the median of the rounds' ratios.
"""

import argparse
import subprocess
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

# Run as `python python/bench.py`, the script's folder (which holds the
# package's sources, not the built extension) would shadow the installed package.
# (pgnfen and python-chess are imported in main, so that --help needs neither.)
sys.path = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

ROOT = Path(__file__).resolve().parents[1]
# The program `cargo build --release` built (CARGO_TARGET_DIR moves it; a
# relative one from the repository).
CLI = ROOT / (os.environ.get("CARGO_TARGET_DIR") or "target") / "release" / "pgnfen"


def best_of(n, fn):
    times = []
    for _ in range(n):
        started = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - started)
    return min(times), result


def positive(text):
    n = int(text)
    if n < 1:
        raise argparse.ArgumentTypeError(f"{text} is not a positive number")
    return n


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=positive, default=4, help="copies of the files (4)")
    ap.add_argument("--rounds", type=positive, default=3, help="rounds of each loop (3)")
    ap.add_argument("files", nargs="*", type=Path)
    args = ap.parse_args(argv)
    import chess.pgn
    import pgnfen
    repeat, rounds = args.repeat, args.rounds
    if args.files:
        paths = args.files
    else:
        corpus = os.environ.get("PGNFEN_CORPUS")
        if not corpus:
            sys.exit("no files given and PGNFEN_CORPUS (the corpus folder) not set")
        real = Path(corpus) / "real"
        paths = sorted(real.glob("*.pgn"))
        if not paths:
            sys.exit(f"no files given and {real} holds no .pgn file")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.pgn"
        with open(path, "wb") as out:
            for _ in range(repeat):
                for p in paths:
                    data = p.read_bytes()
                    out.write(data if data.endswith(b"\n") else data + b"\n")
        size = path.stat().st_size
        print(f"file: {len(paths)} file(s) x {repeat}, {size / 1e6:.1f} MB")

        cli_time, _ = best_of(
            3,
            lambda: subprocess.run(
                [str(CLI), "--no-progress", "stats", "--format", "json", str(path)],
                check=True,
                capture_output=True,
            ),
        )
        py_time, stats = best_of(3, lambda: pgnfen.stats(path))
        print(
            f"stats: CLI {cli_time * 1000:.1f} ms, pgnfen.stats {py_time * 1000:.1f} ms "
            f"({py_time / cli_time:.2f}x the CLI; target <= 1.1x), {stats['games']} games"
        )

        # The target's loop makes the dict `headers` of each game, as
        # python-chess's `read_headers` reads every tag. Two more loops show
        # the mapping `tags`, read from the game's bytes when asked: taken and
        # not read, and one tag of each game read (python-chess's loop the same).
        def ours(attribute, use):
            def loop():
                n = 0
                for game in pgnfen.games(path):
                    use(getattr(game, attribute))
                    n += 1
                return n

            return loop

        def theirs(use):
            def loop():
                n = 0
                with open(path, encoding="utf-8", errors="replace") as f:
                    while (headers := chess.pgn.read_headers(f)) is not None:
                        use(headers)
                        n += 1
                return n

            return loop

        # Each loop runs in rounds, python-chess's and pgnfen's in turn, and
        # the ratio is the median of the rounds' ratios: the machine's speed
        # drifts over a run (python-chess's loop has taken from 15 to 26 µs a
        # game on the same machine), and a slow spell then weighs on both.
        loops = [
            ("headers", "headers", lambda h: None),
            ("tags", "tags", lambda h: None),
            ("tags.get('White')", "tags", lambda h: h.get("White")),
        ]
        for name, attribute, use in loops:
            ratios, our_rates, their_rates = [], [], []
            for _ in range(rounds):
                their_time, their_games = best_of(1, theirs(use))
                our_time, our_games = best_of(1, ours(attribute, use))
                our_rates.append(our_games / our_time)
                their_rates.append(their_games / their_time)
                ratios.append(our_rates[-1] / their_rates[-1])
            target = " (target >= 25x)" if name == "headers" else ""
            print(
                f"{name}: pgnfen.games {our_games} games at "
                f"{statistics.median(our_rates):,.0f} games/s; python-chess read_headers "
                f"{their_games} games at {statistics.median(their_rates):,.0f} games/s "
                f"(medians of {rounds} rounds): "
                f"{statistics.median(ratios):.1f}x{target} "
                f"(rounds: {', '.join(f'{r:.1f}' for r in ratios)})"
            )


if __name__ == "__main__":
    main(sys.argv[1:])
