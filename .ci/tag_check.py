#!/usr/bin/env python3
"""`--tag` and `split` against an independent model, on the corpus (PGNFEN_CORPUS).

For every PGN file of the corpus (real/, generated/, generated/edge/) and a file
written here with escaped quotes, duplicate tags and several pairs on a line:
  * the games `filter --tag EXPR` keeps equal the games a small Python model
    selects: the model cuts the input with the game spans of `pgnfen index`
    (hidden command, JSON lines), reads each game's header tags itself and
    evaluates the expression (first pair of a name wins, values unescaped,
    `<`..`>=` numeric when both sides are decimal numbers, else bytewise, a
    missing tag satisfies only `!=` and `!~`);
  * `-o A --rest B`: A is exactly the model's games, B exactly the others, both
    byte for byte in input order (so A and B rebuild the input);
  * `stats --tag` counts the model's games, and `unmatched` the others;
  * `split -o DIR/{class}.pgn`: each file equals `filter --class C`, and the
    files together hold every game once; a `.zst` template gives the same bytes.
Prints a summary; exits 1 on any disagreement, 2 when PGNFEN_CORPUS names no
folder (what it must hold: CONTRIBUTING.md, "Tests that need the corpus").

Usage: PGNFEN_CORPUS=DIR python3 .ci/tag_check.py   (after cargo build --release)
"""
import json, os, re, shutil, subprocess, sys, tempfile

if __name__ == "__main__" and sys.argv[1:2] in (["-h"], ["--help"]):
    print(__doc__)
    sys.exit(0)
from decimal import Decimal

from corpus_env import BIN, CORPUS, ROOT, require_corpus  # noqa: E402 (after --help)
CLASSES = ["standard", "setup", "chess960", "crc", "other", "malformed"]

EXPRS = [
    ["WhiteElo>=2500"],
    ["WhiteElo<1500"],
    ["BlackElo>2000", "WhiteElo<=2000"],
    ["WhiteElo>=2500", "WhiteElo~^[0-9]+$"],
    ["Event~Classical"],
    ["Event~(?i)rapid"],
    ["Event!~(?i)blitz|bullet"],
    ["TimeControl=600+0"],
    ["TimeControl=180+2"],
    ["Date>=2024.01.01"],
    ["Date<1900"],
    ["Date>=2000.01.01", "Date<2010"],
    ["Result=1-0"],
    ["Result!=1/2-1/2"],
    ["Variant!~960"],
    ["Variant~960"],
    ["FEN~^rnbqkbnr"],
    ["SetUp=1"],
    ["Annotator!=x"],
    ["Nonexistent=x"],
    ["Nonexistent!~x"],
    ["Nonexistent<5"],
    ['White~"'],
    ['White=Smith "Jr"'],
    ["Round>3"],
    ["ECO>=C00", "ECO<D00"],
    ["PlyCount>=100"],
    ["Event="],
]

failures = []
checked = {"files": 0, "selections": 0, "splits": 0}


def fail(msg):
    failures.append(msg)
    print("FAIL", msg)


def run(args, check_rc=(0,)):
    p = subprocess.run([BIN, "--no-progress", "-q"] + args, capture_output=True, timeout=600)
    if p.returncode not in check_rc:
        fail(f"{' '.join(args)}: exit {p.returncode}: {p.stderr.decode(errors='replace')[:300]}")
    return p


# --- The model -------------------------------------------------------------

LINE = re.compile(rb"[^\r\n]*(?:\r\n|\r|\n|$)")
PAIR = re.compile(rb'\[[ \t]*([^ \t"\]\r\n]+)[ \t]*"((?:[^"\\\r\n]|\\.)*)"[ \t]*\]')
NUMBER = re.compile(rb"^[+-]?[0-9]+(\.[0-9]+)?$")


def header_tags(game):
    """The first value of each tag name in the game's header (raw, escapes kept)."""
    tags = {}
    seen_tag = False
    for m in LINE.finditer(game):
        line = m.group(0).rstrip(b"\r\n")
        if not m.group(0):
            break
        stripped = line.lstrip(b" \t")
        if not stripped or line.startswith(b"%"):
            continue
        if not stripped.startswith(b"["):
            if seen_tag:
                break  # the movetext
            continue  # text before the first tag line (a preamble)
        seen_tag = True
        rest = stripped
        while True:
            p = PAIR.match(rest)
            if not p:
                break
            tags.setdefault(p.group(1), p.group(2))
            rest = rest[p.end():].lstrip(b" \t")
            if not rest.startswith(b"["):
                break
    return tags


def unescape(raw):
    return re.sub(rb'\\([\\"])', rb"\1", raw)


def holds(expr, tags):
    m = re.match(r"^([A-Za-z0-9_]+)(!=|!~|<=|>=|=|~|<|>)(.*)$", expr, re.S)
    name, op, want = m.group(1).encode(), m.group(2), m.group(3).encode()
    raw = tags.get(name)
    if raw is None:
        return op in ("!=", "!~")
    have = unescape(raw)
    if op == "=":
        return have == want
    if op == "!=":
        return have != want
    if op in ("~", "!~"):
        found = re.search(want, have) is not None
        return found if op == "~" else not found
    if NUMBER.match(have) and NUMBER.match(want):
        a, b = Decimal(have.decode()), Decimal(want.decode())
    else:
        a, b = have, want
    return {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[op]


# --- The checks --------------------------------------------------------------

def spans(path):
    p = run(["index", path])
    return [json.loads(l) for l in p.stdout.splitlines()]


def check_file(path, tmp):
    data = open(path, "rb").read()
    games = [data[g["offset"]:g["offset"] + g["length"]] for g in spans(path)]
    # An input of blank lines holds no game (its bytes belong to none).
    if b"".join(games) != data and (games or data.strip()):
        fail(f"{path}: index spans do not cover the input")
        return
    headers = [header_tags(g) for g in games]
    checked["files"] += 1
    a, b = os.path.join(tmp, "a.pgn"), os.path.join(tmp, "b.pgn")
    for exprs in EXPRS:
        pick = [all(holds(e, h) for e in exprs) for h in headers]
        args = ["filter"]
        for e in exprs:
            args += ["--tag", e]
        run(args + ["-o", a, "--rest", b, path])
        want_a = b"".join(g for g, p in zip(games, pick) if p)
        want_b = b"".join(g for g, p in zip(games, pick) if not p)
        have_a, have_b = open(a, "rb").read(), open(b, "rb").read()
        name = f"{os.path.basename(path)} {' '.join(exprs)}"
        if have_a != want_a:
            fail(f"{name}: kept {len(have_a)} bytes, the model {len(want_a)} "
                 f"({sum(pick)} of {len(games)} games)")
        if have_b != want_b:
            fail(f"{name}: rest differs from the model's other games")
        st = run(["stats", "--format", "json"] + args[1:] + [path])
        try:
            s = json.loads(st.stdout)
            if s["games"] != sum(pick) or s["unmatched"] != len(games) - sum(pick):
                fail(f"{name}: stats games {s['games']} unmatched {s['unmatched']}, "
                     f"the model {sum(pick)} and {len(games) - sum(pick)}")
        except (ValueError, KeyError) as e:
            fail(f"{name}: stats --tag: {e}")
        checked["selections"] += 1


def check_split(path, tmp):
    data = open(path, "rb").read()
    in_games = sum(g["length"] for g in spans(path))
    for ending in ["", ".zst"]:
        d = os.path.join(tmp, "split" + ending.replace(".", "-"))
        shutil.rmtree(d, ignore_errors=True)
        os.mkdir(d)
        run(["split", "-o", os.path.join(d, "{class}.pgn" + ending), path])
        total = 0
        for c in CLASSES:
            f = os.path.join(d, f"{c}.pgn{ending}")
            want = run(["filter", "--class", c, path]).stdout
            if not os.path.exists(f):
                if want:
                    fail(f"{path}: split wrote no {c} file, filter --class {c} has {len(want)} bytes")
                continue
            if ending:
                have = subprocess.run(["zstd", "-dc", f], capture_output=True).stdout \
                    if shutil.which("zstd") else run(["filter", "--class", ",".join(CLASSES), f]).stdout
            else:
                have = open(f, "rb").read()
            if have != want:
                fail(f"{path}: split {c}{ending} differs from filter --class {c}")
            total += len(have)
        if total != in_games:
            fail(f"{path}: split{ending} files hold {total} bytes, the input's games {in_games}")
        checked["splits"] += 1



def main():
    require_corpus("tag_check")
    if not os.path.exists(BIN):
        print(f"{BIN} not found: run cargo build --release first")
        return 1
    files = []
    for sub in ["real", "generated", os.path.join("generated", "edge")]:
        d = os.path.join(CORPUS, sub)
        files += sorted(os.path.join(d, f) for f in os.listdir(d) if f.endswith(".pgn"))
    with tempfile.TemporaryDirectory() as tmp:
        own = os.path.join(tmp, "escapes.pgn")
        with open(own, "wb") as f:
            f.write(b'[Event "a \\"quoted\\" event"] [White "Smith \\"Jr\\""]\n[WhiteElo "2600"]\n'
                    b'[WhiteElo "900"]\n\n1. e4 *\n\n'
                    b'[Event "Classical"]\n[White "back\\\\slash"]\n[Date "2024.02.30"]\n'
                    b'[Round "10"]\n\n1. d4 1-0\n\n'
                    b'[Event "x"]\n[Round "9"]\n[WhiteElo "?"]\n\n*\n')
        for path in files + [own]:
            check_file(path, tmp)
            check_split(path, tmp)
    print(f"tag_check: {checked['files']} files, {checked['selections']} selections, "
          f"{checked['splits']} splits; {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
