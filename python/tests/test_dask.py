"""pgnfen.dask on a LocalCluster of 2 workers: the same results as one machine,
on a folder of several files and on zstd files of many frames, whatever the
partition size (down to a few KiB, so that boundaries fall inside headers,
comments and CRLF pairs)."""

import errno
import os
import signal

import pytest

import pgnfen

from conftest import SAMPLES, corpus_files, real_files

distributed = pytest.importorskip("dask.distributed")
pytest.importorskip("dask.dataframe")
pa = pytest.importorskip("pyarrow")
zstandard = pytest.importorskip("zstandard")
pd = pytest.importorskip("pandas")

import pgnfen.dask  # noqa: E402  (after the skips: needs dask)

SIZES = [3 << 10, 61 << 10, 1 << 20]


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster, distributed.Client(cluster) as client:
        yield client


def tricky(tmp_path):
    """Games whose comments hold blank lines and [Event lines, CRLF line ends."""
    parts = []
    for i in range(40):
        parts.append(f'[Event "g{i}"]\r\n[Site "?"]\r\n\r\n1. e4 {{')
        if i % 3 == 0:
            parts += [f'\r\n\r\n[Event "not a game {j}"]\r\n\r\nmore words ' for j in range(30)]
        parts.append("} e5 1-0\r\n\r\n")
    path = tmp_path / "tricky.pgn"
    path.write_text("".join(parts))
    return path


def frames(path, out, frame=5 << 10):
    """`path` as zstd frames of `frame` bytes, each announced as pzstd does."""
    data = path.read_bytes()
    cctx = zstandard.ZstdCompressor(level=1, write_content_size=False)
    blob = bytearray()
    for i in range(0, max(len(data), 1), frame):
        f = cctx.compress(data[i : i + frame])
        # pzstd's skippable frame: magic 0x184D2A50, size 4, the frame's size.
        blob += (0x184D2A50).to_bytes(4, "little") + (4).to_bytes(4, "little") + len(f).to_bytes(4, "little")
        blob += f
    out.write_bytes(bytes(blob))
    return out


def inputs(tmp_path):
    files = (real_files() or corpus_files())[:6] + [tricky(tmp_path)]
    zst = [frames(p, tmp_path / (p.name + ".zst")) for p in files[-3:]]
    return files, zst


def comparable(frame):
    """Rows as plain lists (lists and maps made comparable)."""
    return pa.Table.from_pandas(frame, preserve_index=False).to_pylist()


@pytest.mark.parametrize("size", SIZES)
def test_stats_equal_one_machine(client, tmp_path, size):
    files, zst = inputs(tmp_path)
    for paths in (files, zst):
        assert pgnfen.dask.stats(paths, client=client, partition_size=size) == pgnfen.stats(*paths)


@pytest.mark.parametrize(
    "tags,speeds",
    [
        (["Result=1-0"], None),
        (None, ["unknown", "blitz"]),
        (["White~^[A-M]", "Result!=*"], ["unknown"]),
        (["Event=none such"], None),
        ([], []),
    ],
)
def test_stats_of_a_selection_equal_one_machine(client, tmp_path, tags, speeds):
    """`tags` and `speeds` as `pgnfen.stats` takes them: the games that match
    are counted, the others in `unmatched`; empty lists select nothing."""
    files, zst = inputs(tmp_path)
    for paths in (files, zst):
        expected = pgnfen.stats(*paths, tags=tags, speeds=speeds)
        got = pgnfen.dask.stats(paths, client=client, partition_size=7 << 10, tags=tags, speeds=speeds)
        assert got == expected
        assert list(got) == list(expected)
        if tags or speeds:
            assert "unmatched" in got
            if tags == ["Result=1-0"]:
                assert 0 < got["games"] and 0 < got["unmatched"]
        else:
            assert "unmatched" not in got


def moves_file(tmp_path):
    """Games whose movetext crosses partitions of a few KiB (long comments
    holding blank lines and [Event lines), some from a FEN their first move
    does not fit, some with an illegal move late in the game."""
    parts = []
    for i in range(60):
        if i % 4 == 1:
            # A final position given as the start: 1. e4 cannot be played.
            parts.append('[Event "f%d"]\n[SetUp "1"]\n[FEN "8/8/8/4k3/8/8/8/4K2R w K - 0 60"]\n\n' % i)
        else:
            parts.append('[Event "g%d"]\n\n' % i)
        comment = "".join(f"\n\n[Event \"not a game {j}\"]\n\nwords {j} " for j in range(i % 5 * 20))
        late = "Qxh7" if i % 7 == 3 else "Nxe5"  # the queen cannot reach h7
        parts.append(f"1. e4 {{{comment}}} e5 2. Nf3 Nc6 3. Bb5 a6 4. Bxc6 dxc6 5. {late} *\n\n")
    path = tmp_path / "moves.pgn"
    path.write_text("".join(parts))
    return path


@pytest.mark.parametrize("moves", ["first", "all"])
def test_stats_and_filter_with_moves_equal_one_machine(client, tmp_path, moves):
    """`moves` as `pgnfen.stats`/`pgnfen.filter` take it: the same counts,
    and the part files concatenate to one machine's output, whatever the
    partitions (a game's movetext read past its partition's end)."""
    path = moves_file(tmp_path)
    zst = frames(path, tmp_path / "moves.pgn.zst", frame=3 << 10)
    expected = pgnfen.stats(path, moves=moves)
    assert expected["moves"]["illegal"] > 0 and expected["moves"]["checked"] > expected["moves"]["illegal"]
    for paths in ([path], [zst], [path, zst]):
        assert pgnfen.dask.stats(paths, client=client, partition_size=3 << 10, moves=moves) == pgnfen.stats(
            *paths, moves=moves
        )
        tagged = pgnfen.dask.stats(
            paths, client=client, partition_size=3 << 10, moves=moves, tags=["Event~^g"]
        )
        assert tagged == pgnfen.stats(*paths, moves=moves, tags=["Event~^g"])
        for k, classes in enumerate((None, ["setup"])):
            out = pgnfen.dask.filter(
                paths, tmp_path / f"out-{moves}-{len(paths)}-{k}", classes=classes, client=client,
                partition_size=3 << 10, moves=moves,
            )
            ref = tmp_path / "ref.pgn"
            summary = pgnfen.filter(*paths, output=ref, classes=classes, moves=moves)
            assert summary["kept"] < summary["games"]
            assert classes or summary["kept"] > 0
            assert b"".join(open(p, "rb").read() for p in out) == ref.read_bytes()


def test_moves_are_checked_on_the_client(client, tmp_path):
    path = moves_file(tmp_path)
    with pytest.raises(pgnfen.UsageError, match="moves"):
        pgnfen.dask.stats([path], client=client, moves="some")
    with pytest.raises(pgnfen.UsageError, match="moves"):
        pgnfen.dask.filter([path], tmp_path / "out", client=client, moves="some")
    with pytest.raises(TypeError, match="moves"):
        pgnfen.dask.stats([path], client=client, moves=True)
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("size", SIZES)
def test_filter_outputs_concatenate_to_pgnfen_filter(client, tmp_path, size):
    files, zst = inputs(tmp_path)
    for k, paths in enumerate((files, zst)):
        for classes in (["standard"], ["chess960", "setup", "other"]):
            out = pgnfen.dask.filter(
                paths, tmp_path / f"out{k}{classes[0]}", classes=classes, client=client, partition_size=size
            )
            ref = tmp_path / "ref.pgn"
            pgnfen.filter(*paths, output=ref, classes=classes)
            assert b"".join(open(p, "rb").read() for p in out) == ref.read_bytes()
            assert out == sorted(out)


def test_filter_by_speeds_and_chess960_positions_as_on_one_machine(client, tmp_path):
    clocks = ["60+0", "180+2", "600+5", "5400+30", "-", "?", None]
    games = tmp_path / "clocks.pgn"
    with open(games, "w") as f:
        for i in range(300):
            clock = clocks[i % len(clocks)]
            f.write(f'[Event "e{i}"]\n')
            if clock is not None:
                f.write(f'[TimeControl "{clock}"]\n')
            f.write("\n1. e4 e5 *\n\n")
    paths = [games, SAMPLES / "chess960.pgn", SAMPLES / "mixed.pgn"]
    for k, selection in enumerate(
        (
            {"speeds": ["blitz", "unknown"]},
            {"speeds": ["rapid"], "classes": ["standard"]},
            {"chess960_positions": [0, 325]},
            {"chess960_positions": [325], "speeds": ["unknown"]},
        )
    ):
        out = pgnfen.dask.filter(paths, tmp_path / f"out{k}", client=client, partition_size=2 << 10, **selection)
        ref = tmp_path / f"ref{k}.pgn"
        summary = pgnfen.filter(*paths, output=ref, **selection)
        assert summary["kept"] > 0, selection
        assert b"".join(open(p, "rb").read() for p in out) == ref.read_bytes(), selection
    with pytest.raises(pgnfen.UsageError, match="speeds"):
        pgnfen.dask.filter(paths, tmp_path / "bad", speeds=["blitzz"], client=client)
    with pytest.raises(pgnfen.UsageError, match="0-959"):
        pgnfen.dask.filter(paths, tmp_path / "bad", chess960_positions=[960], client=client)
    with pytest.raises(pgnfen.UsageError, match="but classes does not include chess960"):
        pgnfen.dask.filter(paths, tmp_path / "bad", classes=["setup"], chess960_positions=[5], client=client)
    with pytest.raises(TypeError, match="speeds"):
        pgnfen.dask.filter(paths, tmp_path / "bad", speeds="blitz", client=client)
    with pytest.raises(pgnfen.UsageError, match="needs"):
        pgnfen.dask.filter(paths, tmp_path / "bad", classes=[], speeds=[], client=client)
    assert not (tmp_path / "bad").exists()
    # Lengths, not truth values, as pgnfen.filter has them (numpy arrays).
    np = pytest.importorskip("numpy")
    out = pgnfen.dask.filter(paths, tmp_path / "np", chess960_positions=np.array([0, 325]), client=client)
    pgnfen.filter(*paths, output=tmp_path / "np.pgn", chess960_positions=np.array([0, 325]))
    assert b"".join(open(p, "rb").read() for p in out) == (tmp_path / "np.pgn").read_bytes()


@pytest.mark.parametrize("size", [7 << 10, 1 << 20])
def test_read_headers_equals_the_rows_of_export(client, tmp_path, size):
    files, zst = inputs(tmp_path)
    for paths in (files, zst):
        frame = pgnfen.dask.read_headers(paths, client=client, partition_size=size).compute()
        expected = pgnfen.scan(*paths).read_all().to_pandas(types_mapper=pd.ArrowDtype)
        assert list(frame.columns) == list(expected.columns)
        assert comparable(frame.reset_index(drop=True)) == comparable(expected)


@pytest.mark.parametrize(
    "where,speeds",
    [
        (["Result=1-0"], None),
        (["Result!=1-0"], ["unknown"]),
        (["White~^[A-M]", "Result!=*"], ["unknown", "blitz"]),
        (["Event=none such"], None),
    ],
)
def test_read_headers_selects_the_rows_of_scan(client, tmp_path, where, speeds):
    files, zst = inputs(tmp_path)
    for paths in (files, zst):
        frame = pgnfen.dask.read_headers(
            paths, client=client, partition_size=7 << 10, where=where, speeds=speeds
        ).compute()
        expected = pgnfen.scan(*paths, where=where, speeds=speeds).read_all()
        if paths is files:
            # A selection: some games but not all (none for the last).
            games = pgnfen.stats(*paths)["games"]
            assert (0 if where == ["Event=none such"] else 1) <= expected.num_rows < games
        expected = expected.to_pandas(types_mapper=pd.ArrowDtype)
        assert len(frame) == len(expected)
        assert comparable(frame.reset_index(drop=True)) == comparable(expected)


@pytest.mark.parametrize("call,expressions", [("read_headers", "where"), ("stats", "tags")])
def test_the_selection_is_checked_on_the_client(client, tmp_path, call, expressions):
    """A bad selection of `read_headers` (`where=`) or `stats` (`tags=`) is
    refused before any work, as on one machine."""
    files, _ = inputs(tmp_path)
    run = getattr(pgnfen.dask, call)
    with pytest.raises(pgnfen.UsageError, match="invalid tag expression"):
        run(files, client=client, **{expressions: ["White?"]})
    with pytest.raises(pgnfen.UsageError, match="speeds"):
        run(files, client=client, speeds=["slow"])
    with pytest.raises(TypeError, match=f"argument '{expressions}'"):
        run(files, client=client, **{expressions: "White=x"})
    with pytest.raises(pgnfen.UsageError, match="at most 64"):
        run(files, client=client, **{expressions: [f"Tag{i}=x" for i in range(65)]})


@pytest.mark.parametrize("encoding", [None, "auto", "utf-8", "latin-1"])
def test_read_headers_decodes_as_scan_does(client, tmp_path, encoding):
    """Windows-1252 names beside UTF-8 ones, and a Latin-1 value that happens
    to be valid UTF-8 (\xc3\xa9): each encoding reads them as `scan` does,
    in a file cut into partitions inside the games."""
    games = []
    for i in range(60):
        white = ["R\xe9ti, Richard", "Caf\xc3\xa9", "Nimzowitsch"][i % 3].encode("latin-1")
        games.append(b'[Event "g%d"]\n[White "' % i + white + b'"]\n[Black "?"]\n\n1. e4 e5 *\n\n')
    path = tmp_path / "latin.pgn"
    path.write_bytes(b"".join(games))
    frame = pgnfen.dask.read_headers([path], client=client, partition_size=3 << 10, encoding=encoding)
    assert frame.npartitions > 1
    frame = frame.compute()
    expected = pgnfen.scan(path, encoding=encoding).read_all().to_pandas(types_mapper=pd.ArrowDtype)
    assert comparable(frame.reset_index(drop=True)) == comparable(expected)
    # The choice shows: `auto` reads the valid UTF-8 as UTF-8, `latin-1` as two letters.
    whites = set(frame["White"])
    if encoding == "latin-1":
        assert {"R\xe9ti, Richard", "Caf\xc3\xa9"} <= whites
    elif encoding == "utf-8":
        assert {"R\ufffdti, Richard", "Caf\xe9"} <= whites
    else:
        assert {"R\xe9ti, Richard", "Caf\xe9"} <= whites


def test_read_headers_refuses_an_unknown_encoding_on_the_client(client, tmp_path):
    files, _ = inputs(tmp_path)
    with pytest.raises(pgnfen.UsageError, match="encoding"):
        pgnfen.dask.read_headers(files, client=client, encoding="ebcdic")


def test_a_zip_of_several_members_as_on_one_machine(client, tmp_path):
    """Each member its own input (its name, its game numbers), as `export` has it."""
    import zipfile

    archive = tmp_path / "two.zip"
    with zipfile.ZipFile(archive, "w") as z:
        for m in ("m1.pgn", "m2.pgn"):
            # The second member's last game has no newline after its result.
            z.writestr(m, "".join(f'[Event "{m} {i}"]\n\n1. e4 e5 *\n\n' for i in range(3)).rstrip())
    paths = [archive, tricky(tmp_path)]
    frame = pgnfen.dask.read_headers(paths, client=client, partition_size=3 << 10).compute()
    expected = pgnfen.scan(*paths).read_all().to_pandas(types_mapper=pd.ArrowDtype)
    assert comparable(frame.reset_index(drop=True)) == comparable(expected)
    assert list(frame["file"][:6]) == [f"{archive}:m1.pgn"] * 3 + [f"{archive}:m2.pgn"] * 3
    assert list(frame["game"][:6]) == [1, 2, 3, 1, 2, 3]
    assert pgnfen.dask.stats(paths, client=client) == pgnfen.stats(*paths)
    out = pgnfen.dask.filter(paths, tmp_path / "out", classes=["standard"], client=client)
    ref = tmp_path / "ref.pgn"
    pgnfen.filter(*paths, output=ref, classes=["standard"])
    assert b"".join(open(p, "rb").read() for p in out) == ref.read_bytes()


@pytest.mark.parametrize("size", [3 << 10, 1 << 20])
def test_files_without_a_final_line_end_keep_their_games_apart(client, tmp_path, size):
    """A file whose last game has no line end after it, followed by another
    file: pgnfen.filter writes a line end between them, and so do the Dask
    parts (plain files, zstd frames, a zip whose members lack it)."""
    import zipfile

    games = "".join(f'[Event "g{i}"]\n[Site "?"]\n\n1. e4 e5 *\n\n' for i in range(60)).rstrip()
    plain = []
    for name in ("a.pgn", "b.pgn", "c.pgn"):
        plain.append(tmp_path / name)
        plain[-1].write_text(games)
    zst = [frames(p, tmp_path / (p.name + ".zst"), frame=1 << 10) for p in plain]
    archive = tmp_path / "members.zip"
    with zipfile.ZipFile(archive, "w") as z:
        for m in ("m1.pgn", "m2.pgn"):
            z.writestr(m, games)
    # Header-only games whose files end `]\n`: a blank line goes between.
    headers = "".join(f'[Event "h{i}"]\n[Site "?"]\n\n' for i in range(60)).rstrip("\n") + "\n"
    header_files = []
    for name in ("h1.pgn", "h2.pgn"):
        header_files.append(tmp_path / name)
        header_files[-1].write_text(headers)
    for k, paths in enumerate((plain, zst, [archive, plain[0]], [plain[0], archive], header_files + plain[:1])):
        out = pgnfen.dask.filter(paths, tmp_path / f"out{k}", classes=["standard"], client=client, partition_size=size)
        ref = tmp_path / f"ref{k}.pgn"
        pgnfen.filter(*paths, output=ref, classes=["standard"])
        whole = b"".join(open(p, "rb").read() for p in out)
        assert whole == ref.read_bytes()
        # Every game is still a game of its own, and only the last one of all lacks the line end.
        assert pgnfen.stats(ref)["games"] == pgnfen.stats(*paths)["games"]
        assert whole.endswith(b"e5 *")
        assert b"]\n[Event" not in whole


def test_a_file_cut_inside_magic_bytes_is_refused_as_on_one_machine(client, tmp_path):
    """Two bytes of a zstd file: refused on one machine, and by the partitions."""
    cut = tmp_path / "cut.pgn"
    cut.write_bytes(b"\x28\xb5")
    message = "inside the magic bytes of a zstd file"
    with pytest.raises(pgnfen.InputError, match=message):
        pgnfen.stats(cut)
    for call in (
        lambda: pgnfen.dask.stats([cut], client=client),
        lambda: pgnfen.dask.read_headers([cut], client=client).compute(),
        lambda: pgnfen.dask.filter([cut], tmp_path / "out", classes=["standard"], client=client),
    ):
        with pytest.raises(pgnfen.InputError, match=message):
            call()


def test_a_tar_in_zstd_frames_is_refused_as_on_one_machine(client, tmp_path):
    """Its first partition's decoded bytes are a tar archive: not read as PGN."""
    import tarfile

    pgn = tricky(tmp_path)
    tar = tmp_path / "games.tar"
    with tarfile.open(tar, "w", format=tarfile.USTAR_FORMAT) as t:
        t.add(pgn, arcname="tricky.pgn")
    zst = frames(tar, tmp_path / "games.tar.zst")
    with pytest.raises(pgnfen.InputError, match="a tar archive inside a zstd file"):
        pgnfen.stats(zst)
    for call in (
        lambda: pgnfen.dask.stats([zst], client=client, partition_size=3 << 10),
        lambda: pgnfen.dask.read_headers([zst], client=client, partition_size=3 << 10).compute(),
    ):
        with pytest.raises(pgnfen.InputError, match="a tar archive inside a zstd file"):
            call()


def test_named_tag_columns(client, tmp_path):
    files, _ = inputs(tmp_path)
    frame = pgnfen.dask.read_headers(files, tags=["White", "Black"], client=client, partition_size=61 << 10)
    assert list(frame.columns)[-3:] == ["White", "Black", "other_tags"]
    expected = pgnfen.scan(*files, tags=["White", "Black"]).read_all().to_pandas(types_mapper=pd.ArrowDtype)
    assert comparable(frame.compute().reset_index(drop=True)) == comparable(expected)
    # One string of names joined by commas, as scan() takes it.
    joined = pgnfen.dask.read_headers(files, tags="White,Black", client=client, partition_size=61 << 10)
    assert comparable(joined.compute().reset_index(drop=True)) == comparable(expected)


def test_errors(client, tmp_path):
    with pytest.raises(FileNotFoundError):
        pgnfen.dask.stats([tmp_path / "missing.pgn"], client=client)
    # A folder: the error one machine gives, message included.
    with pytest.raises(IsADirectoryError) as one:
        pgnfen.stats(tmp_path)
    with pytest.raises(IsADirectoryError) as dask:
        pgnfen.dask.stats([tmp_path], client=client)
    assert str(dask.value) == str(one.value)
    with pytest.raises(ValueError):
        pgnfen.dask.stats([], client=client)
    with pytest.raises(ValueError):
        pgnfen.dask.filter([tricky(tmp_path)], tmp_path / "o", client=client)
    for size in (0, -5):
        with pytest.raises(pgnfen.UsageError, match="partition_size must be at least 1 byte"):
            pgnfen.dask.stats([tricky(tmp_path)], client=client, partition_size=size)
    # Every mistake a pgnfen.Error (or the TypeError pgnfen.filter gives),
    # found before any work or folder.
    with pytest.raises(pgnfen.UsageError, match="partition_size must be a number of bytes"):
        pgnfen.dask.stats([tricky(tmp_path)], client=client, partition_size="1M")
    a_file = tmp_path / "a-file"
    a_file.write_text("x")
    with pytest.raises(pgnfen.UsageError, match="not a folder"):
        pgnfen.dask.filter([tricky(tmp_path)], a_file, classes=["standard"], client=client)
    for wrong in ({"classes": "chess960"}, {"tags": "WhiteElo>=5"}):
        with pytest.raises(TypeError, match="a list of str"):
            pgnfen.dask.filter([tricky(tmp_path)], tmp_path / "never", client=client, **wrong)
    assert not (tmp_path / "never").exists()


def test_a_failed_filter_leaves_no_folder_it_made(client, tmp_path):
    import gzip

    out = tmp_path / "new" / "parts"
    with pytest.raises(pgnfen.UsageError, match="possible values"):
        pgnfen.dask.filter([tricky(tmp_path)], out, classes=["nope"], client=client)
    assert not (tmp_path / "new").exists()
    # A truncated gzip fails on a worker, after the folders were made.
    broken = tmp_path / "broken.pgn.gz"
    broken.write_bytes(gzip.compress(tricky(tmp_path).read_bytes())[:-40])
    with pytest.raises(pgnfen.InputError):
        pgnfen.dask.filter([broken], out, classes=["standard"], client=client)
    assert not (tmp_path / "new").exists()
    # An existing out_dir stays, with what it held.
    out.mkdir(parents=True)
    (out / "keep.txt").write_text("mine")
    with pytest.raises(pgnfen.InputError):
        pgnfen.dask.filter([broken], out, classes=["standard"], client=client)
    assert sorted(p.name for p in out.iterdir()) == ["keep.txt"]


def test_an_out_dir_that_cannot_be_made_is_named_by_its_part_file(client, tmp_path):
    # Below a file: the error of one machine's output, a pgnfen.InputError of
    # Python's kind, naming the first part file, never the staging folder.
    source = tricky(tmp_path)
    out = source / "parts"
    with pytest.raises(NotADirectoryError) as error:
        pgnfen.dask.filter([source], out, classes=["standard"], client=client)
    assert isinstance(error.value, pgnfen.InputError)
    assert error.value.filename == os.path.join(out, "part-00000.pgn")
    assert str(error.value).startswith(os.path.join(out, "part-00000.pgn") + ": ")
    assert "staging" not in str(error.value)
    assert sorted(p.name for p in tmp_path.iterdir()) == [source.name]
    # Worded as one machine words the same output, to the letter.
    with pytest.raises(NotADirectoryError) as alone:
        pgnfen.filter(source, output=out / "part-00000.pgn", classes=["standard"])
    mine, theirs = error.value, alone.value
    assert (str(mine), mine.errno, mine.strerror, mine.filename) == (
        str(theirs),
        theirs.errno,
        theirs.strerror,
        theirs.filename,
    )
    assert type(mine) is type(theirs)


def test_an_interrupted_filter_leaves_nothing_behind(client, tmp_path):
    # Ctrl-C while the workers (processes) are writing parts: the tasks that
    # were running go on after the call has raised, and must not leave their
    # parts in a staging folder that outlives the call.
    import _thread
    import threading
    import time

    src = tmp_path / "big.pgn"
    block = b"".join(p.read_bytes() for p in sorted(SAMPLES.glob("*.pgn")))
    with open(src, "wb") as out:
        while out.tell() < 48 << 20:
            out.write(block)
    out_dir = tmp_path / "made" / "parts"

    def writing():
        for folder in out_dir.glob(".pgnfen-staging-*"):
            try:
                # (Its lock file is made with it.)
                if any(p.name != ".lock" for p in folder.iterdir()):
                    return True
            except FileNotFoundError:
                pass
        return False

    def interrupt():
        # As soon as a worker writes a part into the staging folder (which
        # the caller makes before any task runs).
        while not writing():
            time.sleep(0.001)
        _thread.interrupt_main()

    # Started in the background by a shell without job control, this process
    # has SIGINT ignored, and interrupt_main() then does nothing (see
    # RESTORE_SIGINT): the test is about what a Ctrl-C does.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        threading.Thread(target=interrupt, daemon=True).start()
        with pytest.raises(KeyboardInterrupt):
            pgnfen.dask.filter([src], out_dir, classes=["standard"], client=client, partition_size=256 << 10)
    finally:
        signal.signal(signal.SIGINT, previous)
    # The workers' running tasks end within a partition's work; give them time.
    time.sleep(2)
    assert not (tmp_path / "made").exists(), list((tmp_path / "made").rglob("*"))


def test_files_without_a_tag_line_are_warned_about_as_on_one_machine(client, tmp_path):
    """Also a zip's members, which one machine reads as inputs of their own
    (the zip is one partition, read whole on a worker): the same warnings, in
    the same order."""
    import warnings
    import zipfile

    text = tmp_path / "notes.txt"
    text.write_bytes(b"not a game, line %d\n" % 0 + b"".join(b"more text %d\n" % i for i in range(3000)))
    empty = tmp_path / "empty.pgn"
    empty.write_bytes(b"")
    games = SAMPLES / "mixed.pgn"
    book = tmp_path / "book.zip"
    with zipfile.ZipFile(book, "w") as z:
        z.writestr("readme.txt", "The games of the club, 1990 to 1999.\n")
        z.writestr("games.pgn", games.read_bytes())
        z.writestr("none.pgn", "")
    paths = [text, games, book, empty]

    def given(call):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            call()
        return [str(w.message) for w in caught if issubclass(w.category, pgnfen.InputWarning)]

    one_machine = given(lambda: pgnfen.stats(*paths))
    assert len(one_machine) == 4, one_machine
    assert "book.zip:readme.txt: no PGN tag line found" in one_machine[1]
    # Partitions of 3 KiB: the text is several, none of which sees a tag
    # line; one warning a file all the same, and none for the games.
    assert given(lambda: pgnfen.dask.stats(paths, client=client, partition_size=3 << 10)) == one_machine
    assert given(lambda: pgnfen.dask.read_headers(paths, client=client, partition_size=3 << 10)) == one_machine
    assert (
        given(
            lambda: pgnfen.dask.filter(
                paths, tmp_path / "out", classes=["standard"], client=client, partition_size=3 << 10
            )
        )
        == one_machine
    )


def test_a_tag_no_partition_held_is_warned_about_as_on_one_machine(client, tmp_path):
    import warnings

    # `Rare` is in one game of the second file only: most partitions never
    # see it, and no warning comes for it; `event` (for `Event`) and `Xyzzy`
    # no partition sees, and each is warned about once, as on one machine.
    game = b'[Event "Club"]\n[White "a"]\n[Black "b"]\n[Result "*"]\n\n1. e4 *\n\n'
    first, second = tmp_path / "first.pgn", tmp_path / "second.pgn"
    first.write_bytes(game * 60)
    second.write_bytes(game * 40 + b'[Event "Club"]\n[Rare "x"]\n\n*\n\n' + game * 20)
    paths = [first, second]

    def given(call):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            call()
        return [str(w.message) for w in caught if issubclass(w.category, pgnfen.InputWarning)]

    tags = ["event~C", "Rare=x", "Xyzzy!=1"]
    one_machine = given(lambda: pgnfen.stats(*paths, tags=tags))
    assert one_machine == [
        "no game held the tag event named by tags= (tag names are case-sensitive); did you mean Event?",
        "no game held the tag Xyzzy named by tags= (tag names are case-sensitive)",
    ]
    assert given(lambda: pgnfen.dask.stats(paths, client=client, partition_size=1 << 10, tags=tags)) == one_machine
    out = tmp_path / "out"
    assert given(lambda: pgnfen.dask.filter(paths, out, tags=tags, client=client, partition_size=1 << 10)) == one_machine
    with warnings.catch_warnings():
        warnings.simplefilter("error", pgnfen.InputWarning)
        pgnfen.dask.stats(paths, client=client, partition_size=1 << 10, tags=["Rare=x", "Event~C"])


TERMINATED = '''
import signal, sys, warnings
import pgnfen.dask
from dask.distributed import Client
warnings.simplefilter("ignore")
if __name__ == "__main__":
    # Under nohup (as CI may run) SIGHUP comes ignored, and would then rightly
    # not end the run: the test is about a process the signal ends.
    signal.signal(signal.SIGHUP, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    # Each partition takes a while, so that the run is still under way when
    # the signal comes, however busy the machine (the whole run takes a
    # second otherwise, and could end before the test sends it).
    import time
    real = pgnfen.dask._pgnfen.partition_filter
    def slow(*args, **kwargs):
        time.sleep(0.05)
        return real(*args, **kwargs)
    pgnfen.dask._pgnfen.partition_filter = slow
    client = Client(processes=False, n_workers=1, threads_per_worker=2, dashboard_address=None)
    print("started", flush=True)
    pgnfen.dask.filter([sys.argv[1]], sys.argv[2], classes=["standard"], client=client, partition_size=64 << 10)
'''


@pytest.mark.parametrize("ending", [signal.SIGTERM, signal.SIGHUP])
def test_a_filter_ended_by_sigterm_or_sighup_removes_its_staging_folder(tmp_path, ending):
    # Neither signal is handled by Python: the process would end at once,
    # leaving the staging folder and its parts in out_dir.
    import subprocess
    import sys
    import time

    src = tmp_path / "big.pgn"
    block = b"".join(p.read_bytes() for p in sorted(SAMPLES.glob("*.pgn")))
    src.write_bytes(block * ((16 << 20) // len(block)))
    out_dir = tmp_path / "parts"
    out_dir.mkdir()
    script = tmp_path / "run.py"
    script.write_text(TERMINATED)
    child = subprocess.Popen([sys.executable, str(script), str(src), str(out_dir)], stdout=subprocess.PIPE)
    assert child.stdout.readline() == b"started\n"
    deadline = time.monotonic() + 60
    while not any(out_dir.glob(".pgnfen-staging-*/*.pgn")) and time.monotonic() < deadline:
        time.sleep(0.002)
    assert child.poll() is None, "the run ended before the signal"
    child.send_signal(ending)
    assert child.wait(timeout=60) == -ending
    assert list(out_dir.iterdir()) == []


LOST = '''
import os, signal, sys
import pgnfen.dask
signal.signal(signal.SIGTERM, signal.SIG_DFL)
with pgnfen.dask._ending_signals_clean_up() as ended_by_signal:
    # The handler's exception lost, as when the signal comes while the
    # interpreter runs the garbage collector's callbacks.
    try:
        signal.getsignal(signal.SIGTERM)(signal.SIGTERM, None)
    except pgnfen.dask._EndingSignal:
        pass
    print("lost", flush=True)
    if sys.argv[1] == "checked":
        ended_by_signal()
        print("not ended", flush=True)
print("after the run", flush=True)
'''


@pytest.mark.parametrize("when", ["checked", "at the end"])
def test_a_signal_whose_exception_was_lost_still_ends_the_run(tmp_path, when):
    # A SIGHUP during a dask filter once came while `distributed`'s garbage
    # collector callback ran, which drops exceptions: the run went on and
    # ended with status 0. The run checks before putting its outputs in
    # place, and the process ends by the signal in any case.
    import subprocess
    import sys

    script = tmp_path / "lost.py"
    script.write_text(LOST)
    run = subprocess.run([sys.executable, str(script), when], capture_output=True, timeout=60)
    assert run.returncode == -signal.SIGTERM
    assert run.stdout == b"lost\n"


def test_a_later_filter_removes_the_staging_folders_of_killed_runs(client, tmp_path):
    import fcntl

    out_dir = tmp_path / "parts"
    dead, alive, other = (out_dir / f".pgnfen-staging-{name}" for name in ("dead", "alive", "other"))
    for folder in (dead, alive, other):
        folder.mkdir(parents=True)
        (folder / "0.0.pgn").write_bytes(b"games")
    (dead / ".lock").touch()
    (alive / ".lock").touch()
    # A run under way holds its folder's lock (a SIGKILLed one no longer does).
    held = os.open(alive / ".lock", os.O_RDONLY)
    try:
        fcntl.flock(held, fcntl.LOCK_EX)
        pgnfen.dask.filter([SAMPLES / "mixed.pgn"], out_dir, classes=["standard"], client=client)
    finally:
        os.close(held)
    # The dead run's folder went; one alive, and one without a lock (not a
    # run's, or one being made), are left alone.
    assert not dead.exists()
    assert (alive / "0.0.pgn").exists() and (other / "0.0.pgn").exists()
    assert sorted(p.name for p in out_dir.glob("part-*")) == ["part-00000.pgn"]


def test_partitions_are_the_tuples_the_stubs_name(tmp_path):
    path = tricky(tmp_path)
    parts = pgnfen.dask.partitions([path], partition_size=4 << 10)
    assert len(parts) > 1
    for p in parts:
        file, kind, index, start, end, identity = p
        assert type(file) is str and file == str(path)
        assert kind == "plain" and isinstance(index, int) and start < end
        assert identity is not None


def test_a_partition_size_that_would_plan_a_partition_a_byte_is_refused(tmp_path):
    # A million partitions at most: one a byte of a 2 MB file would hold the
    # plan's memory for nothing. The file of the refusal is not read.
    path = tmp_path / "games.pgn"
    path.write_bytes(b'[Event "a"]\n\n1. e4 *\n\n' * 100_000)
    with pytest.raises(pgnfen.UsageError) as refused:
        pgnfen.dask.partitions([path], partition_size=1)
    assert str(refused.value) == (
        "partition_size=1 would cut the inputs into more than 1048576 partitions; ask for larger ones"
    )
    assert len(pgnfen.dask.partitions([path], partition_size=4 << 10)) == 538


class _RecomputingClient:
    """A client that runs tasks in this process and, before every new task,
    runs again each finished task whose future is still held, newest first:
    what Dask's scheduler does, in no set order, when the worker holding a
    result dies. A task that writes a file then writes it again behind the
    caller's back."""

    class Future:
        def __init__(self, client, fn, args):
            self.client, self.fn, self.args, self.released = client, fn, args, False
            self.value = fn(*args)

        def result(self):
            return self.value

        def release(self):
            self.released = True

    def __init__(self):
        self.futures = []
        self.recomputed = 0

    def submit(self, fn, *args, pure=True):
        for f in reversed(self.futures):
            if not f.released:
                f.value = f.fn(*f.args)
                self.recomputed += 1
        future = self.Future(self, fn, args)
        self.futures.append(future)
        return future

    def cancel(self, futures):
        pass


def test_filter_survives_tasks_run_again(tmp_path, monkeypatch):
    # Partitions of 3 KiB of the tricky file: several guesses are wrong and
    # run again from the right place. Recomputing a held first guess (a dead
    # worker) must neither overwrite the corrected part nor change the output.
    src = tricky(tmp_path)
    ref = tmp_path / "ref.pgn"
    pgnfen.filter(src, output=ref, classes=["standard"])
    client = _RecomputingClient()
    discarded = []
    remove = pgnfen.dask._remove_if_there
    monkeypatch.setattr(pgnfen.dask, "_remove_if_there", lambda path: (discarded.append(path), remove(path)))
    out = pgnfen.dask.filter([src], tmp_path / "out", classes=["standard"], client=client, partition_size=3 << 10)
    assert b"".join(open(p, "rb").read() for p in out) == ref.read_bytes()
    again = sorted(f.args[0][0] for f in client.futures if f.args[0][1] == "again")
    assert again, "no partition was run again"
    # Each first run that a second one replaced was removed at once.
    assert sorted(int(os.path.basename(p).split(".")[0]) for p in discarded) == again
    assert all(p.endswith(".guess.pgn") for p in discarded)


def test_filter_of_one_file_given_twice(client, tmp_path):
    src = tricky(tmp_path)
    ref = tmp_path / "ref.pgn"
    pgnfen.filter(src, src, output=ref, classes=["standard"])
    for size in (3 << 10, 1 << 20):
        out = pgnfen.dask.filter([src, src], tmp_path / "out", classes=["standard"], client=client, partition_size=size)
        assert b"".join(open(p, "rb").read() for p in out) == ref.read_bytes()
        assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [os.path.basename(p) for p in out]


def _snapshot(folder):
    return {p.name: (p.read_bytes() if p.is_file() else "folder") for p in sorted(folder.iterdir())}


def test_filter_puts_its_parts_in_place_all_or_nothing(tmp_path, monkeypatch):
    src = tricky(tmp_path)
    out = tmp_path / "out"
    pgnfen.dask.filter([src], out, classes=["standard"], client=_RecomputingClient(), partition_size=4 << 10)
    (out / "notes.txt").write_text("mine")
    before = _snapshot(out)
    assert len(before) > 3
    # A folder where a part file goes: refused before any work.
    (out / "part-00099.pgn").mkdir()
    with pytest.raises(pgnfen.UsageError, match="in the way"):
        pgnfen.dask.filter([src], out, classes=["chess960"], client=_RecomputingClient(), partition_size=200)
    (out / "part-00099.pgn").rmdir()
    assert _snapshot(out) == before
    # A move failing halfway (or Ctrl-C): the parts already moved are taken
    # back, and the earlier run's parts stay as they were.
    real_replace = os.replace
    calls = []

    def failing_replace(a, b):
        calls.append(b)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real_replace(a, b)

    monkeypatch.setattr(os, "replace", failing_replace)
    with pytest.raises(KeyboardInterrupt):
        pgnfen.dask.filter([src], out, classes=["chess960"], client=_RecomputingClient(), partition_size=1 << 10)
    monkeypatch.undo()
    assert len(calls) > 3, "the rollback ran no replace"
    assert _snapshot(out) == before
    # The same where the file system has no hard links (the earlier parts
    # are moved aside instead), with Ctrl-C during the moves.
    calls.clear()

    def no_links(*args, **kwargs):
        raise PermissionError(errno.EPERM, "no hard links here")

    monkeypatch.setattr(os, "link", no_links)
    monkeypatch.setattr(os, "replace", failing_replace)
    with pytest.raises(KeyboardInterrupt):
        pgnfen.dask.filter([src], out, classes=["chess960"], client=_RecomputingClient(), partition_size=1 << 10)
    monkeypatch.undo()
    assert _snapshot(out) == before
    # Ctrl-C while the earlier run's extra parts are removed (this run has
    # fewer parts): they are put back, and the replaced ones too.
    real_remove = os.remove
    removed = []

    def failing_remove(path, *args, **kwargs):
        removed.append(path)
        if len(removed) == 2:
            raise KeyboardInterrupt
        return real_remove(path, *args, **kwargs)

    monkeypatch.setattr(os, "remove", failing_remove)
    with pytest.raises(KeyboardInterrupt):
        pgnfen.dask.filter([src], out, classes=["chess960"], client=_RecomputingClient(), partition_size=1 << 20)
    monkeypatch.undo()
    assert removed, "no extra part was removed"
    assert _snapshot(out) == before
    # An extra part removed by someone else meanwhile: gone all the same.
    def already_gone(path, *args, **kwargs):
        real_remove(path)
        return real_remove(path, *args, **kwargs)

    monkeypatch.setattr(os, "remove", already_gone)
    parts = pgnfen.dask.filter([src], out, classes=["chess960"], client=_RecomputingClient(), partition_size=1 << 20)
    monkeypatch.undo()
    assert sorted(p.name for p in out.glob("part-*.pgn")) == [os.path.basename(p) for p in parts]


def test_filter_keeps_what_it_cannot_put_back(tmp_path, monkeypatch):
    src = tricky(tmp_path)
    out = tmp_path / "out"
    pgnfen.dask.filter([src], out, classes=["standard"], client=_RecomputingClient(), partition_size=4 << 10)
    earlier = {p.name: p.read_bytes() for p in out.glob("part-*.pgn")}
    # Every rename fails once the second part is in place: neither the moves
    # nor the rollback can finish. The earlier parts are kept, and said so.
    real_replace = os.replace
    calls = []

    def failing(a, b):
        calls.append(b)
        if len(calls) > 2:
            raise OSError(errno.EIO, "simulated")
        return real_replace(a, b)

    monkeypatch.setattr(os, "replace", failing)
    with pytest.raises(OSError, match="simulated") as raised:
        pgnfen.dask.filter([src], out, classes=["chess960"], client=_RecomputingClient(), partition_size=1 << 10)
    monkeypatch.undo()
    (kept,) = out.glob(".pgnfen-kept-*")
    assert str(kept) in " ".join(getattr(raised.value, "__notes__", [str(kept)]))
    for name, data in earlier.items():
        assert (out / name).read_bytes() == data or (kept / name).read_bytes() == data, name
    # A dangling symbolic link with a part's name is replaced, as a file is.
    for p in out.glob("part-*.pgn"):
        p.unlink()
    (out / "part-00000.pgn").symlink_to(tmp_path / "nowhere")
    parts = pgnfen.dask.filter([src], out, classes=["standard"], client=_RecomputingClient(), partition_size=4 << 10)
    assert (out / "part-00000.pgn").is_file() and not (out / "part-00000.pgn").is_symlink()
    assert len(parts) == len(earlier)


class _NoWorkClient:
    def submit(self, *args, **kwargs):
        raise AssertionError("a task was submitted before the arguments were checked")

    def nthreads(self):
        return {"w": 1}


def test_arguments_are_checked_before_any_work(tmp_path):
    src = tricky(tmp_path)
    none = _NoWorkClient()
    with pytest.raises(pgnfen.UsageError, match="invalid tag expression"):
        pgnfen.dask.filter([src], tmp_path / "never", tags=["==bad"], client=none)
    with pytest.raises(pgnfen.UsageError, match="not a tag name"):
        pgnfen.dask.read_headers([src], tags=[""], client=none)
    with pytest.raises(TypeError, match="a list of str"):
        pgnfen.dask.read_headers([src], tags=b"White", client=none)
    with pytest.raises(pgnfen.UsageError, match=r'tags="all"\) is not supported'):
        pgnfen.dask.read_headers([src], tags="all", client=none)
    with pytest.raises(pgnfen.UsageError, match=r'tags="all"\) is not supported'):
        pgnfen.dask.read_headers([src], tags="ALL", client=none)
    with pytest.raises(pgnfen.UsageError, match="not a tag name"):
        pgnfen.dask.read_headers([src], tags="White,,Black", client=none)
    for size in (True, 1.5, float("inf"), "4000"):
        with pytest.raises(pgnfen.UsageError, match="partition_size must be a number of bytes"):
            pgnfen.dask.stats([src], client=none, partition_size=size)
    for call in (pgnfen.dask.stats, lambda p, client: pgnfen.dask.filter(p, tmp_path / "never", ["standard"], client=client)):
        for path in ("x\ud800", "a\0b"):
            with pytest.raises(pgnfen.UsageError, match="not a possible file name"):
                call([path], client=none)
    # The folder of the part files too.
    for out_dir in ("x\ud800", "a\0b"):
        with pytest.raises(pgnfen.UsageError, match="not a possible file name"):
            pgnfen.dask.filter([src], out_dir, ["standard"], client=none)
    with pytest.raises(pgnfen.UsageError, match="0-959"):
        pgnfen.dask.filter([src], tmp_path / "never", chess960_positions=[2**70], client=none)
    with pytest.raises(pgnfen.UsageError, match="not a possible file name"):
        pgnfen.stats("a\0b")
    assert not (tmp_path / "never").exists()
    # What is no list of str on one machine is none on the cluster either,
    # with the same error: not taken as a list, nor a dict as its keys.
    for wrong in ((x for x in ["Event~."]), {"Event~.": 1}, {"Event~."}, "Event~."):
        with pytest.raises(TypeError) as one:
            pgnfen.stats(src, tags=wrong)
        with pytest.raises(TypeError) as cluster:
            pgnfen.dask.stats([src], tags=wrong, client=none)
        assert str(cluster.value) == str(one.value)
        with pytest.raises(TypeError) as one:
            pgnfen.filter(src, output=tmp_path / "never.pgn", tags=wrong)
        with pytest.raises(TypeError) as cluster:
            pgnfen.dask.filter([src], tmp_path / "never", tags=wrong, client=none)
        assert str(cluster.value) == str(one.value)
    with pytest.raises(pgnfen.UsageError) as one:
        pgnfen.filter(src, output=tmp_path / "never.pgn")
    with pytest.raises(pgnfen.UsageError) as cluster:
        pgnfen.dask.filter([src], tmp_path / "never", client=none)
    assert str(cluster.value) == str(one.value)
    assert not (tmp_path / "never").exists()
    # A size beyond any file: one partition per file.
    assert len(pgnfen.dask.partitions([src, src], partition_size=2**64)) == 2


def test_filter_keeps_the_mode_of_the_part_files_it_replaces(client, tmp_path):
    import stat

    src = tricky(tmp_path)
    out = tmp_path / "out"
    run = lambda: pgnfen.dask.filter([src], out, classes=["standard"], client=client, partition_size=3 << 10)  # noqa: E731
    parts = run()
    assert len(parts) > 2
    os.chmod(parts[0], 0o600)
    # The set-user-ID bit is not handed on to new contents.
    os.chmod(parts[1], 0o4640)
    os.remove(parts[2])
    assert run() == parts
    mode = lambda p: stat.S_IMODE(os.stat(p).st_mode)  # noqa: E731
    umask = os.umask(0)
    os.umask(umask)
    assert (mode(parts[0]), mode(parts[1]), mode(parts[2])) == (0o600, 0o640, 0o666 & ~umask)


def test_a_filter_that_cannot_write_names_the_part_file(tmp_path):
    # A write that fails (here past the process's file size limit) names the
    # part file the user asked for, not the staging file it was written as.
    import resource

    src = tricky(tmp_path)
    out = tmp_path / "out"
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    handler = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (256, hard))
    try:
        with pytest.raises(pgnfen.InputError) as e:
            pgnfen.dask.filter([src], out, classes=["standard"], client=_RecomputingClient(), partition_size=1 << 20)
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
        signal.signal(signal.SIGXFSZ, handler)
    part = str(out / "part-00000.pgn")
    assert e.value.filename == part and str(e.value).startswith(part + ":"), e.value
    assert ".pgnfen-staging" not in str(e.value)
    assert not out.exists()
