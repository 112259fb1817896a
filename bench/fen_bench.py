#!/usr/bin/env python3
"""The FEN model's speed against python-chess, in one run.

  * parse + classify per core (examples/fen_speed.rs) over positions.fen;
  * python-chess doing the same work on the same 8x8 records: chess.Board(fen),
    is_valid(), fen() (chess960=True for records whose castling needs it);
  * end to end: `pgnfen fen --format json` over a 1-million-line file;
  * an opening book: `pgnfen fen --to shredder -o out.epd` over a 1-million-line EPD
    book (the 8x8 records, cut to four fields, with `acd`/`id` operations), against
    python-chess doing the same conversion (Board.from_epd, then
    board.epd(shredder=True, en_passant="fen", **ops)) on the same lines in the same run.

Usage: python3 bench/fen_bench.py [FILE]  (default generated/positions.fen of $PGNFEN_CORPUS
else samples/positions.fen). Needs: pip install chess.
"""
import os, subprocess, sys, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def release_dir():
    """Where `cargo build --release` writes: target/release, or release/ under
    CARGO_TARGET_DIR when it is set (a relative one from the repository)."""
    return os.path.join(ROOT, os.environ.get("CARGO_TARGET_DIR") or "target", "release")


BIN = os.path.join(release_dir(), "pgnfen")
CORPUS = os.environ.get("PGNFEN_CORPUS", "")
DEFAULT = os.path.join(CORPUS, "generated", "positions.fen")


def main():
    # No options: -h or --help prints the usage (any other word with a dash
    # too, as an error) instead of being taken for a file.
    if sys.argv[1:] in (["-h"], ["--help"]):
        print(__doc__)
        return
    if any(a.startswith("-") for a in sys.argv[1:]):
        sys.exit(__doc__)
    path = sys.argv[1] if len(sys.argv) > 1 else (DEFAULT if os.path.exists(DEFAULT) else os.path.join(ROOT, "samples", "positions.fen"))
    subprocess.run(["cargo", "build", "--release", "--quiet", "--example", "fen_speed"], cwd=ROOT, check=True)
    out = subprocess.run([os.path.join(release_dir(), "examples", "fen_speed"), path, "3"], capture_output=True, text=True, check=True).stdout
    print(out, end="")
    ours = float([l for l in out.splitlines() if l.startswith("analyse, 8x8")][0].split()[3])

    lines = [l.rstrip("\r\n") for l in open(path, encoding="utf-8", errors="replace") if l.strip()]
    try:
        import chess
    except ImportError:
        print("python-chess not installed (pip install chess): no comparison")
        return
    eight = [l for l in lines if len(l.split(" ")[0].split("/")) == 8 and all(c in "pnbrqkPNBRQK12345678/" for c in l.split(" ")[0])]
    t = time.perf_counter()
    for fen in eight:
        try:
            board = chess.Board(fen)
        except ValueError:
            try:
                board = chess.Board(fen, chess960=True)
            except ValueError:
                continue
        board.is_valid()
        board.fen()
    py = len(eight) / (time.perf_counter() - t)
    print(f"python-chess Board(fen) + is_valid() + fen(): {py:10.0f} records/s on {len(eight)} 8x8 records")
    print(f"pgnfen analyse vs python-chess: {ours / py:.0f}x")

    big = os.path.join(ROOT, "bench", "out", "positions-1m.fen")
    os.makedirs(os.path.dirname(big), exist_ok=True)
    if not os.path.exists(big):
        with open(big, "w") as f:
            n = 0
            while n < 1_000_000:
                take = lines[: 1_000_000 - n]
                f.write("\n".join(take) + "\n")
                n += len(take)
    for threads in ["-j1", "-j2"]:
        with open(big, "rb") as src, open(os.path.join(ROOT, "bench", "out", "fen.json"), "wb") as dst:
            t = time.perf_counter()
            subprocess.run([BIN, threads, "-q", "fen", "--format", "json"], stdin=src, stdout=dst)
            dt = time.perf_counter() - t
        print(f"pgnfen {threads} fen --format json, 1,000,000 lines: {dt:.2f} s, {1e6 / dt:,.0f} records/s")
    epd_book(lines, eight)


def epd_book(lines, eight):
    """The 1M-line EPD conversion, pgnfen against python-chess, in records/s."""
    import chess
    book = os.path.join(ROOT, "bench", "out", "book-1m.epd")
    if not os.path.exists(book):
        with open(book, "w") as f:
            n = 0
            while n < 1_000_000:
                for fen in eight[: 1_000_000 - n]:
                    f.write(" ".join(fen.split()[:4]) + f' acd 20; id "book.{n}";\n')
                    n += 1
    out = os.path.join(ROOT, "bench", "out", "book-1m.shredder.epd")
    for threads in ["-j1", "-j2"]:
        t = time.perf_counter()
        subprocess.run([BIN, threads, "-q", "fen", "--to", "shredder", "-o", out, book])
        dt = time.perf_counter() - t
        print(f"pgnfen {threads} fen --to shredder -o out.epd, 1,000,000-line EPD book: {dt:.2f} s, {1e6 / dt:,.0f} records/s")
    ours = 1e6 / dt
    # python-chess on the first 50,000 lines (the rate, not the whole book: it
    # would take minutes); unreadable records are copied as they are, like pgnfen.
    sample = open(book).read().splitlines()[:50_000]
    t = time.perf_counter()
    written = []
    for line in sample:
        try:
            board, ops = chess.Board.from_epd(line, chess960=True)
            written.append(board.epd(shredder=True, en_passant="fen", **ops))
        except ValueError:
            written.append(line)
    py = len(sample) / (time.perf_counter() - t)
    print(f"python-chess from_epd + epd(shredder=True): {py:10,.0f} records/s on {len(sample):,} lines of the book")
    print(f"pgnfen -j2 book conversion vs python-chess: {ours / py:.0f}x")


if __name__ == "__main__":
    main()
