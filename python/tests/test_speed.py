"""Time controls and speed in the Python package: Game.speed, stats()["speeds"],
filter(speeds=...), the speed columns of scan(); each against the CLI."""

import json

import pytest

import pgnfen
from conftest import cli, corpus_files, file_id

SPEEDS = ["ultrabullet", "bullet", "blitz", "rapid", "classical", "correspondence", "unknown"]

# (TimeControl value or None for no tag, speed, time_base, time_increment)
CASES = [
    ("15", "ultrabullet", 15.0, 0.0),
    ("10+0.1", "ultrabullet", 10.0, 0.1),
    ("29.999", "ultrabullet", 29.999, 0.0),
    ("30", "bullet", 30.0, 0.0),
    ("60+0", "bullet", 60.0, 0.0),
    ("180", "blitz", 180.0, 0.0),
    ("300+3", "blitz", 300.0, 3.0),
    ("480", "rapid", 480.0, 0.0),
    ("900+10", "rapid", 900.0, 10.0),
    ("1500", "classical", 1500.0, 0.0),
    ("40/5400+30:1800+30", "classical", 5400.0, 30.0),
    ("86400", "correspondence", 86400.0, 0.0),
    ("1/86400", "correspondence", 86400.0, 0.0),
    ("-", "correspondence", None, None),
    ("*60", "bullet", 60.0, 0.0),
    ("?", "unknown", None, None),
    ("G/90", "unknown", None, None),
    ("3|2", "unknown", None, None),
    ("0/300", "unknown", None, None),
    ("180 + 2", "unknown", None, None),
    ("300+3+1", "unknown", None, None),
    (None, "unknown", None, None),
]


@pytest.fixture
def fixture(tmp_path):
    path = tmp_path / "speeds.pgn"
    games = []
    for i, (value, _, _, _) in enumerate(CASES):
        tc = f'[TimeControl "{value}"]\n' if value is not None else ""
        games.append(f'[Event "g{i}"]\n{tc}\n1. e4 *\n\n')
    path.write_text("".join(games))
    return path


def test_game_speed_follows_the_time_control(fixture):
    got = [g.speed for g in pgnfen.games(fixture)]
    assert got == [speed for _, speed, _, _ in CASES]


def test_stats_has_all_seven_speeds_and_equals_the_cli(fixture):
    stats = pgnfen.stats(fixture)
    assert list(stats["speeds"]) == SPEEDS
    assert stats == json.loads(cli("stats", "--format", "json", fixture))
    for speed in SPEEDS:
        assert stats["speeds"][speed] == sum(1 for c in CASES if c[1] == speed)


def test_filter_by_speed_equals_the_cli(fixture, tmp_path):
    kept, rest = tmp_path / "kept.pgn", tmp_path / "rest.pgn"
    counts = pgnfen.filter(fixture, output=kept, rest=rest, speeds=["classical", "unknown"])
    want = sum(1 for c in CASES if c[1] in ("classical", "unknown"))
    assert counts == {"games": len(CASES), "kept": want, "rest": len(CASES) - want}
    assert kept.read_bytes() == cli("filter", "--speed", "classical,unknown", fixture)
    assert kept.read_bytes() + rest.read_bytes() != b""
    # Every game lands in exactly one of the two outputs.
    assert len(kept.read_bytes()) + len(rest.read_bytes()) == fixture.stat().st_size
    # Composes with classes: no standard game is Chess960 here.
    counts = pgnfen.filter(fixture, output=kept, classes=["chess960"], speeds=["blitz"])
    assert counts["kept"] == 0


def test_filter_speeds_alone_is_a_selection_and_bad_names_are_value_errors(fixture, tmp_path):
    out = tmp_path / "o.pgn"
    assert pgnfen.filter(fixture, output=out, speeds=["blitz"])["kept"] == 2
    with pytest.raises(ValueError, match="ultrabullet"):
        pgnfen.filter(fixture, output=out, speeds=["hyperbullet"])
    with pytest.raises(ValueError, match="speeds"):
        pgnfen.filter(fixture, output=out)


def test_scan_has_the_speed_columns_after_chess960_position(fixture):
    pytest.importorskip("pyarrow")
    table = pgnfen.scan(fixture).read_all()
    names = table.column_names
    i = names.index("chess960_position")
    assert names[i + 1 : i + 4] == ["speed", "time_base", "time_increment"]
    assert str(table.schema.field("time_base").type) == "double"
    rows = table.to_pylist()
    for row, (value, speed, base, inc) in zip(rows, CASES):
        assert row["speed"] == (None if speed == "unknown" else speed), value
        assert (row["time_base"], row["time_increment"]) == (base, inc), value


@pytest.mark.parametrize("path", corpus_files()[:8], ids=file_id)
def test_game_speed_equals_the_exported_column(path):
    pytest.importorskip("pyarrow")
    speeds = [g.speed for g in pgnfen.games(path)]
    column = pgnfen.scan(path).read_all().column("speed").to_pylist()
    assert speeds == [s or "unknown" for s in column]
