"""pgnfen's Python package against its command line, python-chess and bad input.

Every result is compared with the CLI binary built from the same tree
(target/release/pgnfen), so the two cannot drift apart.
"""

import collections.abc
import errno
import io
import json
import os
import pathlib
import random
import re
import threading
import resource
import subprocess
import sys
import time

import chess
import chess.pgn
import pytest

import pgnfen
from conftest import CLI, CORPUS, SAMPLES, cli, corpus_files, file_id, needs_corpus, real_files

FILES = corpus_files()


def test_the_repository_files_are_there():
    # Without the corpus the samples and tests/data still exercise everything below.
    assert len(FILES) >= 25, FILES


@needs_corpus
def test_the_corpus_is_there():
    # With PGNFEN_CORPUS the parametrised tests also run on its 42 real files.
    assert len(real_files()) >= 40, CORPUS


# ---- fen ----


def fen_files():
    files = [SAMPLES / "positions.fen"]
    if CORPUS.is_dir():
        files.append(CORPUS / "generated" / "positions.fen")
    return files


@pytest.mark.parametrize("path", fen_files(), ids=file_id)
def test_fen_equals_the_json_of_the_cli_for_every_record(path):
    # Records through standard input: that form of the `fen` command is stable.
    with open(path, "rb") as f:
        objects = [json.loads(line) for line in cli("fen", "--format", "json", stdin=f).splitlines()]
    assert len(objects) >= 5
    for expected in objects:
        # A record given as a string was read from no file: no file, no line.
        del expected["file"], expected["line"]
        assert pgnfen.fen(expected["input"]) == expected


def test_fen_of_an_epd_record_equals_the_cli():
    record = 'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 bm e5; id "x;y";'
    expected = json.loads(cli("fen", "--format", "json", "-r", record))
    assert (expected.pop("file"), expected.pop("line")) == ("<argument>", 1)
    got = pgnfen.fen(record)
    assert got == expected
    assert got["operations"] == 'bm e5; id "x;y";'
    assert got["shredder"] == 'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b HAha e3 bm e5; id "x;y";'
    assert pgnfen.fen("8/8/8/8/8/8/8/K6k w - - 0 1")["operations"] is None


def test_fen_of_an_invalid_record():
    got = pgnfen.fen("not a fen")
    assert got["valid"] is False and got["class"] == "malformed"
    assert got["fen"] is None and got["problems"][0]["code"] == "fen-syntax"


def test_fen_of_a_line_read_from_a_file_keeps_out_its_line_end():
    start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
    for end in ("\n", "\r\n", "\r"):
        assert pgnfen.fen(start + end) == pgnfen.fen(start)
    # One line end only: a string of two lines is for fen_records().
    for text in (start + "\n\n", start + "\n" + start, "a\rb"):
        with pytest.raises(pgnfen.UsageError, match="fen_records"):
            pgnfen.fen(text)
    assert pgnfen.fen(start)["input"] == start
    # A byte-order mark before it is no part of it either, as in a book and
    # for `fen -r`; a lone surrogate is a usage error, not UnicodeEncodeError.
    assert pgnfen.fen("\ufeff" + start) == pgnfen.fen(start)
    for text in ("\ud800", start[:-1] + "\udce9"):
        with pytest.raises(pgnfen.UsageError, match="surrogate"):
            pgnfen.fen(text)


def test_names_that_read_alike_keep_both_tags_under_the_keys_of_export(tmp_path):
    # `é` in Windows-1252 and in UTF-8 (auto), an invalid byte and the same
    # name written with `\xFF` (utf-8): two tags each, not one value lost.
    path = tmp_path / "names.pgn"
    path.write_bytes(
        b'[Event "x"]\n[Na\xe9me "latin"]\n[Na\xc3\xa9me "utf8"]\n[Na\xe9me "again"]\n\n*\n\n'
        b'[Event "y"]\n[Na\xffme "invalid"]\n[Na\\xFFme "literal"]\n\n*\n'
    )
    expected = {
        "auto": [
            {"Event": "x", "Na\xe9me": "latin", "Na\xe9me#2": "utf8"},
            {"Event": "y", "Na\xffme": "invalid", "Na\\xFFme": "literal"},
        ],
        "utf-8": [
            {"Event": "x", "Na\\xE9me": "latin", "Na\xe9me": "utf8"},
            {"Event": "y", "Na\\xFFme": "invalid", "Na\\\\xFFme": "literal"},
        ],
    }
    for encoding, dicts in expected.items():
        games = list(pgnfen.games(path, encoding=encoding))
        assert [g.headers for g in games] == dicts
        for game, d in zip(games, dicts):
            # Looked up one by one, before and after the whole dict is made.
            assert {k: game.tags[k] for k in d} == d
            assert dict(game.tags) == d
            assert {k: game.tags.get(k) for k in d} == d
        # The same keys as export's other_tags (Event is a column there;
        # export also keeps the repeated tag's value, as `Naéme#2#2`).
        out = tmp_path / "x.jsonl"
        pgnfen.export(path, output=out, encoding=encoding)
        rows = [json.loads(line) for line in out.read_text().splitlines()]
        for row, d in zip(rows, dicts):
            exported = {"Event": row["Event"], **row["other_tags"]}
            assert {k: exported.get(k) for k in d} == d


def test_tags_answer_an_unhashable_key_as_a_dict_does(tmp_path):
    game = next(pgnfen.games(SAMPLES / "mixed.pgn"))
    for fresh in (True, False):
        tags = game.tags
        if not fresh:
            len(tags)
        with pytest.raises(TypeError, match="unhashable"):
            [] in tags
        with pytest.raises(TypeError, match="unhashable"):
            tags.get([])
        assert 1 not in tags and tags.get(1) is None


def test_shredder_fen_loads_in_python_chess():
    seen = 0
    for record in (SAMPLES / "positions.fen").read_text().splitlines():
        got = pgnfen.fen(record) if record.strip() else None
        if got and got["valid"] and got["board"] == "8x8" and got["class"] in ("chess960", "standard"):
            board = chess.Board(got["shredder"], chess960=True)
            assert board.is_valid() or board.status() != chess.STATUS_VALID
            seen += 1
    start = pgnfen.fen("bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9")
    board = chess.Board(start["shredder"], chess960=True)
    assert board.castling_rights == chess.BB_H1 | chess.BB_F1 | chess.BB_H8 | chess.BB_F8
    assert seen > 0


# ---- stats and check ----


@pytest.mark.parametrize("path", FILES, ids=file_id)
def test_stats_equals_the_cli(path):
    assert pgnfen.stats(path, threads=2) == json.loads(cli("stats", "--format", "json", path))


def test_stats_of_zst_files_equal_the_cli(zst_dir):
    for path in sorted(zst_dir.iterdir()):
        assert pgnfen.stats(path) == json.loads(cli("stats", "--format", "json", path)), path


def test_stats_of_several_files_at_once():
    files = FILES[:4]
    assert pgnfen.stats(*files, threads=1) == json.loads(cli("stats", "--format", "json", *files))


def test_pgnfen_dask_without_dask_says_what_to_install(monkeypatch):
    import pgnfen.dask  # (needs nothing but pgnfen itself)

    for name in ("dask", "dask.distributed", "dask.dataframe"):
        monkeypatch.setitem(sys.modules, name, None)
    for call, part in (
        (lambda: pgnfen.dask.stats(SAMPLES / "mixed.pgn"), "distributed"),
        (lambda: pgnfen.dask.read_headers(SAMPLES / "mixed.pgn"), "dataframe"),
    ):
        with pytest.raises(ImportError, match=rf"dask\.{part} .*pip install 'pgnfen\[dask\]'"):
            call()


def test_stats_with_tags_and_speeds_equals_the_cli(tmp_path):
    games = tmp_path / "clocks.pgn"
    games.write_text(
        "".join(
            f'[Event "e{i}"]\n[WhiteElo "{2000 + 100 * (i % 7)}"]\n[TimeControl "{c}"]\n\n1. e4 *\n\n'
            for i, c in enumerate(["60+0", "180+2", "600+5", "-", "?"] * 20)
        )
    )
    paths = [games, *FILES[:3]]
    for tags, speeds in ((["WhiteElo>=2300"], None), (None, ["blitz", "unknown"]), (["Event~e1"], ["rapid"])):
        flags = [f for t in tags or [] for f in ("--tag", t)] + (["--speed", ",".join(speeds)] if speeds else [])
        got = pgnfen.stats(*paths, tags=tags, speeds=speeds)
        assert got == json.loads(cli("stats", "--format", "json", *flags, *paths)), (tags, speeds)
        assert got["unmatched"] > 0 and got["games"] > 0
    assert "unmatched" not in pgnfen.stats(*paths, tags=[], speeds=[])
    with pytest.raises(pgnfen.UsageError, match="speeds"):
        pgnfen.stats(games, speeds=["Blitz"])
    with pytest.raises(pgnfen.UsageError):
        pgnfen.stats(games, tags=["WhiteElo>>1"])


@pytest.mark.parametrize("path", FILES, ids=file_id)
def test_check_equals_the_json_lines_of_the_cli(path):
    for warnings in (False, True):
        flags = ["--warnings"] if warnings else []
        expected = [json.loads(l) for l in cli("check", "--format", "json", *flags, path).splitlines()]
        assert list(pgnfen.check(str(path), warnings=warnings)) == expected


# ---- filter and convert ----


SELECTIONS = [
    {"classes": ["chess960", "setup"]},
    {"classes": ["standard"]},
    {"classes": ["malformed", "other", "crc"]},
]


@pytest.mark.parametrize("path", FILES, ids=file_id)
def test_filter_writes_what_the_cli_writes(path, tmp_path):
    for n, selection in enumerate(SELECTIONS):
        kept, rest = tmp_path / f"kept{n}.pgn", tmp_path / f"rest{n}.pgn"
        counts = pgnfen.filter(path, output=kept, rest=rest, **selection)
        cli_kept, cli_rest = tmp_path / f"cli-kept{n}.pgn", tmp_path / f"cli-rest{n}.pgn"
        cli("filter", "--class", ",".join(selection["classes"]), "-o", cli_kept, "--rest", cli_rest, path)
        assert kept.read_bytes() == cli_kept.read_bytes()
        assert rest.read_bytes() == cli_rest.read_bytes()
        games = json.loads(cli("stats", "--format", "json", path))["games"]
        assert counts["games"] == games and counts["kept"] + counts["rest"] == games


def test_filter_by_chess960_position(tmp_path):
    path = SAMPLES / "chess960.pgn"
    got = pgnfen.filter(path, output=tmp_path / "a.pgn", classes=["chess960"], chess960_positions=[518, 0, 959])
    cli("filter", "--class", "chess960", "--chess960-position", "518,0,959", "-o", tmp_path / "b.pgn", path)
    assert (tmp_path / "a.pgn").read_bytes() == (tmp_path / "b.pgn").read_bytes()
    # Positions alone select Chess960 games only.
    alone = pgnfen.filter(path, output=tmp_path / "c.pgn", chess960_positions=[518, 0, 959])
    assert alone == got


def test_filter_compresses_by_the_output_ending(tmp_path):
    zstandard = pytest.importorskip("zstandard")
    path = SAMPLES / "mixed.pgn"
    pgnfen.filter(path, output=tmp_path / "a.pgn.zst", classes=list(pgnfen.stats(path)["classes"]))
    data = zstandard.ZstdDecompressor().stream_reader(open(tmp_path / "a.pgn.zst", "rb")).read()
    assert data == path.read_bytes()


CONVERSIONS = [
    {"to": "shredder"},
    {"to": "xfen", "ep": "legal"},
    {"to": "fen", "repair": True},
]


@pytest.mark.parametrize("path", FILES, ids=file_id)
def test_convert_writes_what_the_cli_writes(path, tmp_path):
    for n, conversion in enumerate(CONVERSIONS):
        out, cli_out = tmp_path / f"out{n}.pgn", tmp_path / f"cli{n}.pgn"
        counts = pgnfen.convert(path, output=out, **conversion)
        flags = ["--to", conversion["to"]]
        if "ep" in conversion:
            flags += ["--ep", conversion["ep"]]
        if conversion.get("repair"):
            flags.append("--repair")
        cli("convert", *flags, "-o", cli_out, path)
        assert out.read_bytes() == cli_out.read_bytes()
        assert set(counts) == {"games", "converted", "unchanged"}


def test_convert_counts():
    # Every FEN tag of the sample is written, none left unchanged.
    out = pathlib.Path(os.devnull)
    counts = pgnfen.convert(SAMPLES / "chess960.pgn", output=out, to="shredder")
    stats = pgnfen.stats(SAMPLES / "chess960.pgn")
    assert counts["games"] == stats["games"]
    assert counts["converted"] >= stats["classes"]["chess960"] and counts["unchanged"] == 0


def test_pgn_outputs_named_parquet_are_refused(tmp_path):
    # As on the command line: PGN text under a Parquet name is a UsageError,
    # before anything is written; export() writes the Parquet file.
    path = SAMPLES / "mixed.pgn"
    for call in (
        lambda: pgnfen.filter(path, output=tmp_path / "x.parquet", classes=["standard"]),
        lambda: pgnfen.convert(path, output=tmp_path / "x.parquet.zst", to="fen"),
        lambda: pgnfen.split(path, template=tmp_path / "{class}.PARQUET"),
    ):
        with pytest.raises(pgnfen.UsageError, match="writes PGN text, which no Parquet reader reads"):
            call()
    assert list(tmp_path.iterdir()) == []


def test_export_refuses_a_name_of_another_format_and_csv_raw_beside_another_format(tmp_path):
    # As on the command line: the name and format= must agree when both speak
    # (a reader goes by the name), and csv_raw=True changes CSV cells only.
    path = SAMPLES / "mixed.pgn"
    with pytest.raises(pgnfen.UsageError, match=r"asks for Parquet but the format given is JSON lines; name it .*x\.jsonl,"):
        pgnfen.export(path, output=tmp_path / "x.parquet", format="jsonl")
    with pytest.raises(pgnfen.UsageError, match=r"name it .*x\.csv\.zst,"):
        pgnfen.export(path, output=tmp_path / "x.jsonl.zst", format="csv")
    with pytest.raises(pgnfen.UsageError, match="csv_raw=True is for CSV, and this export writes parquet"):
        pgnfen.export(path, output=tmp_path / "x.parquet", csv_raw=True)
    assert list(tmp_path.iterdir()) == []
    assert pgnfen.export(path, output=tmp_path / "x.txt", format="csv")["games"] == 13


def test_filter_refuses_an_output_that_is_one_of_several_inputs(tmp_path):
    # The library refuses it (the games of a.pgn not kept would be lost).
    a, b = tmp_path / "a.pgn", tmp_path / "b.pgn"
    text = (SAMPLES / "mixed.pgn").read_bytes()
    a.write_bytes(text)
    b.write_bytes(text)
    for kwargs in ({"output": a}, {"output": tmp_path / "kept.pgn", "rest": b}):
        with pytest.raises(pgnfen.UsageError, match="names one of the 2 inputs"):
            pgnfen.filter(a, b, classes=["standard"], **kwargs)
    assert a.read_bytes() == text and b.read_bytes() == text
    assert not (tmp_path / "kept.pgn").exists()


def test_convert_refuses_an_output_that_is_one_of_several_inputs(tmp_path):
    # It would merge the other inputs into that file, as `convert -o` would
    # on the command line (which refuses it too); alone, a file may be
    # rewritten to itself.
    a, b = tmp_path / "a.pgn", tmp_path / "b.pgn"
    a.write_bytes((SAMPLES / "chess960.pgn").read_bytes())
    b.write_bytes((SAMPLES / "crc.pgn").read_bytes())
    before = a.read_bytes()
    for output in (a, tmp_path / "." / "a.pgn"):
        with pytest.raises(pgnfen.UsageError, match=r"names one of the 2 inputs: the others would be merged"):
            pgnfen.convert(a, b, output=output, to="shredder")
    assert a.read_bytes() == before
    pgnfen.convert(a, output=a, to="shredder")
    assert a.read_bytes() == cli("convert", "--to", "shredder", SAMPLES / "chess960.pgn")


# ---- games ----


def index(path):
    return [json.loads(l) for l in cli("index", path).splitlines()]


@pytest.mark.parametrize("path", FILES, ids=file_id)
def test_games_give_the_file_back_and_agree_with_the_cli(path):
    games = list(pgnfen.games(path, threads=2))
    data = path.read_bytes()
    if games:
        assert b"".join(g.raw for g in games) == data
    else:
        # An input of blank lines holds no game.
        assert data.strip() == b""
    expected = index(path)
    got = [
        {
            "file": g.file,
            "game": g.game,
            "offset": g.offset,
            "length": g.length,
            "line": g.line,
            "class": g.class_,
            "chess960_position": g.chess960_position,
        }
        for g in games
    ]
    assert got == expected
    assert [p for g in games for p in g.problems] == list(pgnfen.check(path, warnings=True))
    for g in games:
        assert len(g.raw) == g.length and data[g.offset : g.offset + g.length] == g.raw


def test_games_of_zst_files_give_the_file_back(zst_dir):
    for path in sorted(zst_dir.iterdir()):
        games = list(pgnfen.games(path))
        name = path.name[: -len(".zst")]
        original = next(f for f in FILES if f.parent.name + "-" + f.name == name)
        assert b"".join(g.raw for g in games) == (original.read_bytes() if games else b""), path


def test_games_of_several_files_number_each_file_from_one():
    a, b = SAMPLES / "standard.pgn", SAMPLES / "chess960.pgn"
    games = list(pgnfen.games(a, pathlib.Path(b)))
    files = [g.file for g in games]
    assert files == sorted(files, key=lambda f: f != str(a))
    assert [g.game for g in games if g.file == str(b)][0] == 1


REAL = real_files()


def quote_inside_value(raw, name):
    """Whether the tag line of `name` holds a value with an unescaped quote
    inside (`[White ""Socrates Expert""]`): such a pair does not close where
    pgnfen's scanner reads it (README, "Decisions where the contract is
    silent"), while python-chess takes everything up to the last quote."""
    for line in raw.decode("utf-8", "replace").splitlines():
        line = line.strip()
        prefix = "[" + name
        if line.startswith(prefix) and line.endswith('"]'):
            inner = line[len(prefix) :].strip()[1:-2]
            if re.search(r'(?<!\\)"', inner.replace("\\\\", "")):
                return True
    return False


@needs_corpus
@pytest.mark.parametrize("path", REAL, ids=file_id)
def test_headers_agree_with_python_chess(path):
    """Pairing: pgnfen cuts the file into games; python-chess reads the headers
    of each game's raw text on its own (decoded as UTF-8 with U+FFFD for bad
    bytes, as pgnfen decodes values with encoding="utf-8"). Where python-chess
    reads a header, the two dicts must be equal, but for a value with an
    unescaped quote inside, and a repeated tag (pgnfen keeps the first value,
    python-chess the last)."""
    compared = 0
    for game in pgnfen.games(path, encoding="utf-8"):
        headers = chess.pgn.read_headers(io.StringIO(game.raw.decode("utf-8", "replace")))
        if headers is None:
            continue
        ours, theirs = game.headers, dict(headers)
        differ = {k for k in ours.keys() | theirs.keys() if ours.get(k) != theirs.get(k)}
        assert all(quote_inside_value(game.raw, k) or repeated(game.raw, k) for k in differ), (
            game.game,
            game.line,
            differ,
        )
        compared += 1
    assert compared > 0


def repeated(raw, name):
    """Whether the tag `name` has more than one pair in the header of `raw`."""
    header = raw.split(b"\n\n", 1)[0]
    return len(re.findall(rb"\[\s*" + re.escape(name.encode()) + rb"\s+\"", header)) > 1


def test_a_repeated_tag_keeps_its_first_value_as_tag_and_export_do(tmp_path):
    path = tmp_path / "a.pgn"
    path.write_bytes(b'[Event "first"]\n[White "x"]\n[Event "second"]\n\n1. e4 *\n')
    (game,) = pgnfen.games(path)
    assert game.headers == {"Event": "first", "White": "x"}
    assert repeated(game.raw, "Event") and not repeated(game.raw, "White")
    # The same value --tag selects on.
    kept = tmp_path / "kept.pgn"
    summary = pgnfen.filter(path, output=kept, tags=["Event=first"])
    assert summary["kept"] == 1


def test_quote_inside_value_is_recognised():
    assert quote_inside_value(b'[White ""Socrates Expert""]\n', "White")
    assert not quote_inside_value(b'[White "A \\"B\\""]\n', "White")
    assert not quote_inside_value(b'[White "plain"]\n', "White")


def test_headers_unescape_and_keep_every_tag(tmp_path):
    path = tmp_path / "a.pgn"
    path.write_bytes(b'[Event "A \\"B\\" \\\\ C"]\n[White "x"] [Black "y"]\n[WhiteElo "2500"]\n\n1. e4 *\n')
    (game,) = pgnfen.games(path)
    assert game.headers == {"Event": 'A "B" \\ C', "White": "x", "Black": "y", "WhiteElo": "2500"}


def test_tags_are_a_read_only_mapping_read_when_asked(tmp_path):
    path = tmp_path / "a.pgn"
    path.write_bytes(b'[Event "first"]\n[White "A \\"B\\""] [Black "y"]\n[Event "second"]\n\n1. e4 *\n')
    (game,) = pgnfen.games(path)
    expected = {"Event": "first", "White": 'A "B"', "Black": "y"}
    # `headers` is a dict, new at each access, as the contract has it.
    assert type(game.headers) is dict and game.headers == expected
    assert game.headers is not game.headers
    tags = game.tags
    # Lookups read the game's bytes until something needs every tag (len),
    # and the dict made then afterwards: both must give the same answers.
    for _ in ("from the bytes", "from the dict"):
        assert tags["Event"] == "first" and tags["White"] == 'A "B"'
        assert tags.get("Round") is None and tags.get("Round", "?") == "?"
        assert "Black" in tags and "Round" not in tags and 1 not in tags
        assert tags.get(1) is None
        for missing in ("Round", 1, "event"):
            with pytest.raises(KeyError) as caught:
                tags[missing]
            assert caught.value.args == (missing,)
        assert len(tags) == 3
    assert list(tags) == list(expected) and list(tags.keys()) == list(expected)
    assert list(tags.values()) == list(expected.values())
    assert list(tags.items()) == list(expected.items())
    assert tags == expected and expected == tags and tags == game.tags
    assert tags == game.headers and tags != {"Event": "first"} and tags != list(expected)
    assert repr(tags) == f"Tags({expected!r})"
    for copy in (game.tags.copy(), tags.copy(), dict(game.tags)):
        assert type(copy) is dict and copy == expected
        copy["Event"] = "changed"
        assert tags["Event"] == "first"
    assert isinstance(tags, collections.abc.Mapping)
    with pytest.raises(TypeError):
        tags["Event"] = "x"
    with pytest.raises(TypeError):
        hash(tags)


def test_games_interoperate_with_python_chess():
    for game in pgnfen.games(SAMPLES / "chess960.pgn"):
        parsed = chess.pgn.read_game(io.StringIO(game.raw.decode()))
        assert parsed is not None and not parsed.errors
        assert parsed.headers.get("FEN") == game.headers.get("FEN")


@pytest.fixture(scope="module")
def big(tmp_path_factory):
    """A PGN file of about 1 GiB (the samples, repeated)."""
    big = tmp_path_factory.mktemp("big") / "big.pgn"
    chunk = (SAMPLES / "mixed.pgn").read_bytes() + b"\n"
    with open(big, "wb") as f:
        block = chunk * max(1, (8 << 20) // len(chunk))
        for _ in range(128):
            f.write(block)
    return big


def test_breaking_out_early_returns_at_once_and_frees_memory(big):
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    started = time.monotonic()
    for n, game in enumerate(pgnfen.games(big)):
        if n == 10:
            break
    elapsed = time.monotonic() - started
    del game
    assert elapsed < 2.0, elapsed
    # The reading stopped: a second early break is just as quick, and memory
    # did not grow with the file (the peak stays far below its size).
    started = time.monotonic()
    games = pgnfen.games(big)
    next(games)
    games.close()
    with pytest.raises(StopIteration):
        next(games)
    assert time.monotonic() - started < 2.0
    grown_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    assert grown_kib < 200 * 1024, grown_kib


def test_the_gil_is_released_while_rust_works(big):
    """While stats() reads the big file on another thread, this thread keeps
    running: no pause as long as the whole call."""
    done = []
    worker = threading.Thread(target=lambda: done.append(pgnfen.stats(big, threads=1)))
    started = last = time.monotonic()
    longest = 0.0
    worker.start()
    while worker.is_alive():
        now = time.monotonic()
        longest, last = max(longest, now - last), now
        time.sleep(0.001)
    total = time.monotonic() - started
    worker.join()
    assert done and done[0]["games"] > 0
    assert total > 0.2, "the file is too small to tell"
    assert longest < total / 3, (longest, total)


def test_the_iterator_is_a_context_manager():
    with pgnfen.games(SAMPLES / "standard.pgn") as games:
        first = next(games)
    assert first.game == 1
    assert list(games) == []
    assert "Game(" in repr(first)


# ---- bad input ----


@pytest.mark.parametrize(
    "call",
    [
        lambda p: pgnfen.stats(p),
        lambda p: pgnfen.check(p),
        lambda p: pgnfen.games(p),
        lambda p: pgnfen.filter(p, output=os.devnull, classes=["standard"]),
        lambda p: pgnfen.convert(p, output=os.devnull, to="fen"),
    ],
    ids=["stats", "check", "games", "filter", "convert"],
)
def test_a_missing_file_is_file_not_found(call, tmp_path):
    missing = tmp_path / "missing.pgn"
    with pytest.raises(FileNotFoundError, match="missing.pgn"):
        call(missing)


def test_bad_arguments_are_value_errors_naming_the_allowed_values(tmp_path):
    path = SAMPLES / "standard.pgn"
    with pytest.raises(ValueError, match="standard, setup, chess960, crc, other, malformed"):
        pgnfen.filter(path, output=tmp_path / "x.pgn", classes=["standrd"])
    with pytest.raises(ValueError, match="fen, xfen, shredder"):
        pgnfen.convert(path, output=tmp_path / "x.pgn", to="lichess")
    with pytest.raises(ValueError, match="as-is, pseudo-legal, legal"):
        pgnfen.convert(path, output=tmp_path / "x.pgn", to="fen", ep="never")
    with pytest.raises(ValueError, match="0-959"):
        pgnfen.filter(path, output=tmp_path / "x.pgn", chess960_positions=[960])
    # Past 64 bits too: a UsageError, not Python's OverflowError.
    for huge in (2**70, -(2**70)):
        with pytest.raises(pgnfen.UsageError, match=f"'{huge}' for chess960_positions: a start position is 0-959"):
            pgnfen.filter(path, output=tmp_path / "x.pgn", chess960_positions=[huge])
    with pytest.raises(ValueError, match="needs classes"):
        pgnfen.filter(path, output=tmp_path / "x.pgn")
    # Positions with classes that leave Chess960 out: in the arguments' names.
    with pytest.raises(pgnfen.UsageError, match=r"^filter\(\): chess960_positions .* but classes does not include chess960$"):
        pgnfen.filter(path, output=tmp_path / "x.pgn", classes=["standard"], chess960_positions=[5])
    # Empty lists select nothing either: the same message, in Python's words.
    for empty in ("classes", "chess960_positions", "tags", "speeds"):
        with pytest.raises(ValueError, match=r"^filter\(\) needs classes"):
            pgnfen.filter(path, output=tmp_path / "x.pgn", **{empty: []})
    with pytest.raises(ValueError, match="same file"):
        pgnfen.filter(path, output=tmp_path / "x.pgn", rest=tmp_path / "x.pgn", classes=["standard"])
    # The selection's mistakes first, as the command line has them.
    with pytest.raises(ValueError, match="needs classes"):
        pgnfen.filter(path, output=tmp_path / "x.pgn", rest=tmp_path / "x.pgn")
    with pytest.raises(ValueError, match="chess960"):
        pgnfen.filter(
            path, output=tmp_path / "x.pgn", rest=tmp_path / "x.pgn", classes=["standard"], chess960_positions=[5]
        )
    with pytest.raises(ValueError, match="speeds"):
        pgnfen.filter(path, output=tmp_path / "x.pgn", rest=tmp_path / "x.pgn", speeds=["fast"])
    with pytest.raises(ValueError, match="threads"):
        pgnfen.stats(path, threads=0)
    # A bool is an int to Python, but not a number of threads or a position.
    with pytest.raises(TypeError, match="threads takes an int, not a bool"):
        pgnfen.stats(path, threads=True)
    with pytest.raises(TypeError, match="chess960_positions takes an int, not a bool"):
        pgnfen.filter(path, output=tmp_path / "x.pgn", chess960_positions=[True])
    # bytes is a sequence of ints too, never meant as positions (b"518").
    for positions, name in ((b"518", "bytes"), (bytearray(b"1"), "bytearray"), (5, "int"), (iter([1]), "list_iterator")):
        with pytest.raises(TypeError) as refused:
            pgnfen.filter(path, output=tmp_path / "x.pgn", chess960_positions=positions)
        assert str(refused.value) == f"argument 'chess960_positions': expected a list of int, not {name}"
    with pytest.raises(TypeError, match="chess960_positions takes an int, not a bool"):
        pgnfen.filter(path, output=tmp_path / "x.pgn", chess960_positions=(1, True))
    # As -j on the command line: at most 1,024 threads.
    with pytest.raises(pgnfen.UsageError, match="at most 1024"):
        pgnfen.stats(path, threads=1025)
    # An output ending pgnfen cannot write is a usage error, as on the command line.
    for kwargs in ({"output": tmp_path / "x.zip"}, {"output": tmp_path / "y.pgn", "rest": tmp_path / "r.7z"}):
        with pytest.raises(pgnfen.UsageError, match="cannot write"):
            pgnfen.filter(path, classes=["standard"], **kwargs)
    with pytest.raises(pgnfen.UsageError, match="cannot write .lz4"):
        pgnfen.split(path, template=tmp_path / "{class}.lz4")
    # A folder given as an input is also Python's IsADirectoryError.
    with pytest.raises(IsADirectoryError) as folder:
        pgnfen.stats(tmp_path)
    assert isinstance(folder.value, pgnfen.InputError)
    assert "Is a directory" in str(folder.value)
    assert folder.value.errno == errno.EISDIR
    # A path through a file, as Python's open gives it: NotADirectoryError.
    with pytest.raises(NotADirectoryError) as through:
        pgnfen.stats(path / "x")
    assert isinstance(through.value, pgnfen.InputError)
    assert through.value.errno == errno.ENOTDIR
    # So is a split template whose folder is a file: no bad argument.
    with pytest.raises(NotADirectoryError) as template:
        pgnfen.split(path, template=path / "{class}.pgn")
    assert isinstance(template.value, pgnfen.InputError)
    assert not isinstance(template.value, ValueError)
    assert template.value.errno == errno.ENOTDIR
    # In the command line's words: which file, and which part is no folder.
    assert str(template.value) == f"split: cannot write {path}/standard.pgn: {path} is not a folder"
    assert template.value.filename == f"{path}/standard.pgn"
    with pytest.raises(ValueError, match="at least one path"):
        pgnfen.stats()
    assert not (tmp_path / "x.pgn").exists()


def test_split_past_the_open_file_limit_says_why(tmp_path):
    # In a child process: the limit is the process's. The function leaves
    # it alone (the command line raises its soft limit when it can).
    program = (
        "import resource, sys, pgnfen\n"
        "resource.setrlimit(resource.RLIMIT_NOFILE, (30, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))\n"
        "try:\n"
        "    pgnfen.split(sys.argv[1], template=sys.argv[2])\n"
        "except OSError as e:\n"
        "    print(e.errno, type(e).__name__, e)\n"
    )
    template = tmp_path / "out" / "{speed}-{class}.pgn"
    done = subprocess.run(
        [sys.executable, "-c", program, str(SAMPLES / "mixed.pgn"), str(template)],
        capture_output=True, text=True, check=True,
    )
    code, kind, message = done.stdout.strip().split(" ", 2)
    assert int(code) == errno.EMFILE, done.stdout
    assert "Too many open files" in message, message
    assert "split opens each of its 42 files" in message, message
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("path", FILES, ids=file_id)
def test_filter_by_tags_equals_the_cli(path, tmp_path):
    tags = ["WhiteElo>=2000", "Result!=1/2-1/2"]
    cli_kept, cli_rest = tmp_path / "cli.pgn", tmp_path / "cli-rest.pgn"
    cli("filter", *[a for t in tags for a in ("--tag", t)], "-o", cli_kept, "--rest", cli_rest, path)
    kept, rest = tmp_path / "kept.pgn", tmp_path / "rest.pgn"
    counts = pgnfen.filter(path, output=kept, rest=rest, tags=tags, threads=2)
    assert kept.read_bytes() == cli_kept.read_bytes()
    assert rest.read_bytes() == cli_rest.read_bytes()
    assert counts["kept"] + counts["rest"] == counts["games"]


def test_a_bad_tag_expression_is_a_value_error(tmp_path):
    with pytest.raises(ValueError, match="WhiteElo>>2500"):
        pgnfen.filter(SAMPLES / "standard.pgn", output=tmp_path / "x.pgn", tags=["WhiteElo>>2500"])
    with pytest.raises(ValueError, match="chess960"):
        pgnfen.filter(SAMPLES / "standard.pgn", output=tmp_path / "x.pgn", classes=["standard"], chess960_positions=[518])
    assert not (tmp_path / "x.pgn").exists()


def test_a_corrupt_zst_is_an_os_error(tmp_path):
    zstandard = pytest.importorskip("zstandard")
    data = zstandard.ZstdCompressor().compress((SAMPLES / "mixed.pgn").read_bytes() * 50)
    bad = tmp_path / "bad.pgn.zst"
    bad.write_bytes(data[: len(data) // 2] + bytes(64) + data[len(data) // 2 :])
    with pytest.raises(OSError, match="bad.pgn.zst"):
        pgnfen.stats(bad)
    with pytest.raises(OSError, match="bad.pgn.zst"):
        for _ in pgnfen.games(bad):
            pass
    out = tmp_path / "out.pgn"
    with pytest.raises(OSError, match="bad.pgn.zst"):
        pgnfen.filter(bad, output=out, classes=["standard"])
    # A failed run leaves no output behind.
    assert not out.exists()
    assert [p.name for p in tmp_path.iterdir()] == ["bad.pgn.zst"]


def test_an_unwritable_output_is_an_os_error(tmp_path):
    with pytest.raises(OSError, match="nowhere"):
        pgnfen.filter(SAMPLES / "standard.pgn", output=tmp_path / "nowhere" / "x.pgn", classes=["standard"])


def test_the_package_documents_itself():
    assert "classes" in pgnfen.filter.__doc__
    assert pgnfen.filter.__text_signature__.startswith("(*paths, output")
    assert "Stream" in pgnfen.games.__doc__
    stubs = pathlib.Path(pgnfen.__file__).with_name("__init__.pyi")
    assert stubs.exists() and stubs.with_name("py.typed").exists()


def _header_read_here(game, latin1):
    """The tags of a game as read here from its bytes (for the simple tag
    lines of the test below: one pair a line), decoded as ``games()`` decodes
    them: the oracle of ``headers``, which pgnfen makes from the last game's
    dict."""

    def text(raw):
        if not latin1:
            try:
                return raw.decode("utf-8")
            except UnicodeDecodeError:
                pass
        return raw.decode("cp1252")

    tags = {}
    for name, value in re.findall(rb'^\[([^ "\]]+) "((?:[^"\\]|\\.)*)"\]$', game.raw, re.M):
        value = re.sub(rb"\\(.)", rb"\1", value)
        tags.setdefault(text(name), text(value))
    return tags


def test_headers_see_one_byte_changed_anywhere_in_a_name_or_value(tmp_path):
    # The last game's dict is used for the next game when their names are the
    # same bytes, and a value is put anew when its bytes differ: names and
    # values of every length up to 40, each followed by the same with one
    # byte changed, at every place in turn (word-wise comparisons must miss
    # none of them).
    games = []
    for n in range(41):
        base = bytes(ord("a") + i % 26 for i in range(n))
        variants = [base] + [base[:i] + b"Z" + base[i + 1 :] for i in range(n)]
        for v in variants:
            games.append(b'[Event "e"]\n[V "' + v + b'"]\n\n*\n\n')
        for v in variants[1:]:
            # The name itself changed in one byte (after the same name, as
            # the last game's), with the value of the game before.
            games.append(b'[Event "e"]\n[V' + base + b' "x"]\n\n*\n\n')
            games.append(b'[Event "e"]\n[V' + v + b' "x"]\n\n*\n\n')
    path = tmp_path / "bytes.pgn"
    path.write_bytes(b"".join(games))
    read = list(pgnfen.games(path))
    assert len(read) == len(games)
    for game, raw in zip(read, games):
        assert game.raw == raw
        name, value = re.search(rb'\[(V[^ ]*) "([^"]*)"\]', raw).groups()
        assert game.headers == {"Event": "e", name.decode(): value.decode()}


def test_headers_made_from_the_last_game_equal_the_tags_read_one_by_one(tmp_path):
    # Random games whose names and values repeat from game to game (so that
    # the last game's dict is used, with some values changed), with escapes,
    # a repeated name now and then, names in another order, and values that
    # are not UTF-8; read by one iterator, and by two taken in turns (in one
    # encoding, or in two, so that the last game read is the other's).
    rng = random.Random(25)
    names = ["Event", "Site", "Date", "White", "Black", "Result", "Na\xefve"]
    values = ["?", "x", "1-0", 'say \\"hi\\"', "back\\\\slash", "caf\xe9", ""]
    games = []
    for _ in range(400):
        if not games or rng.random() < 0.2:
            # (at least one tag: a game without tags would be the movetext of the last)
            shape = rng.sample(names, rng.randint(1, len(names)))
            if rng.random() < 0.2:
                shape.append(rng.choice(shape))
        pairs = [(name, rng.choice(values)) for name in shape]
        latin1 = rng.random() < 0.1
        text = "".join(f'[{n} "{v}"]\n' for n, v in pairs) + "\n1. e4 *\n\n"
        games.append(text.encode("latin-1" if latin1 else "utf-8"))
    path = tmp_path / "random.pgn"
    path.write_bytes(b"".join(games))
    for encodings in (["auto"], ["auto", "auto"], ["auto", "latin-1"]):
        iterators = [pgnfen.games(path, encoding=e) for e in encodings]
        count = 0
        for turn in zip(*iterators):
            for game, encoding in zip(turn, encodings):
                expected = _header_read_here(game, encoding == "latin-1")
                assert game.headers == expected
                assert list(game.headers.items()) == list(expected.items())
            count += 1
        assert count == len(games)
    # Threads reading at once, switching often: each keeps its own last game.
    failures = []

    def read(encoding):
        try:
            for _ in range(3):
                for game in pgnfen.games(path, encoding=encoding):
                    expected = _header_read_here(game, encoding == "latin-1")
                    assert list(game.headers.items()) == list(expected.items())
        except BaseException as e:  # noqa: BLE001 (handed to the main thread)
            failures.append(e)

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)
    try:
        threads = [threading.Thread(target=read, args=(e,)) for e in ("auto", "latin-1", "auto")]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        sys.setswitchinterval(interval)
    assert failures == []


def test_headers_give_each_game_its_own_values(tmp_path):
    # Games that repeat some of the values of the game before and change
    # others (so that each dict is made from the last one's, with the values
    # that differ put in): thousands of distinct short values, values of 16
    # and 17 bytes, escapes and non-ASCII bytes, in headers that sometimes
    # change their names, over more than one chunk of the pipeline, held
    # against a reading of the header lines written here from the PGN rules.
    rng = random.Random(11)
    alphabet = "abcdefghijklmnopqrstuvwxyz0123456789+-./:? "
    many = ["".join(rng.choices(alphabet, k=rng.randint(0, 16))) for _ in range(9000)]
    few = ["1-0", "0-1", "1/2-1/2", "*", "?", "", "180+2", "2500", "x" * 16, "y" * 17]
    odd = ['a\\"b', "c\\\\d", "caf\xe9", "\xd1and\xfa", "1" * 15 + "\\\\"]
    names = ["Event", "Site", "Date", "White", "Black", "Result", "WhiteElo", "ECO"]
    games = []
    while sum(map(len, games)) < 3 << 19:
        shape = names if rng.random() < 0.9 else rng.sample(names, rng.randint(1, len(names)))
        pool = rng.choice([few, many, many, odd])
        lines = "".join(f'[{n} "{rng.choice(pool)}"]\n' for n in shape)
        games.append(f"{lines}\n1. e4 *\n\n".encode())
    path = tmp_path / "values.pgn"
    path.write_bytes(b"".join(games))
    pair = re.compile(rb'\[(\w+) "((?:[^"\\]|\\.)*)"\]')
    expected = [
        [(n.decode(), re.sub(rb"\\(.)", rb"\1", v).decode()) for n, v in pair.findall(game)]
        for game in games
    ]
    assert [list(game.headers.items()) for game in pgnfen.games(path)] == expected
    # The same bytes read as Windows-1252 give the same short values, and the
    # non-ASCII ones as that encoding reads them.
    latin = tmp_path / "latin.pgn"
    latin.write_bytes(b"".join(game.decode().encode("cp1252") for game in games[:2000]))
    got = [list(game.headers.items()) for game in pgnfen.games(latin, encoding="latin-1")]
    assert got == expected[:2000]


def test_headers_and_lookups_agree_whether_or_not_the_tags_are_indexed(tmp_path):
    # `headers` reads each header's pairs itself (from its first line that
    # differs from the game before's); once a tag is looked up in `tags`,
    # the pipeline hands the next batches' games with their pairs found (1
    # MiB chunks: this file has several), and lookups read those. The dicts
    # are the same either way, and every lookup gives the dict's value.
    rng = random.Random(3)
    names = ["Event", "Site", "White", "Black", "Result", "Na\xefve", "TimeControl"]
    values = ["?", "x", "1-0", 'say \\"hi\\"', "back\\\\slash", "caf\xe9", "", "180+2"]
    games = []
    shape = names
    while sum(map(len, games)) < 5 << 20:
        if rng.random() < 0.1:
            shape = rng.sample(names, rng.randint(1, len(names)))
            if rng.random() < 0.2:
                shape.append(rng.choice(shape))
        pairs = "".join(f'[{n} "{rng.choice(values) if rng.random() < 0.3 else values[0]}"]\n' for n in shape)
        games.append(f"{pairs}\n1. e4 e5 {{{'c' * rng.randint(0, 200)}}} *\n\n".encode())
    path = tmp_path / "indexed.pgn"
    path.write_bytes(b"".join(games))
    plain = [list(game.headers.items()) for game in pgnfen.games(path)]
    looked_up = []
    for game in pgnfen.games(path):
        items = list(game.headers.items())
        for name, value in items:
            assert game.tags[name] == value
        looked_up.append(items)
    assert len(plain) == len(games)
    assert looked_up == plain
