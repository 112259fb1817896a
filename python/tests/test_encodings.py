"""Tag values of Latin-1 archives: decoded as UTF-8 when valid, else as
Windows-1252, in games().headers and scan(); raw bytes untouched."""

import json

import pytest

import pgnfen

LATIN1 = (
    b'[Event "Hoogovens"]\n[White "R\xe9ti, Richard"]\n[Black "Tartakower"]\n'
    b'[Na\xffme "x"]\n\n1. e4 *\n'
)


@pytest.fixture
def latin1(tmp_path):
    path = tmp_path / "latin1.pgn"
    path.write_bytes(LATIN1)
    return str(path)


def test_games_headers_decode_latin1_and_keep_raw(latin1):
    (game,) = list(pgnfen.games(latin1))
    assert game.headers["White"] == "Réti, Richard"
    assert "Naÿme" in game.headers
    # The mapping's lookups decode names and values as the dict does.
    assert game.tags["White"] == "Réti, Richard" and game.tags["Naÿme"] == game.headers["Naÿme"]
    assert game.raw == LATIN1
    (game,) = list(pgnfen.games(latin1, encoding="utf-8"))
    assert game.headers["White"] == "R\ufffdti, Richard"
    assert "Na\\xFFme" in game.headers
    assert game.tags["White"] == "R\ufffdti, Richard" and game.tags["Na\\xFFme"] == game.headers["Na\\xFFme"]


def test_scan_decodes_latin1(latin1):
    pytest.importorskip("pyarrow")
    table = pgnfen.scan(latin1).read_all()
    assert table.column("White").to_pylist() == ["Réti, Richard"]
    table = pgnfen.scan(latin1, encoding="latin-1").read_all()
    assert table.column("White").to_pylist() == ["Réti, Richard"]


def test_an_unknown_encoding_is_a_value_error(latin1):
    with pytest.raises(ValueError, match=r"invalid value .* for encoding \[possible values: auto, utf-8, latin-1\]"):
        pgnfen.games(latin1, encoding="ebcdic")
    with pytest.raises(ValueError, match=r"invalid value .* for encoding \[possible values: auto, utf-8, latin-1\]"):
        pgnfen.scan(latin1, encoding="ebcdic")


def test_export_takes_the_encoding_as_scan_does(tmp_path):
    pgn = tmp_path / "latin.pgn"
    pgn.write_bytes(b'[Event "caf\xe9"]\n[White "\xc3\xa9"]\n\n*\n')
    out = tmp_path / "h.jsonl"
    for encoding, white in (("latin-1", "\u00c3\u00a9"), ("utf8", "\u00e9"), (None, "\u00e9")):
        pgnfen.export(pgn, output=out, encoding=encoding)
        row = json.loads(out.read_text())
        assert row["White"] == white, encoding
    with pytest.raises(pgnfen.UsageError):
        pgnfen.export(pgn, output=out, encoding="ebcdic")
