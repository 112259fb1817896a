#!/usr/bin/env python3
"""Real EPD books against python-chess, record by record.

    .ci/epd_books_check.py [FILE_OR_FOLDER ...]

Every `.epd` file named (folders are searched for them; with no argument, the
`data/`, `examples/` and `fuzz/corpus/epd/` folders of python-chess's own
source distribution, fetched with `pip download chess --no-binary :all:`) is
read by `pgnfen fen --format json`, and each record (every line pgnfen reads
as one, matched by the object's `line`) by `chess.Board.from_epd`. They must
agree on:

* validity and class (as .ci/epd_check.py judges python-chess's board);
* the position: the first four fields of pgnfen's `fen`, `xfen` and
  `shredder` strings against python-chess's own EPD writing;
* the operations: pgnfen keeps them byte for byte (its `operations` is the
  line's tail, and each written string is four fields, one space, the
  operations), and python-chess reads pgnfen's X-FEN string back to the same
  operations and clocks as the original line;
* a last operation without its `;` is read, with a `noncanonical` warning.

A `.zip` book (as the Stockfish/fishtest books are published) is read member
by member, each object's `file` (`BOOK.zip:MEMBER`) naming the member.
`--max N` checks at most N records a book: every record pgnfen reports a
problem for, then an even spread of the others (the big books hold millions).

Prints the agreement per file; exits 1 on any disagreement. python-chess is
installed as .ci/epd_check.py installs it when it is missing.
"""
import glob, json, os, subprocess, sys, tarfile, tempfile, zipfile

if __name__ == "__main__" and sys.argv[1:2] in (["-h"], ["--help"]):
    print(__doc__)
    sys.exit(0)

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
BIN = os.environ.get("PGNFEN", os.path.join(ROOT, os.environ.get("CARGO_TARGET_DIR") or "target", "release", "pgnfen"))
sys.path.insert(0, HERE)
import epd_check  # noqa: E402  (its venv bootstrap and its python-chess verdict)


def python_chess_books():
    """The EPD files of python-chess's sdist, fetched once into target/."""
    cache = os.path.join(ROOT, "target", "python-chess-sdist")
    if not glob.glob(os.path.join(cache, "chess-*", "setup.py")):
        os.makedirs(cache, exist_ok=True)
        with tempfile.TemporaryDirectory() as tmp:
            subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps",
                            "--no-binary", ":all:", "-d", tmp, "chess==1.11.2"], check=True)
            for name in os.listdir(tmp):
                with tarfile.open(os.path.join(tmp, name)) as t:
                    t.extractall(cache, filter="data")
    src = glob.glob(os.path.join(cache, "chess-*"))[0]
    return [os.path.join(src, d) for d in ("data", "examples", os.path.join("fuzz", "corpus", "epd"))]


def epd_files(args):
    for a in args:
        if os.path.isdir(a):
            yield from sorted(glob.glob(os.path.join(a, "**", "*.epd"), recursive=True)
                              + glob.glob(os.path.join(a, "**", "*.epd.zip"), recursive=True))
        else:
            yield a


def text_lines(data):
    """Lines as pgnfen counts them (ends at \n, \r\n or a lone \r)."""
    return data.decode("utf-8", errors="replace").splitlines()


def sources(path):
    """The lines of each stream of a book, by the name pgnfen gives it."""
    if zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as z:
            return {f"{path}:{i.filename}": text_lines(z.read(i)) for i in z.infolist()
                    if not i.is_dir()}
    return {path: text_lines(open(path, "rb").read())}


def chosen(objects, most):
    """Every object with a problem, then an even spread of the rest, `most` in all."""
    if most is None or len(objects) <= most:
        return objects
    flagged = [o for o in objects if o["problems"] or not o["valid"]]
    rest = [o for o in objects if not (o["problems"] or not o["valid"])]
    room = max(most - len(flagged), 0)
    step = max(len(rest) // max(room, 1), 1)
    return flagged[:most] + rest[::step][:room]


def four(s):
    return " ".join(s.split(" ")[:4]) if s is not None else None


def as_epd(line, have):
    """The record as python-chess's EPD reader takes it. A six-field FEN line
    (books mix them in) would have its clocks read as operations there
    (`0 1`: an opcode must start with a letter), so its clocks become
    `hmvc`/`fmvn`, which python-chess reads as the same clocks."""
    fields = line.split()
    if have["operations"] is None and len(fields) == 6 and all(f.isdigit() for f in fields[4:]):
        return " ".join(fields[:4]) + f" hmvc {int(fields[4])}; fmvn {int(fields[5])};"
    return line


def check_record(chess, line, have):
    """The differences between pgnfen's object and python-chess on one line."""
    want, rule = epd_check.python_chess(chess, as_epd(line, have))
    diffs = {}
    for k in ("valid", "class"):
        if have[k] != want[k]:
            diffs[k] = (have[k], want[k])
    if have["valid"] and want["valid"]:
        for k in ("fen", "xfen", "shredder"):
            if four(have[k]) != four(want[k]):
                diffs[k] = (have[k], want[k])
        ops = have["operations"]
        if ops is not None:
            if not line.endswith(ops):
                diffs["operations"] = (ops, "the line's tail")
            for k in ("fen", "xfen", "shredder"):
                if have[k] is not None and have[k] != four(have[k]) + " " + ops:
                    diffs[k + " operations"] = (have[k], ops)
            b1, ops1 = chess.Board.from_epd(line, chess960=True)
            b2, ops2 = chess.Board.from_epd(have["xfen"], chess960=True)
            if ops1 != ops2 or (b1.halfmove_clock, b1.fullmove_number) != (
                    b2.halfmove_clock, b2.fullmove_number):
                diffs["read back"] = (ops2, ops1)
            unterminated = not ops.rstrip(" \t").endswith(";")
            warned = any(p["code"] == "noncanonical" and "no ending ';'" in p["message"]
                         for p in have["problems"])
            if unterminated != warned:
                diffs["warning"] = (warned, unterminated)
    return diffs, rule


def main(argv):
    epd_check.ensure_chess()
    import chess

    most = None
    if argv[:1] == ["--max"]:
        most, argv = int(argv[1]), argv[2:]
    paths = list(epd_files(argv or python_chess_books()))
    if not paths:
        print("epd_books_check: no .epd file found")
        return 1
    total = agree = 0
    failures = []
    for path in paths:
        p = subprocess.run([BIN, "--no-progress", "-q", "fen", "--format", "json", path],
                           capture_output=True)
        if p.returncode not in (0, 1):
            failures.append((path, 0, "pgnfen failed", p.stderr.decode(errors="replace")))
            continue
        lines = sources(path)
        objects = [json.loads(l) for l in p.stdout.splitlines()]
        picked = chosen(objects, most)
        n = ok = 0
        for obj in picked:
            line = lines[obj["file"]][obj["line"] - 1]
            diffs, rule = check_record(chess, line, obj)
            n += 1
            if diffs:
                failures.append((path, obj["line"], rule, diffs))
            else:
                ok += 1
        total += n
        agree += ok
        of = f" (of {len(objects)})" if len(picked) < len(objects) else ""
        print(f"  {ok}/{n}{of} agree  {os.path.relpath(path)}", flush=True)
    print(f"epd_books_check: {agree}/{total} records of {len(paths)} books agree with "
          f"python-chess {chess.__version__}")
    for path, line, rule, diffs in failures[:20]:
        print(f"FAIL {path}:{line} [{rule}] (pgnfen, python-chess): {diffs}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
