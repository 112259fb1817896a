"""pgnfen.scan: the rows of `pgnfen export` as an Arrow stream."""

import pytest

import pgnfen

from conftest import SAMPLES, cli, corpus_files, file_id, real_files

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

FILES = corpus_files()


def exported(tmp_path, *paths, tags=None):
    """The Parquet file `pgnfen export` writes for these paths, read back."""
    out = tmp_path / "rows.parquet"
    args = ["export", "-o", out, *paths]
    if tags is not None:
        args[1:1] = ["--tags", tags]
    cli(*args)
    return pq.read_table(out)


@pytest.mark.parametrize("path", FILES, ids=[file_id(p) for p in FILES])
def test_scan_equals_the_exported_parquet_row_for_row(path, tmp_path):
    table = pgnfen.scan(path).read_all()
    expected = exported(tmp_path, path)
    assert table.schema.names == expected.schema.names
    assert table.num_rows == expected.num_rows
    assert table.to_pylist() == expected.to_pylist()


def test_scan_equals_export_on_compressed_inputs(zst_dir, tmp_path):
    paths = sorted(zst_dir.iterdir())[:12]
    table = pgnfen.scan(*paths, threads=2).read_all()
    assert table.to_pylist() == exported(tmp_path, *paths).to_pylist()


def test_tags_all_and_named_columns_follow_export(tmp_path):
    paths = real_files()[:3] or FILES[:3]
    all_table = pgnfen.scan(*paths, tags="all").read_all()
    assert all_table.to_pylist() == exported(tmp_path, *paths, tags="all").to_pylist()
    named = pgnfen.scan(*paths, tags=["White", "Black", "Result"]).read_all()
    assert named.column_names[-4:] == ["White", "Black", "Result", "other_tags"]
    assert named.to_pylist() == exported(tmp_path, *paths, tags="White,Black,Result").to_pylist()


def test_polars_and_duckdb_read_the_stream_and_agree_with_stats():
    polars = pytest.importorskip("polars")
    duckdb = pytest.importorskip("duckdb")
    paths = FILES
    stats = pgnfen.stats(*paths)
    frame = polars.from_arrow(pgnfen.scan(*paths))
    assert frame.height == stats["games"]
    reader = pgnfen.scan(*paths)
    counts = dict(duckdb.sql("select class, count(*) from reader group by class").fetchall())
    assert counts == {k: v for k, v in stats["classes"].items() if v}
    # The native stream alone, through the capsule interface (no pyarrow wrapper).
    frame = polars.DataFrame(pgnfen.scan_stream(*paths))
    assert frame.height == stats["games"]


def test_a_stream_is_consumed_once():
    stream = pgnfen.scan_stream(FILES[0])
    pa.RecordBatchReader.from_stream(stream).read_all()
    with pytest.raises(ValueError, match="already consumed"):
        stream.__arrow_c_stream__()


def test_breaking_off_early_stops_the_export():
    big = max(FILES, key=lambda p: p.stat().st_size)
    reader = pgnfen.scan(big, big, big, big)
    first = reader.read_next_batch()
    assert first.num_rows > 0
    del reader  # releases the stream: the export thread stops


def test_errors():
    with pytest.raises(FileNotFoundError, match="nonexistent.pgn"):
        pgnfen.scan("nonexistent.pgn")
    # A wrong type is a TypeError, as for every argument; a bad name a UsageError.
    with pytest.raises(TypeError, match="tags"):
        pgnfen.scan(FILES[0], tags=3)
    with pytest.raises(ValueError):
        pgnfen.scan(FILES[0], tags=["White", "Bad Name"])
    # In the words of the argument, not of the command line's --tags.
    for tags, words in [
        (["White", "White"], "tags: White is named twice"),
        (["all", "White"], "tags: all makes a column of every tag name"),
        ([f"T{i}" for i in range(129)], "tags names 129 tags"),
    ]:
        with pytest.raises(pgnfen.UsageError) as raised:
            pgnfen.scan(FILES[0], tags=tags)
        assert str(raised.value).startswith(words) and "--" not in str(raised.value)
    with pytest.raises(pgnfen.UsageError, match=r'^tags="all" reads the inputs twice.*tags=\[NAME, \.\.\.\]'):
        pgnfen.scan("-", tags="all")


def test_a_corrupt_zst_fails_the_stream(tmp_path):
    zstandard = pytest.importorskip("zstandard")
    data = zstandard.ZstdCompressor().compress(FILES[0].read_bytes() * 50)
    bad = tmp_path / "bad.pgn.zst"
    bad.write_bytes(data[: len(data) // 2] + b"\x00" * 64 + data[len(data) // 2 :])
    with pytest.raises((OSError, pa.ArrowException)):
        pgnfen.scan(bad).read_all()


def test_scan_of_no_games_still_hands_over_its_schema(tmp_path):
    # Readers that take the schema from the first batch (polars.from_arrow)
    # failed on a reader of no batches at all.
    empty = tmp_path / "empty.pgn"
    empty.write_bytes(b"")
    batches = list(pgnfen.scan(empty))
    assert len(batches) == 1 and batches[0].num_rows == 0
    assert batches[0].schema == pgnfen.scan(SAMPLES / "mixed.pgn").schema


def test_a_requested_schema_is_best_effort(tmp_path):
    # The capsule interface's requested_schema is a wish: consumers that
    # always pass one (pa.table(..., schema=)) were refused.
    own = pgnfen.scan(SAMPLES / "mixed.pgn").schema
    table = pa.table(pgnfen.scan_stream(SAMPLES / "mixed.pgn"), schema=own)
    assert table.num_rows == 13 and table.schema == own
    reader = pa.RecordBatchReader.from_stream(pgnfen.scan_stream(SAMPLES / "mixed.pgn"), schema=own)
    assert reader.read_all().num_rows == 13
