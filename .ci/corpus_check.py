#!/usr/bin/env python3
"""Corpus checks for pgnfen against the test corpus, the folder PGNFEN_CORPUS names
(what it holds: CONTRIBUTING.md, "Tests that need the corpus").

Runs the release binary over every corpus file and checks:
  * stats --format json equals expected.json (games, classes, Chess960 histogram, problems),
    with -j1 and -j2, from a file and from standard input;
  * the game index covers every byte in order, and filter -o A --rest B for every class
    gives exactly the games of that class (A) and all others (B), byte for byte;
  * convert changes nothing but FEN tag values; X-FEN -> Shredder -> X-FEN is stable;
  * compressed inputs (.gz, .bz2, .zst) give the same results as plain ones;
  * fen --format json agrees with positions.expected.jsonl record by record;
  * check --warnings --format json reports exactly the {expect: ...} codes of every
    game of malformed.pgn, each on a line holding the tag concerned.
Prints a summary; exits 1 on any disagreement, 2 without the corpus.

Usage: PGNFEN_CORPUS=DIR python3 .ci/corpus_check.py   (after cargo build --release)
"""
import bz2, gzip, json, os, re, subprocess, sys, tempfile

if __name__ == "__main__" and sys.argv[1:2] in (["-h"], ["--help"]):
    print(__doc__)
    sys.exit(0)

from corpus_env import BIN, CORPUS, ROOT, require_corpus  # noqa: E402 (after --help)
CLASSES = ["standard", "setup", "chess960", "crc", "other", "malformed"]
failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL", msg)


def run(args, stdin=None, check_rc=(0,)):
    p = subprocess.run([BIN, "--no-progress", "-q"] + args, input=stdin, capture_output=True, timeout=600)
    if p.returncode not in check_rc:
        fail(f"{' '.join(args)}: exit {p.returncode}: {p.stderr.decode(errors='replace')[:300]}")
    return p


def stats(args, stdin=None):
    p = run(["stats", "--format", "json"] + args, stdin=stdin)
    try:
        return json.loads(p.stdout)
    except ValueError:
        return None


def compare_stats(name, have, want):
    if have is None:
        fail(f"{name}: stats printed no JSON")
        return False
    ok = True
    for key in ["games", "classes", "chess960_positions", "problems"]:
        if have.get(key) != want.get(key):
            fail(f"{name}: {key}: have {have.get(key)} want {want.get(key)}")
            ok = False
    return ok


def index(path):
    p = run(["index", path])
    return [json.loads(l) for l in p.stdout.splitlines()]


def check_filter(name, path, data, games):
    pos = 0
    for g in games:
        if g["offset"] != pos:
            fail(f"{name}: game {g['game']} starts at {g['offset']}, previous ended at {pos}")
            return
        pos += g["length"]
    if games and pos != len(data):
        fail(f"{name}: games cover {pos} of {len(data)} bytes")
        return
    with tempfile.TemporaryDirectory() as tmp:
        a, b = os.path.join(tmp, "a.pgn"), os.path.join(tmp, "b.pgn")
        for cls in CLASSES:
            run(["filter", "--class", cls, "-o", a, "--rest", b, path])
            want_a = b"".join(data[g["offset"]:g["offset"] + g["length"]] for g in games if g["class"] == cls)
            want_b = b"".join(data[g["offset"]:g["offset"] + g["length"]] for g in games if g["class"] != cls)
            if open(a, "rb").read() != want_a or open(b, "rb").read() != want_b:
                fail(f"{name}: filter --class {cls}: outputs are not the games of the index")


FEN_LINE = re.compile(rb'^(\s*\[FEN\s+")(.*)("\].*)$', re.S)


def check_convert(name, path, data):
    for dialect in ["shredder", "xfen", "fen"]:
        p = run(["convert", "--to", dialect, path])
        a, b = data.splitlines(keepends=True), p.stdout.splitlines(keepends=True)
        if len(a) != len(b):
            fail(f"{name}: convert --to {dialect} changed the number of lines ({len(a)} -> {len(b)})")
            continue
        for x, y in zip(a, b):
            if x != y:
                mx, my = FEN_LINE.match(x), FEN_LINE.match(y)
                if not (mx and my and mx.group(1) == my.group(1) and mx.group(3) == my.group(3)):
                    fail(f"{name}: convert --to {dialect} changed a line that is not a FEN value: {x[:80]!r} -> {y[:80]!r}")
                    break
    # X-FEN -> Shredder -> X-FEN is stable (after one normalising pass).
    x1 = run(["convert", "--to", "xfen", path]).stdout
    s = run(["convert", "--to", "shredder", "-"], stdin=x1).stdout
    x2 = run(["convert", "--to", "xfen", "-"], stdin=s).stdout
    if x1 != x2:
        fail(f"{name}: X-FEN -> Shredder -> X-FEN is not stable")


def check_compressed(name, path, data, want):
    with tempfile.TemporaryDirectory() as tmp:
        for ext, comp in [(".gz", gzip.compress), (".bz2", bz2.compress), (".zst", None)]:
            target = os.path.join(tmp, "in.pgn" + ext)
            if comp is None:
                subprocess.run(["zstd", "-q", "-f", path, "-o", target], check=True)
            else:
                open(target, "wb").write(comp(data))
            compare_stats(f"{name}{ext}", stats([target]), want)
            out = os.path.join(tmp, "out.pgn" + ext)
            run(["filter", "--class", ",".join(CLASSES), "-o", out, target])
            back = subprocess.run([BIN, "filter", "-q", "--no-progress", "--class", ",".join(CLASSES), out], capture_output=True).stdout
            if back != data and want["games"] > 0:
                fail(f"{name}{ext}: filter of every class through {ext} output does not give the input back")


def check_positions(path, expected_path, known):
    lines = open(path, "rb").read().decode("utf-8", "replace").splitlines()
    p = run(["fen", "--format", "json"], stdin=open(path, "rb").read(), check_rc=(0, 1))
    have = [json.loads(l) for l in p.stdout.splitlines()]
    want = [json.loads(l) for l in open(expected_path)]
    if len(have) != len(want):
        fail(f"positions: {len(have)} records out, {len(want)} expected")
        return
    agree, skipped, shown = 0, 0, 0
    for h, w in zip(have, want):
        if w["input"] in known:
            skipped += 1
            continue
        # The codes in order, repeats included.
        hh = dict(h, problems=[x["code"] for x in h["problems"]])
        ww = dict(w, problems=list(w["problems"]))
        keys = ["valid", "class", "board", "chess960_position", "fen", "xfen", "shredder", "problems"]
        if all(hh.get(k) == ww.get(k) for k in keys):
            agree += 1
        elif shown < 10:
            shown += 1
            diff = {k: (hh.get(k), ww.get(k)) for k in keys if hh.get(k) != ww.get(k)}
            print(f"  disagreement on {w['input']!r}: {diff}")
    total = len(want) - skipped
    print(f"fen --format json: {agree}/{total} records agree ({100.0 * agree / max(total, 1):.3f} %), {skipped} known disagreements not counted")
    if agree != total:
        fail(f"positions: {total - agree} records disagree")


def check_epd(name, path, want):
    p = run(["fen", "--format", "json"], stdin=open(path, "rb").read(), check_rc=(0, 1))
    recs = [json.loads(l) for l in p.stdout.splitlines()]
    classes = {c: 0 for c in CLASSES}
    for r in recs:
        classes[r["class"]] += 1
    if len(recs) != want["records"] or classes != want["classes"]:
        fail(f"{name}: {len(recs)} records, classes {classes}; want {want['records']}, {want['classes']}")
    # The totals the reference gives besides: valid records, boards, and the
    # problems counted as occurrences (each code once per fault, not per message).
    have = {
        "valid": sum(1 for r in recs if r["valid"]),
        "invalid": sum(1 for r in recs if not r["valid"]),
        "boards": {},
        "problems": {},
    }
    for r in recs:
        board = str(r["board"])
        have["boards"][board] = have["boards"].get(board, 0) + 1
        for problem in r["problems"]:
            have["problems"][problem["code"]] = have["problems"].get(problem["code"], 0) + 1
    for key in ["valid", "invalid", "boards", "problems"]:
        if key in want and have[key] != want[key]:
            fail(f"{name}: {key} {have[key]}; want {want[key]}")


def check_malformed(path, known):
    data = open(path, "rb").read()
    games = index(path)
    p = run(["check", "--warnings", "--format", "json", path], check_rc=(1,))
    rows = [json.loads(l) for l in p.stdout.splitlines()]
    lines = data.decode("utf-8", "replace").splitlines()
    by_game = {}
    for r in rows:
        by_game.setdefault(r["game"], []).append(r)
    agree, skipped = 0, 0
    for g in games:
        text = data[g["offset"]:g["offset"] + g["length"]].decode("utf-8", "replace")
        event = re.search(r'\[Event "([^"]*)"\]', text)
        if event and event.group(1) in known:
            skipped += 1
            continue
        m = re.search(r"\{expect:\s*([^}]*)\}", text)
        want = sorted(c.strip() for c in m.group(1).split(",")) if m else []
        got = by_game.get(g["game"], [])
        have = sorted(r["code"] for r in got)
        on_tag_lines = all(
            0 < r["line"] <= len(lines) and re.match(r"\s*\[" + re.escape(r["tag"]) + r"\s", lines[r["line"] - 1]) for r in got
        )
        if have == want and on_tag_lines:
            agree += 1
        else:
            print(f"  game {g['game']} ({text.splitlines()[0][:60]}): have {have} want {want} tag lines ok: {on_tag_lines}")
    total = len(games) - skipped
    print(f"check on malformed.pgn: {agree}/{total} games agree ({100.0 * agree / max(total, 1):.1f} %), {skipped} known disagreements not counted")
    if agree != total:
        fail(f"malformed.pgn: {total - agree} games disagree")



def main():
    require_corpus("corpus_check")
    if not os.path.exists(BIN):
        print(f"{BIN} missing: run cargo build --release first")
        return 1
    expected = json.load(open(os.path.join(CORPUS, "expected.json")))
    known_path = os.path.join(ROOT, "tests", "known-disagreements.txt")
    known = {"fen": set(), "malformed": set()}
    if os.path.exists(known_path):
        for line in open(known_path):
            if line.strip() and not line.startswith("#"):
                kind, key, reason = (line.rstrip("\n").split("\t") + ["", ""])[:3]
                known.setdefault(kind, set()).add(key)
                print(f"known disagreement ({kind}) {key!r}: {reason}")
    checked = 0
    for name, want in sorted(expected.items()):
        path = os.path.join(CORPUS, name)
        if name.endswith(".epd") or name.endswith(".fen"):
            check_epd(name, path, want)
            continue
        data = open(path, "rb").read()
        ok = compare_stats(name, stats([path]), want)
        ok &= compare_stats(name + " -j1", stats(["-j1", path]), want)
        ok &= compare_stats(name + " (stdin)", stats(["-j2", "-"], stdin=data), want)
        games = index(path)
        if len(games) != want["games"]:
            fail(f"{name}: index has {len(games)} games, want {want['games']}")
        check_filter(name, path, data, games)
        check_convert(name, path, data)
        checked += 1
    for name in ["generated/chess960.pgn", "generated/edge/crlf-3g.pgn", "real/otb-kasparov-pgnmentor-crlf.pgn"]:
        path = os.path.join(CORPUS, name)
        check_compressed(name, path, open(path, "rb").read(), expected[name])
    check_positions(os.path.join(CORPUS, "generated", "positions.fen"), os.path.join(CORPUS, "generated", "positions.expected.jsonl"), known["fen"])
    check_malformed(os.path.join(CORPUS, "generated", "malformed.pgn"), known["malformed"])
    print(f"corpus: {checked} PGN files checked, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
