"""The package's face (docs/python-api.md): its error classes, split/export/fen_records
against the command line, the docstring examples, and the typing (stubtest
and mypy --strict through .ci/python_types.sh)."""

import doctest
import errno
import gzip
import zlib
import inspect
import json
import os
import pickle
import signal
import subprocess
import sys
import textwrap
import time

import pytest

import pgnfen
import pgnfen._errors
import pgnfen.types
from conftest import CLI, RESTORE_SIGINT, ROOT, SAMPLES, cli, interrupted

PGNS = sorted(str(p) for p in SAMPLES.glob("*.pgn"))
MIXED = str(SAMPLES / "mixed.pgn")


# ---- errors ----


def test_error_classes_are_pgnfen_errors_and_the_builtin_kind():
    assert issubclass(pgnfen.UsageError, pgnfen.Error)
    assert issubclass(pgnfen.UsageError, ValueError)
    assert issubclass(pgnfen.InputError, pgnfen.Error)
    assert issubclass(pgnfen.InputError, OSError)
    assert issubclass(pgnfen.MissingFileError, pgnfen.InputError)
    assert issubclass(pgnfen.MissingFileError, FileNotFoundError)
    assert not issubclass(pgnfen.UsageError, OSError)


@pytest.mark.parametrize(
    "call",
    [
        lambda tmp: pgnfen.stats(MIXED, threads=0),
        # Negative: the same usage error, not Python's OverflowError.
        lambda tmp: pgnfen.stats(MIXED, threads=-1),
        lambda tmp: pgnfen.games(MIXED, threads=-2),
        # Beyond 64 bits too.
        lambda tmp: pgnfen.stats(MIXED, threads=10**30),
        lambda tmp: pgnfen.check(MIXED, threads=-(10**30)),
        lambda tmp: pgnfen.filter(MIXED, output=tmp / "o.pgn", classes=["nope"]),
        lambda tmp: pgnfen.filter(MIXED, output=tmp / "o.pgn", tags=["WhiteElo>>1"]),
        lambda tmp: pgnfen.convert(MIXED, output=tmp / "o.pgn", to="fenn"),
        lambda tmp: pgnfen.split(MIXED, template=tmp / "no-placeholder.pgn"),
        # A word in braces that is no placeholder (a typo of {speed}).
        lambda tmp: pgnfen.split(MIXED, template=tmp / "{Speed}-{class}.pgn"),
        lambda tmp: pgnfen.split(MIXED, template=tmp / "{class}.pgn", classes=["nope"]),
        lambda tmp: pgnfen.export(MIXED, output=tmp / "h.txt"),
        lambda tmp: pgnfen.export(MIXED, output=tmp / "h.csv", format="xml"),
        lambda tmp: pgnfen.export(MIXED, output=tmp / "h.csv", tags=["file"]),
        lambda tmp: pgnfen.fen_records(),
        lambda tmp: pgnfen.scan_stream(MIXED, tags=["file"]),
    ],
)
def test_a_bad_argument_is_a_usage_error_and_a_value_error(call, tmp_path):
    with pytest.raises(pgnfen.UsageError) as e:
        call(tmp_path)
    assert isinstance(e.value, ValueError) and isinstance(e.value, pgnfen.Error)
    # Nothing was written.
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    "call",
    [
        lambda missing, tmp: pgnfen.stats(missing),
        lambda missing, tmp: pgnfen.check(missing),
        lambda missing, tmp: pgnfen.games(missing),
        lambda missing, tmp: pgnfen.filter(missing, output=tmp / "o.pgn", classes=["setup"]),
        lambda missing, tmp: pgnfen.convert(missing, output=tmp / "o.pgn", to="xfen"),
        lambda missing, tmp: pgnfen.split(missing, template=tmp / "{class}.pgn"),
        lambda missing, tmp: pgnfen.export(missing, output=tmp / "h.jsonl"),
        lambda missing, tmp: pgnfen.fen_records(missing),
    ],
)
def test_a_missing_file_is_file_not_found_and_an_input_error(call, tmp_path):
    missing = tmp_path / "nope.pgn"
    with pytest.raises(FileNotFoundError) as e:
        call(missing, tmp_path)
    assert isinstance(e.value, pgnfen.InputError)
    assert isinstance(e.value, pgnfen.MissingFileError)
    assert str(e.value) == f"{missing}: No such file or directory"
    # As Python's own OSError has them.
    assert (e.value.errno, e.value.strerror) == (errno.ENOENT, "No such file or directory")
    assert e.value.filename == str(missing)
    assert list(tmp_path.iterdir()) == []


def test_a_corrupt_input_is_an_input_error_and_an_os_error(tmp_path):
    bad = tmp_path / "bad.pgn.gz"
    bad.write_bytes(gzip.compress(b'[Event "x"]\n\n*\n\n' * 1000)[:-40] + b"\x00" * 40)
    with pytest.raises(pgnfen.InputError) as e:
        pgnfen.stats(bad)
    assert isinstance(e.value, OSError) and not isinstance(e.value, FileNotFoundError)
    assert str(e.value).startswith(f"{bad}: ")
    # Not an error of the operating system: no errno, but the file.
    assert (e.value.errno, e.value.filename) == (None, str(bad))
    book = tmp_path / "bad.fen.gz"
    book.write_bytes(gzip.compress(b"8/8/8/8/8/8/8/K6k w - - 0 1\n" * 1000)[:-40] + b"\x00" * 40)
    with pytest.raises(OSError) as e:
        list(pgnfen.fen_records(book))
    assert isinstance(e.value, pgnfen.InputError)
    with pytest.raises(pgnfen.InputError):
        pgnfen.export(bad, output=tmp_path / "h.jsonl")
    assert not (tmp_path / "h.jsonl").exists()


def test_games_of_a_cut_short_archive_come_before_its_error(tmp_path):
    # A partly downloaded .gz: every game that ends before the cut is yielded,
    # then the error; only the game the cut runs through is not.
    games = b"".join(b'[Event "g%d"]\n[Site "?"]\n\n1. e4 e5 1-0\n\n' % i for i in range(20000))
    whole = gzip.compress(games)
    cut = tmp_path / "cut.pgn.gz"
    cut.write_bytes(whole[: len(whole) // 2])
    readable = zlib.decompressobj(wbits=31).decompress(whole[: len(whole) // 2])
    complete = readable.count(b"\n\n[Event ")
    seen = []
    with pytest.raises(pgnfen.InputError, match="cut.pgn.gz"):
        for game in pgnfen.games(cut):
            seen.append(game.raw)
    # Every game the decoder gave whole (it may keep back its last block).
    joined = b"".join(seen)
    assert complete > 1000 and complete - 100 <= len(seen) <= complete
    assert joined == readable[: len(joined)] and len(readable) - len(joined) < 8 << 10


def test_a_folder_given_as_input_is_an_input_error(tmp_path):
    with pytest.raises(pgnfen.InputError) as e:
        pgnfen.stats(tmp_path)
    assert isinstance(e.value, OSError) and str(tmp_path) in str(e.value)
    assert type(e.value).__module__ == "pgnfen"


def test_the_errors_pickle_by_name():
    """Dask sends a worker's exception to the client pickled."""
    for error in (
        pgnfen.UsageError("bad"),
        pgnfen.InputError("a.pgn: unreadable"),
        pgnfen.MissingFileError("a.pgn: No such file"),
        pgnfen._errors._PermissionError("a.pgn: Permission denied"),
    ):
        back = pickle.loads(pickle.dumps(error))
        assert type(back) is type(error) and str(back) == str(error)
    # An error from a run keeps its message and its OSError attributes.
    with pytest.raises(pgnfen.InputError) as e:
        pgnfen.stats("no/such.pgn")
    back = pickle.loads(pickle.dumps(e.value))
    assert type(back) is pgnfen.MissingFileError and str(back) == str(e.value)
    assert (back.errno, back.strerror, back.filename) == (errno.ENOENT, e.value.strerror, "no/such.pgn")


def test_dask_usage_errors_are_usage_errors():
    pytest.importorskip("dask")
    import pgnfen.dask

    with pytest.raises(pgnfen.UsageError):
        pgnfen.dask.filter([MIXED], "out", client=object())


def test_dask_without_a_client_is_a_usage_error(tmp_path):
    # Without client= and no client started, Dask's own "No clients found"
    # comes as a UsageError (still a ValueError), as the docs promise of
    # every error. In a fresh interpreter: no other test's client is there.
    pytest.importorskip("dask.distributed")
    script = textwrap.dedent(
        f"""
        import pgnfen, pgnfen.dask
        for call in (
            lambda: pgnfen.dask.stats([{str(MIXED)!r}]),
            lambda: pgnfen.dask.read_headers([{str(MIXED)!r}]),
            lambda: pgnfen.dask.filter([{str(MIXED)!r}], "never", ["standard"]),
        ):
            try:
                call()
            except pgnfen.UsageError as e:
                assert isinstance(e, ValueError) and "needs a Dask client" in str(e), e
                assert "\\n" not in str(e), e
            else:
                raise AssertionError("no error")
        print("ok")
        """
    )
    done = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True)
    assert done.stdout == "ok\n", done.stderr
    assert not (tmp_path / "never").exists()


def test_warnings_are_shown_as_pgnfen_names():
    assert pgnfen.InputWarning.__module__ == "pgnfen"
    assert pgnfen.InputWarning is pickle.loads(pickle.dumps(pgnfen.InputWarning))


# ---- split, export, fen_records against the command line ----


def _files(folder):
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"classes": ["chess960", "malformed"]},
        {"tags": ["White!=?"]},
    ],
)
@pytest.mark.parametrize("ending", [".pgn", ".pgn.zst"])
def test_split_writes_the_files_of_the_command_line(options, ending, tmp_path):
    (tmp_path / "cli").mkdir()
    (tmp_path / "py").mkdir()
    args = []
    if "classes" in options:
        args += ["--class", ",".join(options["classes"])]
    for expr in options.get("tags", []):
        args += ["--tag", expr]
    cli("split", "-q", *args, "-o", str(tmp_path / "cli" / ("{class}" + ending)), *PGNS)
    counts = pgnfen.split(*PGNS, template=str(tmp_path / "py" / ("{class}" + ending)), **options)
    assert _files(tmp_path / "py") == _files(tmp_path / "cli")
    assert sorted(os.path.basename(p) for p in counts) == sorted(_files(tmp_path / "py"))
    for path, games in counts.items():
        assert games == pgnfen.stats(path)["games"] > 0


def test_split_returns_counts_per_file_in_class_order(tmp_path):
    counts = pgnfen.split(MIXED, template=tmp_path / "{class}.pgn")
    assert list(counts) == [
        str(tmp_path / f"{c}.pgn")
        for c in ["standard", "setup", "chess960", "crc", "other", "malformed"]
    ]
    assert sum(counts.values()) == pgnfen.stats(MIXED)["games"]


def test_split_names_files_that_are_not_utf8_as_os_fsdecode_does(tmp_path):
    # The keys open the files written: a name's bytes that are not UTF-8 are
    # escaped (surrogateescape), not replaced.
    folder = os.fsencode(tmp_path) + b"/s\xe9"
    counts = pgnfen.split(MIXED, template=folder + b"/{class}.pgn")
    assert list(counts)[0] == os.fsdecode(folder + b"/standard.pgn")
    assert all(os.path.getsize(name) > 0 for name in counts)


@pytest.mark.parametrize("name,format", [("h.jsonl", None), ("h.csv", None), ("h.out", "csv"), ("h.jsonl.gz", None)])
@pytest.mark.parametrize("tags", [None, ["White", "ECO"], "all"])
def test_export_writes_the_table_of_the_command_line(name, format, tags, tmp_path):
    args = []
    if format:
        args += ["--format", format]
    if tags is not None:
        args += ["--tags", tags if isinstance(tags, str) else ",".join(tags)]
    cli("export", "-q", *args, "-o", str(tmp_path / ("cli-" + name)), *PGNS)
    counts = pgnfen.export(*PGNS, output=tmp_path / name, format=format, tags=tags)
    ours, theirs = tmp_path / name, tmp_path / ("cli-" + name)
    if name.endswith(".gz"):
        assert gzip.decompress(ours.read_bytes()) == gzip.decompress(theirs.read_bytes())
    else:
        assert ours.read_bytes() == theirs.read_bytes()
    games = pgnfen.stats(*PGNS)["games"]
    assert counts == {"games": games, "rows": games, "dropped_pairs": 0, "games_with_dropped_pairs": 0}


def test_export_parquet_holds_the_rows_of_the_command_line(tmp_path):
    pq = pytest.importorskip("pyarrow.parquet")
    cli("export", "-q", "-o", str(tmp_path / "cli.parquet"), *PGNS)
    counts = pgnfen.export(*PGNS, output=str(tmp_path / "h.parquet"))
    assert pq.read_table(tmp_path / "h.parquet").equals(pq.read_table(tmp_path / "cli.parquet"))
    assert counts["rows"] == pq.read_table(tmp_path / "h.parquet").num_rows


def _cli_records(*paths, options=()):
    out = subprocess.run(
        [str(CLI), "fen", "--format", "json", *options, *map(str, paths)], capture_output=True, check=False
    )
    assert out.returncode in (0, 1), out.stderr.decode()
    return [json.loads(line) for line in out.stdout.splitlines()]


def test_fen_records_are_the_objects_of_the_command_line():
    book = SAMPLES / "positions.fen"
    records = list(pgnfen.fen_records(book))
    assert records == _cli_records(book)
    assert len(records) > 0
    # Each is what fen() says of its line.
    for r in records:
        assert (r.pop("file"), type(r.pop("line"))) == (str(book), int)
    assert all(r == pgnfen.fen(r["input"]) for r in records if r["operations"] is None)


@pytest.mark.parametrize("ep", ["as-is", "pseudo-legal", "legal"])
def test_fen_records_and_fen_take_ep_as_the_command_line(ep, tmp_path):
    book = tmp_path / "ep.fen"
    book.write_text(
        "rnbqkbnr/pppp1ppp/8/8/3pP3/8/PPP2PPP/RNBQKBNR b KQkq e3 0 1\n"
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1\n"
        "8/8/8/8/k2pP2R/8/8/4K3 b - e3 0 1\n"
    )
    records = list(pgnfen.fen_records(book, ep=ep))
    assert records == _cli_records(book, options=["--ep", ep])
    for r in records:
        del r["file"], r["line"]
        assert r == pgnfen.fen(r["input"], ep=ep)
    # Without ep, each dialect keeps its own policy.
    assert [r["xfen"] for r in pgnfen.fen_records(book)] != [r["xfen"] for r in records] or ep == "pseudo-legal"
    with pytest.raises(pgnfen.UsageError, match="possible values"):
        pgnfen.fen_records(book, ep="sometimes")


def test_fen_records_of_books_with_comments_line_ends_epd_and_a_line_too_long(tmp_path):
    book = tmp_path / "book.epd"
    book.write_bytes(
        b"# comment\r\n\r\n"
        b"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - bm e4; id \"start\";\r\n"
        b"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -\r"
        + b"x" * (3 << 20)
        + b"\nnot a fen\n\t\n"
        b"rn2k1r1/ppp1pp1p/3p2p1/5bn1/P7/2N2B2/1PPPPP2/2BNK1RR w Gkq - 4 11"
    )
    zst = tmp_path / "positions.fen.gz"
    zst.write_bytes(gzip.compress((SAMPLES / "positions.fen").read_bytes()))
    records = list(pgnfen.fen_records(book, zst, threads=2))
    assert records == _cli_records(book, zst)
    assert [r["class"] for r in records[:4]] == ["standard", "standard", "malformed", "malformed"]
    assert records[2]["input"] is None and records[2]["problems"][0]["code"] == "fen-syntax"
    assert records[0]["operations"] == 'bm e4; id "start";'


def test_fen_records_of_a_book_that_begins_with_a_byte_order_mark(tmp_path):
    # As Notepad saves it: the mark is no part of the first record.
    book = tmp_path / "notepad.epd"
    book.write_bytes(b"\xef\xbb\xbfrnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\r\n")
    (record,) = pgnfen.fen_records(book)
    assert record["valid"] and record["problems"] == []
    assert record["input"] == "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
    assert [record] == _cli_records(book)


def test_fen_records_is_lazy_and_stops_when_left(tmp_path):
    # Many runs of records: more than the queue holds.
    book = tmp_path / "big.fen"
    book.write_bytes(b"8/8/8/8/8/8/8/K6k w - - 0 1\n" * 200_000)
    records = pgnfen.fen_records(book)
    assert next(records)["class"] == "setup"
    records.close()
    assert list(records) == []
    with pgnfen.fen_records(book) as records:
        for i, _ in enumerate(records):
            if i == 10:
                break
    assert sum(1 for _ in pgnfen.fen_records(book)) == 200_000


# ---- Ctrl-C into the new calls ----

CHILD = RESTORE_SIGINT + textwrap.dedent(
    """
    import os, sys, threading
    import pgnfen
    fifo, call, out = sys.argv[1:4]
    block = bytes.fromhex(sys.argv[4]) * 4000

    def feed():
        fd = os.open(fifo, os.O_WRONLY)
        try:
            while True:
                os.write(fd, block)
        except OSError:
            pass

    threading.Thread(target=feed, daemon=True).start()
    print("started", flush=True)
    try:
        if call == "split":
            pgnfen.split(fifo, template=out + "-{class}.pgn")
        elif call == "export":
            pgnfen.export(fifo, output=out + ".jsonl")
        elif call == "fen_records":
            for _ in pgnfen.fen_records(fifo):
                pass
    except KeyboardInterrupt:
        sys.exit(42)
    sys.exit(1)
    """
)

GAME = b'[Event "e"]\n[SetUp "1"]\n[FEN "8/8/8/8/8/8/8/K6k w - - 0 1"]\n\n*\n\n'


@pytest.mark.parametrize("call", ["split", "export", "fen_records"])
def test_sigint_stops_split_export_and_fen_records(call, tmp_path):
    fifo = tmp_path / "input"
    os.mkfifo(fifo)
    out = tmp_path / "out"
    existing = {"split": "out-setup.pgn", "export": "out.jsonl", "fen_records": "out"}[call]
    (tmp_path / existing).write_bytes(b"an existing output\n")
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    data = b"8/8/8/8/8/8/8/K6k w - - 0 1\n" if call == "fen_records" else GAME
    child = subprocess.Popen(
        [sys.executable, str(script), str(fifo), call, str(out), data.hex()],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    code, elapsed = interrupted(child, after=0.3)
    assert code == 42, child.stderr.read().decode()
    assert elapsed < 1.0, elapsed
    assert (tmp_path / existing).read_bytes() == b"an existing output\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["child.py", "input", existing])


# ---- docstrings: every public function has an example, and it runs ----


def _public_functions():
    return [
        (name, getattr(pgnfen, name))
        for name in pgnfen.__all__
        if inspect.isroutine(getattr(pgnfen, name))
    ]


@pytest.mark.parametrize("name,function", _public_functions(), ids=lambda v: v if isinstance(v, str) else "")
def test_docstring_examples_run(name, function, monkeypatch):
    if name == "scan":
        pytest.importorskip("pyarrow")
    # The examples read samples/ relative to the repository.
    monkeypatch.chdir(ROOT)
    test = doctest.DocTestParser().get_doctest(
        function.__doc__ or "", {"pgnfen": pgnfen}, f"pgnfen.{name}", None, 0
    )
    assert test.examples, f"pgnfen.{name} has no example in its docstring"
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test)
    assert runner.failures == 0, f"pgnfen.{name}: {runner.failures} example(s) failed (see above)"


def test_module_docstring_examples_run(monkeypatch):
    monkeypatch.chdir(ROOT)
    result = doctest.testmod(pgnfen.types, extraglobs={"pgnfen": pgnfen})
    assert result.attempted > 0 and result.failed == 0


# ---- typing: stubtest and mypy --strict ----


def test_stubs_agree_with_the_module_and_type_the_examples():
    script = ROOT / ".ci" / "python_types.sh"
    out = subprocess.run(
        ["bash", str(script)],
        env={**os.environ, "PYTHON": sys.executable},
        capture_output=True,
        text=True,
        check=False,
    )
    assert out.returncode == 0, out.stdout + out.stderr


def test_fen_records_of_a_zip_name_each_member_as_the_command_line(tmp_path):
    import zipfile

    book = tmp_path / "two.zip"
    with zipfile.ZipFile(book, "w") as z:
        z.writestr("m1.epd", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -\n")
        z.writestr("m2.epd", "\n8/8/8/8/8/8/8/K6k w - -\n")
    expected = [json.loads(line) for line in cli("fen", "--format", "json", book).splitlines()]
    got = list(pgnfen.fen_records(book))
    assert got == expected
    assert [(r["file"], r["line"]) for r in got] == [(f"{book}:m1.epd", 1), (f"{book}:m2.epd", 2)]


def test_a_list_argument_given_one_str_or_other_items_is_a_type_error(tmp_path):
    # One str where a list is wanted is the likeliest slip: a TypeError that
    # says what to write (not PyO3's "Can't extract `str` to `Vec`", nor a
    # UsageError, which is for a bad value).
    mixed = SAMPLES / "mixed.pgn"
    calls = [
        (lambda: pgnfen.stats(mixed, tags="WhiteElo>=2500"), "['WhiteElo>=2500']"),
        (lambda: pgnfen.stats(mixed, speeds="blitz"), "['blitz']"),
        (lambda: pgnfen.filter(mixed, output=tmp_path / "o.pgn", classes="chess960"), "['chess960']"),
        (lambda: pgnfen.split(mixed, template=tmp_path / "{class}.pgn", classes="crc"), "['crc']"),
    ]
    for call, hint in calls:
        with pytest.raises(TypeError, match="not one str") as caught:
            call()
        assert hint in str(caught.value)
    with pytest.raises(TypeError, match="a list holding int"):
        pgnfen.filter(mixed, output=tmp_path / "o.pgn", classes=["chess960", 1])
    with pytest.raises(TypeError, match="not int"):
        pgnfen.stats(mixed, tags=5)
    # An endless iterator is refused by its type, not iterated for ever.
    import itertools

    with pytest.raises(TypeError, match="not repeat"):
        pgnfen.stats(mixed, speeds=itertools.repeat("rapid"))
    with pytest.raises(TypeError, match="list of tag names"):
        pgnfen.scan_stream(mixed, tags=123)
    # A tuple is a list of names as well.
    counted = pgnfen.stats(mixed, speeds=("blitz",))
    assert counted["games"] + counted["unmatched"] == pgnfen.stats(mixed)["games"]
    assert counted == pgnfen.stats(mixed, speeds=["blitz"])
    assert not list(tmp_path.iterdir())


def test_a_list_of_paths_in_one_argument_says_to_unpack_it():
    with pytest.raises(TypeError, match=r"stats\(\*paths\)"):
        pgnfen.stats([MIXED, MIXED])
    with pytest.raises(TypeError, match=r"games\(\*paths\)"):
        pgnfen.games((MIXED,))
    assert pgnfen.stats(*[MIXED, MIXED])["games"] == 2 * pgnfen.stats(MIXED)["games"]


# Games whose speeds and values tell the selections apart, with values a
# spreadsheet would run as formulas (neutralised in CSV unless csv_raw).
SELECTABLE = b"".join(
    b'[Event "%s"]\n[White "%s"]\n[Black "B"]\n[Result "%s"]\n[WhiteElo "%d"]\n'
    b'[TimeControl "%s"]\n\n1. e4 e5 %s\n\n' % (event, white, result, elo, tc, result)
    for event, white, result, elo, tc in [
        (b"=1+2", b"@SUM(A1)", b"1-0", 2600, b"180+2"),
        (b"Open", b"-Carlsen", b"0-1", 2400, b"600"),
        (b"+Blitz", b"Tal", b"1/2-1/2", 2700, b"60"),
        (b"Club", b"Petrosian", b"1-0", 1900, b"-"),
        (b"Club", b"Smyslov", b"*", 2500, b"?"),
    ]
)


@pytest.mark.parametrize(
    "where,speeds,csv_raw",
    [
        (["WhiteElo>=2500"], None, False),
        (None, ["blitz", "bullet"], False),
        (["Result!=1-0", "Event~^[+=C]"], ["bullet", "unknown", "correspondence"], False),
        (None, None, True),
        (["White~^[-@]"], ["rapid", "blitz"], True),
        ([], [], False),
    ],
)
def test_export_selects_and_writes_raw_csv_as_the_command_line_does(where, speeds, csv_raw, tmp_path):
    pgn = tmp_path / "select.pgn"
    pgn.write_bytes(SELECTABLE)
    args = [a for expr in where or [] for a in ("--tag", expr)]
    if speeds:
        args += ["--speed", ",".join(speeds)]
    if csv_raw:
        args.append("--csv-raw")
    cli("export", *args, "-o", tmp_path / "cli.csv", pgn)
    counts = pgnfen.export(pgn, output=tmp_path / "py.csv", where=where, speeds=speeds, csv_raw=csv_raw)
    expected = (tmp_path / "cli.csv").read_bytes()
    assert (tmp_path / "py.csv").read_bytes() == expected
    assert counts["games"] == 5
    assert counts["rows"] == len(expected.splitlines()) - 1
    # The first game's formula-like cells, as they are or neutralised.
    first = b"SUM(A1)" in expected
    assert (b",=1+2,,,,@SUM(A1)," in expected) == (first and csv_raw)
    assert (b",'=1+2,,,,'@SUM(A1)," in expected) == (first and not csv_raw)
    # scan() keeps the same rows.
    rows = pgnfen.scan(pgn, where=where, speeds=speeds).read_all()
    assert rows.num_rows == counts["rows"]


def test_export_and_scan_selections_refuse_bad_arguments(tmp_path):
    out = tmp_path / "h.csv"
    with pytest.raises(pgnfen.UsageError, match="speeds"):
        pgnfen.export(MIXED, output=out, speeds=["slow"])
    with pytest.raises(pgnfen.UsageError, match="invalid tag expression"):
        pgnfen.scan(MIXED, where=["White?"])
    with pytest.raises(TypeError, match="argument 'where': expected a list of str, not one str"):
        pgnfen.scan(MIXED, where="White=x")
    with pytest.raises(TypeError, match="argument 'where'"):
        pgnfen.export(MIXED, output=out, where=[3])
    # More tag names than one run can look for: refused, not silently unmatched.
    many = [f"Tag{i}=x" for i in range(65)]
    with pytest.raises(pgnfen.UsageError, match="65 different tags; at most 64") as refused:
        pgnfen.export(MIXED, output=out, where=many)
    # In the words of Python's arguments, not the command line's flags.
    assert "--tag" not in str(refused.value)
    with pytest.raises(pgnfen.UsageError, match="at most 64"):
        pgnfen.scan(MIXED, where=many)
    with pytest.raises(pgnfen.UsageError, match="at most 64") as refused:
        pgnfen.stats(MIXED, tags=many[:64], speeds=["blitz"])
    assert str(refused.value) == (
        "the tag expressions name 65 different tags (with TimeControl, which speeds are read from); "
        "at most 64 can be used in one call"
    )
    with pytest.raises(pgnfen.UsageError) as refused:
        pgnfen.split(MIXED, template=tmp_path / "all.pgn")
    assert "template=" in str(refused.value) and "-o '" not in str(refused.value)
    with pytest.raises(pgnfen.UsageError, match=r"closing brace is missing\); write e\.g\. template="):
        pgnfen.split(MIXED, template=tmp_path / "{class.pgn")
    assert not out.exists()


def test_export_to_a_device_writes_json_lines(tmp_path):
    # A device has no ending to tell the format by: JSON lines, as the
    # command line writes them there. A file without an ending is refused.
    counts = pgnfen.export(MIXED, output="/dev/null")
    assert counts["games"] > 0
    with pytest.raises(pgnfen.UsageError, match="cannot tell the format"):
        pgnfen.export(MIXED, output=tmp_path / "h")


def test_an_output_in_a_missing_folder_names_the_folder(tmp_path):
    out = tmp_path / "nodir" / "x.pgn"
    with pytest.raises(pgnfen.MissingFileError) as e:
        pgnfen.filter(MIXED, output=out, classes=["standard"])
    assert str(e.value) == f"{out}: the folder {out.parent} does not exist"
    assert (e.value.errno, e.value.filename) == (errno.ENOENT, str(out))
    assert not out.parent.exists()
