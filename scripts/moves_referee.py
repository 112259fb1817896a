#!/usr/bin/env python3
"""Random games judged by python-chess, the independent referee of `--moves`.

Generates games of chess, Chess960 and the seven lichess variants, clean and
spoiled the ways a SetUp header goes wrong in real archives (the FEN of the
game's final position, the FEN of another game, a castling right or en passant
square dropped by a converter, a lost Variant tag), and for each game what
python-chess says about its mainline when it is replayed the way pgnfen reads
the header: `pass`, or the first ply whose move cannot be played.

    python3 scripts/moves_referee.py [--seed N] [--games N] OUT.pgn OUT.expected

writes the fixtures of tests/moves.rs (tests/data/moves/); python/tests/
test_moves.py imports `generate` to run the referee live on fresh games.
Needs `pip install chess`.
"""

import argparse
import random


def arguments():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--seed", type=int, default=22)
    p.add_argument("--games", type=int, default=12, help="rounds (each makes ~30 games)")
    p.add_argument("pgn")
    p.add_argument("expected")
    return p


if __name__ == "__main__":
    # Read before python-chess is imported, so that --help (and a usage
    # error) needs no python-chess.
    ARGS = arguments().parse_args()

import chess  # noqa: E402
import chess.variant  # noqa: E402

# Variant tag as lichess writes it -> python-chess board class.
VARIANTS = {
    "Crazyhouse": chess.variant.CrazyhouseBoard,
    "Atomic": chess.variant.AtomicBoard,
    "Antichess": chess.variant.AntichessBoard,
    "King of the Hill": chess.variant.KingOfTheHillBoard,
    "Three-check": chess.variant.ThreeCheckBoard,
    "Racing Kings": chess.variant.RacingKingsBoard,
    "Horde": chess.variant.HordeBoard,
}


def random_game(rng, board, plies, prefer=()):
    """Plays up to `plies` random legal moves on `board`; returns the SAN list.
    Moves of the kinds in `prefer` ('castling', 'ep') are chosen when legal, so
    that spoiled castling rights and en passant squares matter."""
    sans = []
    for _ in range(plies):
        if board.is_game_over():
            break
        moves = list(board.legal_moves)
        if not moves:
            break
        liked = [
            m
            for m in moves
            if ("castling" in prefer and board.is_castling(m))
            or ("ep" in prefer and board.is_en_passant(m))
        ]
        move = rng.choice(liked) if liked and rng.random() < 0.9 else rng.choice(moves)
        sans.append(board.san(move))
        board.push(move)
    return sans


def drop_castling(rng, start, sans):
    """`start` without one castling right: the right of the first castling move
    of `sans` when there is one (so that the spoil matters), else a random one."""
    board = start.copy(stack=False)
    rights = [sq for sq in chess.SQUARES if start.castling_rights & chess.BB_SQUARES[sq]]
    drop = rng.choice(rights)
    for san in sans:
        move = board.parse_san(san)
        if board.is_castling(move):
            # The rook of a castling move (python-chess: king takes own rook in 960).
            rook = move.to_square if board.chess960 else (
                chess.H1 if move.to_square == chess.G1 else chess.A1 if move.to_square == chess.C1
                else chess.H8 if move.to_square == chess.G8 else chess.A8)
            if start.castling_rights & chess.BB_SQUARES[rook]:
                drop = rook
            break
        board.push(move)
    spoiled = start.copy(stack=False)
    spoiled.castling_rights &= ~chess.BB_SQUARES[drop]
    return spoiled


def referee(board, sans):
    """The first ply (1-based) whose SAN python-chess cannot play from `board`, or None."""
    board = board.copy(stack=False)
    for ply, san in enumerate(sans, 1):
        try:
            move = board.parse_san(san)
        except ValueError:
            return ply
        board.push(move)
    return None


def movetext(sans, first_ply_black=False, number=1):
    out = []
    n = number
    for i, san in enumerate(sans):
        white_to_move = (i % 2 == 0) != first_ply_black
        if white_to_move:
            out.append(f"{n}.")
        elif i == 0:
            out.append(f"{n}...")
        out.append(san)
        if not white_to_move:
            n += 1
    return " ".join(out)


def pgn_game(event, tags, sans, black_first=False, number=1):
    head = [f'[Event "{event}"]', '[Site "?"]', '[Result "*"]']
    head += [f'[{k} "{v}"]' for k, v in tags]
    body = movetext(sans, black_first, number)
    # Lines of at most ~80 characters, as exporters write them.
    words, lines, line = body.split(), [], ""
    for w in words + ["*"]:
        if line and len(line) + 1 + len(w) > 79:
            lines.append(line)
            line = w
        else:
            line = f"{line} {w}" if line else w
    lines.append(line)
    return "\n".join(head) + "\n\n" + "\n".join(lines) + "\n\n"


def fen_tags(board, variant=None, chess960=False):
    tags = []
    if variant:
        tags.append(("Variant", variant))
    elif chess960:
        tags.append(("Variant", "Chess960"))
    tags += [("SetUp", "1"), ("FEN", board.fen())]
    return tags


def generate(seed, games):
    """`games` rounds of random games; returns (PGN text, expectations), an
    expectation per game: None (passes) or (ply, SAN of that ply)."""
    rng = random.Random(seed)
    out, expected = [], []

    def add(event, tags, start, sans, number=1):
        ply = referee(start, sans)
        out.append(pgn_game(event, tags, sans, start.turn == chess.BLACK, number))
        expected.append(None if ply is None else (ply, sans[ply - 1]))

    for round_ in range(games):
        # Chess: a clean game, then spoiled ones.
        board = chess.Board()
        sans = random_game(rng, board, rng.randint(20, 90))
        add(f"chess {round_}", [], chess.Board(), sans)
        final = board.copy(stack=False)
        add(f"chess final FEN {round_}", fen_tags(final), final, sans)
        # A set-up start taken from the middle of a game, spoiled.
        pre = chess.Board()
        random_game(rng, pre, rng.randint(4, 16))
        start = pre.copy(stack=False)
        cont = random_game(rng, pre, rng.randint(10, 60), prefer=("castling", "ep"))
        add(f"setup {round_}", fen_tags(start), start, cont, start.fullmove_number)
        other = chess.Board()
        random_game(rng, other, rng.randint(6, 30))
        other = other.copy(stack=False)
        add(f"other game's FEN {round_}", fen_tags(other), other, cont, start.fullmove_number)
        if start.castling_rights:
            spoiled = drop_castling(rng, start, cont)
            add(f"dropped castling {round_}", fen_tags(spoiled), spoiled, cont, start.fullmove_number)
        # A start right after a double pawn push, spoiled by dropping its ep square.
        for _attempt in range(200):
            ep = chess.Board()
            for _ in range(40):
                moves = list(ep.legal_moves)
                if not moves or ep.is_game_over():
                    break
                # Pawn moves first, so that double pushes meet enemy pawns.
                pawns = [m for m in moves if ep.piece_type_at(m.from_square) == chess.PAWN]
                ep.push(rng.choice(pawns if pawns and rng.random() < 0.7 else moves))
                if ep.ep_square is not None and ep.has_legal_en_passant():
                    break
            if ep.ep_square is not None and ep.has_legal_en_passant():
                break
        if ep.ep_square is not None and ep.has_legal_en_passant():
            start = ep.copy(stack=False)
            cont = random_game(rng, ep, rng.randint(1, 30), prefer=("ep",))
            add(f"ep {round_}", fen_tags(start), start, cont, start.fullmove_number)
            dropped = start.copy(stack=False)
            dropped.ep_square = None
            # python-chess writes the ep square only when a capture is legal;
            # the FEN is written by hand so that the square is really gone.
            fields = start.fen(en_passant="fen").split()
            fields[3] = "-"
            tags = [("SetUp", "1"), ("FEN", " ".join(fields))]
            add(f"dropped ep {round_}", tags, dropped, cont, start.fullmove_number)

        # Chess960 from a random start array, and its final position as FEN.
        n = rng.randrange(960)
        board = chess.Board.from_chess960_pos(n)
        start = board.copy(stack=False)
        sans = random_game(rng, board, rng.randint(10, 80), prefer=("castling",))
        add(f"chess960 {round_}", fen_tags(start, chess960=True), start, sans)
        final = board.copy(stack=False)
        if final.is_valid():
            add(f"chess960 final FEN {round_}", fen_tags(final, chess960=True), final, sans)
        if start.castling_rights:
            spoiled = drop_castling(rng, start, sans)
            add(f"chess960 dropped castling {round_}", fen_tags(spoiled, chess960=True), spoiled, sans)

        # Each variant: from its start, from a FEN in the middle, and with its
        # Variant tag lost (then read as chess from the standard start).
        for name, cls in VARIANTS.items():
            board = cls()
            sans = random_game(rng, board, rng.randint(10, 70))
            add(f"{name} {round_}", [("Variant", name)], cls(), sans)
            if name not in ("Racing Kings", "Horde"):
                add(f"{name} lost Variant {round_}", [], chess.Board(), sans)
            mid = cls()
            random_game(rng, mid, rng.randint(4, 12))
            if not mid.is_game_over():
                start = mid.copy(stack=False)
                cont = random_game(rng, mid, rng.randint(5, 40))
                add(f"{name} from FEN {round_}", fen_tags(start, variant=name), start, cont, start.fullmove_number)
    return "".join(out), expected


def main():
    a = ARGS
    text, expected = generate(a.seed, a.games)
    with open(a.pgn, "w", newline="\n") as f:
        f.write(text)
    with open(a.expected, "w", newline="\n") as f:
        f.write("# game\tpass | ply<TAB>move (python-chess " + chess.__version__ + f", seed {a.seed})\n")
        for i, e in enumerate(expected, 1):
            f.write(f"{i}\tpass\n" if e is None else f"{i}\t{e[0]}\t{e[1]}\n")


if __name__ == "__main__":
    main()
