#!/usr/bin/env python3
"""EPD records against python-chess, record by record.

Every record of generated/positions.fen in the corpus (the folder PGNFEN_CORPUS
names) is cut to its first four fields and given random operations (bm, id "...",
c0 "with ; inside", hmvc, fmvn, acd, in random order and number, written as
python-chess writes them). Then
`pgnfen fen --format json` and python-chess (chess.Board.from_epd, then
board.epd(...) in each dialect with the same operations) must agree on validity,
class and the three written EPD records. Prints the agreement count; exits 1
below 100 %, except for the disagreements tests/known-disagreements.txt lists
(KIND `epd`, keyed by the rule named below, each with its reason).

python-chess is installed in a venv under target/ when it is missing.
Exits 2 when PGNFEN_CORPUS names no folder (what it must hold: CONTRIBUTING.md,
"Tests that need the corpus").

Usage: PGNFEN_CORPUS=DIR python3 .ci/epd_check.py   (after cargo build --release)
"""
import json, os, random, subprocess, sys

if __name__ == "__main__" and sys.argv[1:2] in (["-h"], ["--help"]):
    print(__doc__)
    sys.exit(0)

from corpus_env import BIN, CORPUS, ROOT, require_corpus  # noqa: E402 (after --help)
POSITIONS = os.path.join(CORPUS, "generated", "positions.fen")
KNOWN = os.path.join(ROOT, "tests", "known-disagreements.txt")
VENV = os.path.join(ROOT, "target", "epd-venv")


def ensure_chess():
    try:
        import chess  # noqa: F401
        return
    except ImportError:
        pass
    py = os.path.join(VENV, "bin", "python")
    if os.path.abspath(sys.executable) == os.path.abspath(py):
        sys.exit("epd_check: python-chess could not be imported from the venv")
    if not os.path.exists(py):
        print(f"epd_check: installing python-chess in {VENV}")
        subprocess.run([sys.executable, "-m", "venv", VENV], check=True)
    subprocess.run([py, "-m", "pip", "install", "-q", "chess==1.11.2"], check=True)
    os.execv(py, [py] + sys.argv)


def known_rules():
    rules = {}
    if os.path.exists(KNOWN):
        for line in open(KNOWN, encoding="utf-8"):
            parts = line.rstrip("\n").split("\t")
            if len(parts) == 3 and parts[0] == "epd":
                rules[parts[1]] = parts[2]
    return rules


def ops_text(ops):
    """Operations as python-chess writes them (chess.Board._epd_operations)."""
    out = []
    for opcode, operand in ops:
        if operand is None:
            out.append(f"{opcode};")
        elif isinstance(operand, int):
            out.append(f"{opcode} {operand};")
        elif isinstance(operand, list):
            out.append(opcode + "".join(" " + m for m in sorted(operand)) + ";")
        else:
            esc = operand.replace("\\", "\\\\").replace('"', '\\"')
            out.append(f'{opcode} "{esc}";')
    return " ".join(out)



def main():
    require_corpus("epd_check")
    ensure_chess()
    import chess

    rng = random.Random(20261123)
    records = []
    for line in open(POSITIONS, encoding="utf-8", errors="replace"):
        line = line.rstrip("\r\n")
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split()
        position = " ".join(fields[:4]) if len(fields) in (4, 6) else line
        records.append((line, position))

    def parse960(epd):
        return chess.Board.from_epd(epd, chess960=True)

    cases = []
    for line, position in records:
        ops = []
        try:
            board, _ = parse960(position + " hmvc 0;")
            # No castling moves: from_epd reads SAN on a board in standard mode
            # (its make_board drops chess960=True), so O-O of a Chess960
            # position would fail there, a python-chess limit, not an EPD one.
            moves = [m for m in board.legal_moves if not board.is_castling(m)] if board.is_valid() else []
        except (ValueError, IndexError, AssertionError):
            moves = []
        choices = ["id", "c0", "hmvc", "fmvn", "acd"] + (["bm"] if moves else [])
        for opcode in rng.sample(choices, rng.randint(1, len(choices))):
            if opcode == "bm":
                picked = rng.sample(moves, min(len(moves), rng.randint(1, 2)))
                ops.append(("bm", [board.san(m) for m in picked]))
            elif opcode == "id":
                ops.append(("id", rng.choice(["BK.", "pos ", 'q"', "a\\b "]) + str(rng.randint(1, 999))))
            elif opcode == "c0":
                ops.append(("c0", "with ; inside"))
            elif opcode == "hmvc":
                ops.append(("hmvc", rng.randint(0, 99)))
            elif opcode == "fmvn":
                ops.append(("fmvn", rng.randint(1, 300)))
            else:
                ops.append(("acd", rng.randint(1, 40)))
        cases.append((line, position + " " + ops_text(ops)))

    text = "".join(epd + "\n" for _, epd in cases).encode()
    p = subprocess.run([BIN, "--no-progress", "-q", "fen", "--format", "json"], input=text, capture_output=True)
    ours = [json.loads(l) for l in p.stdout.splitlines()]
    if len(ours) != len(cases):
        print(f"FAIL: pgnfen printed {len(ours)} objects for {len(cases)} records")
        return 1

    rules = known_rules()
    agree, known, failures = 0, {}, []
    for (line, epd), have in zip(cases, ours):
        want, rule = python_chess(chess, epd)
        diffs = [k for k in ("valid", "class", "fen", "xfen", "shredder") if have.get(k) != want.get(k)]
        if not diffs:
            agree += 1
        elif rule in rules:
            known[rule] = known.get(rule, 0) + 1
        else:
            failures.append((epd, rule, {k: (have.get(k), want.get(k)) for k in diffs}))

    total = len(cases)
    print(f"epd_check: {agree}/{total} EPD records agree with python-chess {chess.__version__} "
          f"({100.0 * agree / total:.2f} %)")
    counted = total - sum(known.values())
    print(f"epd_check: outside the known disagreements: {agree}/{counted} agree "
          f"({100.0 * agree / max(counted, 1):.2f} %)")
    for rule, n in sorted(known.items()):
        print(f"  known disagreement '{rule}': {n} records: {rules[rule]}")
    for epd, rule, diff in failures[:20]:
        print(f"FAIL [{rule}] {epd}\n     (pgnfen, python-chess): {diff}")
    if failures:
        print(f"FAIL: {len(failures)} records disagree")
        return 1
    return 0


def files(rank):
    """How many files a placement rank spans (digits are runs, `10` one run)."""
    n, i = 0, 0
    while i < len(rank):
        if rank.startswith("10", i):
            n, i = n + 10, i + 2
        else:
            n, i = n + (int(rank[i]) if rank[i].isdigit() else 1), i + 1
    return n


def python_chess(chess, epd):
    """python-chess's verdict on one EPD, in the shape of our JSON object, and the
    name of the rule that explains a known difference (or 'none')."""
    nothing = {"valid": False, "class": "malformed", "fen": None, "xfen": None, "shredder": None}
    placement = epd.split(" ", 1)[0]
    rule = "none"
    if files(placement.split("/")[0]) == 10 or any(c in placement for c in "aAcC"):
        rule = "10x8"
    try:
        board, ops = chess.Board.from_epd(epd, chess960=True)
    except (ValueError, IndexError, AssertionError) as e:
        if rule == "none" and "invalid castling part" in str(e):
            rule = "castling-order"
        return nothing, rule
    # The class decides the castling mode legality is judged in: Chess960 when a
    # right needs it or the position is a Chess960 start array, else standard.
    needs960 = board.has_chess960_castling_rights()
    n = board.chess960_pos()
    if not needs960 and (n is None or n == 518):
        board.chess960 = False
    if not board.is_valid():
        return nothing, rule if rule != "none" else "validity"
    start = (board.board_fen() == chess.STARTING_BOARD_FEN and board.turn == chess.WHITE
             and board.castling_rights == chess.BB_CORNERS and board.ep_square is None)
    if start:
        cls = "standard"
    elif needs960 or (n is not None and n != 518):
        cls = "chess960"
    else:
        cls = "setup"
    board.chess960 = True
    xfen = board.epd(en_passant="xfen", **ops)
    castling = xfen.split(" ")[2]
    asked = set(epd.split(" ")[2]) - set("-")
    if rule == "none" and len(asked) > len(set(castling) - set("-")):
        rule = "castling-dropped"
    return {
        "valid": True,
        "class": cls,
        "fen": board.epd(en_passant="fen", **ops) if set(castling) <= set("KQkq-") else None,
        "xfen": xfen,
        "shredder": board.epd(shredder=True, en_passant="fen", **ops),
    }, rule


if __name__ == "__main__":
    sys.exit(main())
