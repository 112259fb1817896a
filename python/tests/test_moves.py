"""``moves=``: python-chess replays freshly generated random games live and
must find the same first illegal ply as pgnfen (the generator is
scripts/moves_referee.py: chess, Chess960, the seven lichess variants, clean
and spoiled start positions)."""

import importlib.util
import os
import random

import pytest

import pgnfen
from conftest import ROOT

chess = pytest.importorskip("chess")


def referee_module():
    spec = importlib.util.spec_from_file_location(
        "moves_referee", ROOT / "scripts" / "moves_referee.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# Fresh seeds each run; CI fixes them with PROPTEST_RNG_SEED, as it does the
# Rust property tests' (random.Random(None) seeds from the system).
_SEEDS = random.Random(os.environ.get("PROPTEST_RNG_SEED"))


@pytest.mark.parametrize("seed", [_SEEDS.randrange(1 << 30) for _ in range(3)])
def test_pgnfen_agrees_with_python_chess_live(tmp_path, seed):
    text, expected = referee_module().generate(seed, 3)
    path = tmp_path / "games.pgn"
    path.write_text(text)
    got = {}
    for p in pgnfen.check(path, moves="all"):
        assert p["code"] == "illegal-move", p
        assert p["tag"] is None
        assert p["game"] not in got, "at most one illegal move per game"
        got[p["game"]] = (p["ply"], p["move"])
    for game, e in enumerate(expected, 1):
        assert got.get(game) == e, f"seed {seed}, game {game}"
    counts = pgnfen.stats(path, moves="all")["moves"]
    illegal = sum(e is not None for e in expected)
    assert counts == {"checked": len(expected), "illegal": illegal, "not_checked": 0}
    # filter: the games with an illegal move go to rest; the two outputs hold the input.
    kept, rest = tmp_path / "kept.pgn", tmp_path / "rest.pgn"
    summary = pgnfen.filter(path, output=kept, rest=rest, moves="all")
    assert summary == {"games": len(expected), "kept": len(expected) - illegal, "rest": illegal}
    assert len(kept.read_bytes()) + len(rest.read_bytes()) == len(path.read_bytes())


@pytest.mark.parametrize("mode", ["first", "all"])
def test_games_with_moves_agree_with_check_and_stats(tmp_path, mode):
    # Each game's replay, as check() and stats() find it on the same file;
    # without moves=, no game says anything about its moves.
    text, _ = referee_module().generate(_SEEDS.randrange(1 << 30), 3)
    path = tmp_path / "games.pgn"
    path.write_text(text)
    keys = ("file", "game", "line", "column", "tag", "code", "message")
    from_check = [{k: p[k] for k in keys} for p in pgnfen.check(path, moves=mode)]
    games = list(pgnfen.games(path, moves=mode, threads=2))
    from_games = [
        {k: p[k] for k in keys} for g in games for p in g.problems if p["code"] == "illegal-move"
    ]
    assert from_games == from_check
    verdicts = [g.moves for g in games]
    assert [g.game for g in games if g.moves == "illegal"] == [p["game"] for p in from_check]
    assert {
        "checked": verdicts.count("passed") + verdicts.count("illegal"),
        "illegal": verdicts.count("illegal"),
        "not_checked": verdicts.count("not_checked"),
    } == pgnfen.stats(path, moves=mode)["moves"]
    assert all(g.moves is None for g in pgnfen.games(path))
    with pytest.raises(pgnfen.UsageError, match=r"invalid value 'some' for moves"):
        pgnfen.games(path, moves="some")


def test_moves_first_and_bad_values(tmp_path):
    path = tmp_path / "g.pgn"
    path.write_text('[Event "a"]\n\n1. e4 e5 2. Ke3 *\n')
    assert list(pgnfen.check(path, moves="first")) == []
    [p] = pgnfen.check(path, moves="all")
    assert (p["ply"], p["move"], p["line"], p["column"]) == (3, "Ke3", 3, 13)
    assert p["position"] == "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"
    assert "stats" not in pgnfen.stats(path) or "moves" not in pgnfen.stats(path)
    with pytest.raises(ValueError):
        pgnfen.check(path, moves="some")


@pytest.mark.parametrize("bad", [True, 1, b"all", ["all"]])
def test_moves_of_another_type_is_a_type_error_naming_the_values(tmp_path, bad):
    path = tmp_path / "g.pgn"
    path.write_text('[Event "a"]\n\n1. e4 *\n')
    out = tmp_path / "out.pgn"
    for call in (
        lambda: pgnfen.check(path, moves=bad),
        lambda: pgnfen.stats(path, moves=bad),
        lambda: pgnfen.filter(path, output=out, moves=bad),
    ):
        with pytest.raises(TypeError, match=r'moves must be "first", "all" or None, not ') as raised:
            call()
        assert repr(bad) in str(raised.value)
    assert not out.exists()
    # None is the default, explicitly too.
    assert pgnfen.stats(path, moves=None)["games"] == 1
