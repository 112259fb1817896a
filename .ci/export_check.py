#!/usr/bin/env python3
"""`pgnfen export` against independent readers, on the corpus (PGNFEN_CORPUS).

For every PGN file of the corpus (real/, generated/, generated/edge/) and a file
written here (escapes, duplicates, several pairs on a line, a long tag name, a name
that differs from a column only in case, an Elo that is no number):
  * the Parquet file (read with pyarrow) has one row per game of `stats`;
    `game`, `offset`, `length`, `line`, `class`, `chess960_position` equal the
    hidden `pgnfen index` command's, row for row;
  * tag columns equal the first value of the tag in the header, unescaped, as a
    small model of our own reads the header lines; and equal python-chess's
    `read_headers` for every game where python-chess reads the same games and the
    same tag names (it keeps the last of a repeated tag, and reads only one pair a
    line): the games compared and left out are counted;
  * `other_tags` holds exactly the remaining tags (first value of each name, later ones as NAME#n; FEN
    and Variant are the `fen`/`variant` columns); `WhiteElo`/`BlackElo` are an
    integer where the value is one, else null;
  * the CSV (.csv.zst) and JSON lines (.jsonl) exports hold the same rows;
  * `speed`, `time_base`, `time_increment` equal a model of docs/speed.md written here
    (exact fractions) on the first TimeControl value;
  * DuckDB's `select class, count(*) from 'x.parquet' group by class` equals `stats`,
    and so does `group by speed` its `speeds`;
  * `--tags all` has a column for every tag name met (in order of first appearance)
    and then an empty `other_tags`.
Exits 1 on any disagreement, 2 when PGNFEN_CORPUS names no folder (what it must
hold: CONTRIBUTING.md, "Tests that need the corpus"). Needs pyarrow, duckdb and
python-chess (.ci/run installs them into .venv).

Usage: PGNFEN_CORPUS=DIR .venv/bin/python .ci/export_check.py   (after cargo build --release)
"""
import csv, io, json, os, re, subprocess, sys, tempfile

if __name__ == "__main__" and sys.argv[1:2] in (["-h"], ["--help"]):
    print(__doc__)
    sys.exit(0)

try:
    import chess.pgn
    import duckdb
    import pyarrow.parquet as pq
except ImportError as e:
    sys.exit(f"export_check: {e}: install pyarrow, duckdb and chess (see .ci/run)")

from corpus_env import BIN, CORPUS, ROOT, require_corpus  # noqa: E402 (after --help)
DEFAULT_TAGS = ["Event", "Site", "Date", "Round", "White", "Black", "Result", "WhiteElo",
                "BlackElo", "ECO", "Opening", "TimeControl", "Termination", "UTCDate", "UTCTime"]
FIXED = ["file", "game", "offset", "length", "line", "class", "chess960_position", "speed",
         "time_base", "time_increment", "variant", "fen", "problems"]
INTEGER = re.compile(r"^[+-]?[0-9]+$")
ASCII_BLANKS = " \t\n\r\x0c"  # what Rust's trim_ascii takes off an Elo value

failures = []
counted = {"files": 0, "rows": 0, "chess_games": 0, "chess_skipped_games": 0, "chess_skipped_files": 0}


def fail(msg):
    failures.append(msg)
    print("FAIL", msg)


def run(args):
    p = subprocess.run([BIN, "--no-progress", "-q"] + args, capture_output=True, timeout=600)
    if p.returncode != 0:
        fail(f"{' '.join(args)}: exit {p.returncode}: {p.stderr.decode(errors='replace')[:300]}")
    return p


# --- The model: a game's header pairs, in order -----------------------------------

LINE = re.compile(rb"[^\r\n]*(?:\r\n|\r|\n|$)")
PAIR = re.compile(rb'\[[ \t]*([^ \t"\]\r\n]+)[ \t]*"((?:[^"\\\r\n]|\\.)*)"[ \t]*\]')


def header_pairs(game):
    """Every (name, raw value) pair of the game's header lines, in order."""
    pairs = []
    seen_tag = False
    # A byte-order mark opens the first game's first line.
    game = game[3:] if game.startswith(b"\xef\xbb\xbf") else game
    for m in LINE.finditer(game):
        if not m.group(0):
            break
        line = m.group(0).rstrip(b"\r\n")
        stripped = line.lstrip(b" \t")
        if not stripped or line.startswith(b"%"):
            continue
        if not stripped.startswith(b"["):
            if seen_tag:
                break
            continue
        seen_tag = True
        rest = stripped
        while True:
            p = PAIR.match(rest)
            if not p:
                break
            pairs.append((p.group(1), p.group(2)))
            rest = rest[p.end():].lstrip(b" \t")
            if not rest.startswith(b"["):
                break
    return pairs


def decoded(b):
    """UTF-8 when valid, else Windows-1252 with every byte a character (the five
    bytes Windows-1252 leaves undefined keep their Latin-1 meaning): what
    `export --encoding auto` does, value by value."""
    try:
        return b.decode("utf-8")
    except UnicodeDecodeError:
        return "".join(bytes([c]).decode("cp1252", errors="ignore") or chr(c) for c in b)


def text(raw):
    return decoded(re.sub(rb'\\([\\"])', rb"\1", raw))


def placeholder(v):
    return v.strip() in ("", "?", "-")


def expected_row(pairs, tags):
    """The tag part of a row: columns (first value), variant, fen, other tags."""
    first, repeats, seen = {}, {}, {}
    for name, raw in pairs:
        key = decoded(name)
        seen[key] = seen.get(key, 0) + 1
        if seen[key] == 1:
            first[key] = text(raw)
        else:
            # A repeated tag is kept in other_tags as NAME#n (n counts its pairs).
            repeats[f"{key}#{seen[key]}"] = text(raw)
    want = {t: first.get(t) for t in tags}
    kept = {}
    for t in ("WhiteElo", "BlackElo"):
        if t in want and want[t] is not None:
            v = want[t]
            n = v.strip(ASCII_BLANKS)
            want[t] = int(n) if INTEGER.match(n) and -2**31 <= int(n) < 2**31 else None
            # A value that is no number (and no "unknown" placeholder) is kept as written.
            if want[t] is None and not placeholder(v):
                kept[t] = v
    want["variant"] = first.get("Variant")
    want["fen"] = first.get("FEN")
    other = {k: v for k, v in first.items() if k not in tags and k not in ("FEN", "Variant")}
    other.update(kept)
    other.update(repeats)
    want["other_tags"] = other
    return want


# --- The speed model (docs/speed.md), independent of the Rust reader ---------------

NUMBER = re.compile(r"^[0-9]+(\.[0-9]+)?$")
SPEEDS = [(30, "ultrabullet"), (180, "bullet"), (480, "blitz"), (1500, "rapid"), (86400, "classical")]


def model_clock(value):
    """(speed or None for unknown, base, increment) of a raw TimeControl value."""
    from fractions import Fraction
    if value is None:
        return (None, None, None)
    v = value.strip(" ")
    if v == "-":
        return ("correspondence", None, None)
    periods = []
    for p in v.split(":"):
        if periods and periods[-1][0] != "moves":
            return (None, None, None)  # sudden death or sandclock not last
        if p.startswith("*"):
            if not NUMBER.match(p[1:]) or Fraction(p[1:]) == 0:
                return (None, None, None)
            periods.append(("sand", None, p[1:], None))
            continue
        moves = None
        if "/" in p:
            m, p = p.split("/", 1)
            if not re.match(r"^[0-9]+$", m) or int(m) == 0:
                return (None, None, None)
            moves = int(m)
        s, _, i = p.partition("+")
        if not NUMBER.match(s) or ("+" in p and not NUMBER.match(i)):
            return (None, None, None)
        if Fraction(s) == 0 and (not i or Fraction(i) == 0):
            return (None, None, None)
        periods.append(("moves" if moves else "sudden", moves, s, i or None))
    kind, moves, s, i = periods[0]
    S, I = Fraction(s), Fraction(i or 0)
    if kind == "sand":
        e = S
    elif moves is not None and moves < 40:
        e = S * 40 / moves + 40 * I
    else:
        e = S + 40 * I
    speed = next((name for limit, name in SPEEDS if e < limit), "correspondence")
    return (speed, float(s), float(i) if i else 0.0)


# --- Reading the three formats back -------------------------------------------------

def parquet_rows(path):
    table = pq.read_table(path)
    rows = table.to_pylist()
    for r in rows:
        # pyarrow reads a MAP as a list of (key, value) tuples.
        r["other_tags"] = dict(r["other_tags"])
    return table.schema, rows


def jsonl_rows(path):
    with open(path, "rb") as f:
        return [json.loads(l) for l in f if l.strip()]


def csv_rows(path):
    csv.field_size_limit(sys.maxsize)  # a huge tag's value is one field
    data = subprocess.run(["zstd", "-dc", path], capture_output=True, check=True).stdout
    reader = csv.DictReader(io.StringIO(data.decode("utf-8"), newline=""))
    out = []
    for rec in reader:
        row = {}
        for k, v in rec.items():
            if v == "":
                row[k] = None
            elif k in ("problems", "other_tags"):
                row[k] = json.loads(v)
            elif k in ("game", "offset", "length", "line", "chess960_position", "WhiteElo", "BlackElo"):
                row[k] = int(v)
            elif k in ("time_base", "time_increment"):
                row[k] = float(v)
            else:
                row[k] = v
        out.append(row)
    return out


def blank_to_null(rows):
    return [{k: (None if v == "" else v) for k, v in r.items()} for r in rows]


# --- The checks ---------------------------------------------------------------------

def python_chess_headers(path):
    games = []
    with open(path, encoding="utf-8", errors="replace", newline="") as f:
        while True:
            h = chess.pgn.read_headers(f)
            if h is None:
                break
            games.append(dict(h))
    return games


def check_file(path, tmp):
    name = os.path.relpath(path, CORPUS) if path.startswith(CORPUS) else os.path.basename(path)
    pqf, jl, cs = (os.path.join(tmp, "o." + e) for e in ("parquet", "jsonl", "csv.zst"))
    for out in (pqf, jl, cs):
        # CSV cells raw: a cell like "-" is compared as written (no leading quote).
        run(["export", *(["--csv-raw"] if out == cs else []), "-o", out, path])
    schema, rows = parquet_rows(pqf)
    names = [f.name for f in schema]
    if names != FIXED + DEFAULT_TAGS + ["other_tags"]:
        fail(f"{name}: columns {names}")
    for col, typ in [("offset", "int64"), ("length", "int64"), ("line", "int64"),
                     ("chess960_position", "int16"), ("WhiteElo", "int32"), ("BlackElo", "int32"),
                     ("speed", "string"), ("time_base", "double"), ("time_increment", "double")]:
        if str(schema.field(col).type) != typ:
            fail(f"{name}: {col} is {schema.field(col).type}, not {typ}")
    index = [json.loads(l) for l in run(["index", path]).stdout.splitlines()]
    stats = json.loads(run(["stats", "--format", "json", path]).stdout)
    if len(rows) != stats["games"] or len(rows) != len(index):
        fail(f"{name}: {len(rows)} rows, stats {stats['games']} games, index {len(index)}")
        return
    data = open(path, "rb").read()
    for r, ix in zip(rows, index):
        for k in ("game", "offset", "length", "line", "class", "chess960_position"):
            if r[k] != ix[k]:
                fail(f"{name}: game {ix['game']}: {k} {r[k]!r}, index {ix[k]!r}")
                break
        pairs = header_pairs(data[ix["offset"]:ix["offset"] + ix["length"]])
        want = expected_row(pairs, DEFAULT_TAGS)
        have = {k: r[k] for k in want}
        if have != want:
            diff = {k: (have[k], want[k]) for k in want if have[k] != want[k]}
            fail(f"{name}: game {ix['game']}: (export, model) {diff}")
        tc = next((text(raw) for n, raw in pairs if n == b"TimeControl"), None)
        clock = (r["speed"], r["time_base"], r["time_increment"])
        if clock != model_clock(tc):
            fail(f"{name}: game {ix['game']}: TimeControl {tc!r}: export {clock}, model {model_clock(tc)}")
        for t in ("WhiteElo", "BlackElo"):
            if r[t] is not None and not isinstance(r[t], int):
                fail(f"{name}: game {ix['game']}: {t} {r[t]!r} is no integer")
    # python-chess, where it reads the same games and the same tag names.
    try:
        theirs = python_chess_headers(path)
    except Exception as e:  # python-chess gives up on some binary edge files
        theirs = None
        print(f"  {name}: python-chess failed ({e.__class__.__name__}), not compared")
    if theirs is not None and len(theirs) != len(rows):
        counted["chess_skipped_files"] += 1
        print(f"  {name}: python-chess reads {len(theirs)} games, pgnfen {len(rows)}: not compared")
    elif theirs is not None:
        for r, ix, h in zip(rows, index, theirs):
            pairs = header_pairs(data[ix["offset"]:ix["offset"] + ix["length"]])
            model_names = [n.decode("utf-8", errors="replace") for n, _ in pairs]
            if sorted(model_names) != sorted(h) or len(set(model_names)) != len(model_names):
                counted["chess_skipped_games"] += 1
                continue
            counted["chess_games"] += 1
            def as_chess(v):
                # python-chess reads the file as UTF-8 with U+FFFD for bad bytes;
                # pgnfen reads such a value as Windows-1252: compare as python-chess sees it.
                if not isinstance(v, str):
                    return v
                try:
                    v.encode("utf-8").decode("utf-8")
                    raw = v.encode("cp1252")
                    return raw.decode("utf-8", errors="replace")
                except (UnicodeEncodeError, UnicodeDecodeError):
                    return v
            for t in DEFAULT_TAGS:
                v = h.get(t)
                if t in ("WhiteElo", "BlackElo") and v is not None:
                    v = v.strip(ASCII_BLANKS)
                    v = int(v) if INTEGER.match(v) else None
                if r[t] != v and as_chess(r[t]) != v:
                    fail(f"{name}: game {ix['game']}: {t} {r[t]!r}, python-chess {v!r}")
            other = {k: v for k, v in h.items() if k not in DEFAULT_TAGS and k not in ("FEN", "Variant")}
            # Unreadable Elo values pgnfen keeps in other_tags are no tags of
            # their own for python-chess.
            ours = {as_chess(k): as_chess(v) for k, v in r["other_tags"].items() if k not in ("WhiteElo", "BlackElo")}
            other = {as_chess(k): as_chess(v) for k, v in other.items()}
            if ours != other or as_chess(r["fen"]) != h.get("FEN") or as_chess(r["variant"]) != h.get("Variant"):
                fail(f"{name}: game {ix['game']}: other_tags/fen/variant differ from python-chess")
    # The text formats hold the same rows.
    if jsonl_rows(jl) != rows:
        fail(f"{name}: JSON lines differ from Parquet")
    if csv_rows(cs) != blank_to_null(rows):
        fail(f"{name}: CSV differs from Parquet")
    # DuckDB groups as stats counts.
    got = dict(duckdb.sql(f"select class, count(*) from read_parquet('{pqf}') group by class").fetchall())
    want = {c: n for c, n in stats["classes"].items() if n}
    if got != want:
        fail(f"{name}: DuckDB classes {got}, stats {want}")
    got = dict(duckdb.sql(f"select coalesce(speed, 'unknown'), count(*) from read_parquet('{pqf}') group by 1").fetchall())
    want = {s: n for s, n in stats["speeds"].items() if n}
    if got != want:
        fail(f"{name}: DuckDB speeds {got}, stats {want}")
    counted["files"] += 1
    counted["rows"] += len(rows)


def check_all_tags(tmp):
    path = os.path.join(tmp, "unusual.pgn")
    long_name = "T" + "x" * 300
    with open(path, "wb") as f:
        f.write(b'[Event "a \\"q\\""] [Site "s"]\n[White "first"]\n[White "second"]\n'
                b'[WhiteElo "?"]\n[' + long_name.encode() + b' "long"]\n[class "c"]\n'
                b'[Odd+Name#1 "odd"]\n\n1. e4 *\n\n'
                b'[Event "b"]\n[BlackElo "2400"]\n[Tag2 "t"]\n\n*\n')
    out = os.path.join(tmp, "all.parquet")
    run(["export", "--tags", "all", "-o", out, path])
    _, rows = parquet_rows(out)
    cols = list(rows[0])
    # Names over 256 bytes and names that collide with a column (ignoring case)
    # stay in other_tags.
    want_cols = FIXED + ["Event", "Site", "White", "WhiteElo", "Odd+Name#1", "BlackElo", "Tag2", "other_tags"]
    if cols != want_cols:
        fail(f"--tags all: columns {cols[len(FIXED):]}")
    if rows[0]["White"] != "first" or rows[0]["Event"] != 'a "q"' or rows[0]["WhiteElo"] is not None:
        fail(f"--tags all: first row {rows[0]}")
    # The second White is kept as White#2 (a repeated tag is never dropped).
    if rows[0]["other_tags"] != {long_name: "long", "class": "c", "White#2": "second"} or rows[1]["other_tags"] != {}:
        fail(f"--tags all: other_tags {rows[0]['other_tags']} {rows[1]['other_tags']}")
    if rows[1]["BlackElo"] != 2400 or rows[1]["Tag2"] != "t" or rows[1]["White"] is not None:
        fail(f"--tags all: second row {rows[1]}")
    return path



def main():
    require_corpus("export_check")
    if not os.path.exists(BIN):
        print(f"{BIN} not found: run cargo build --release first")
        return 1
    files = []
    for sub in ["real", "generated", os.path.join("generated", "edge")]:
        d = os.path.join(CORPUS, sub)
        files += sorted(os.path.join(d, f) for f in os.listdir(d) if f.endswith(".pgn"))
    with tempfile.TemporaryDirectory() as tmp:
        own = check_all_tags(tmp)
        for path in files + [own]:
            check_file(path, tmp)
    print(f"export_check: {counted['files']} files, {counted['rows']} rows; python-chess compared on "
          f"{counted['chess_games']} games ({counted['chess_skipped_games']} games with repeated or "
          f"differently read tags and {counted['chess_skipped_files']} files cut differently left out); "
          f"{len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
