"""pgnfen: the SetUp, FEN and Variant headers of PGN chess archives.

The functions of the ``pgnfen`` command line, as Python functions running the
same Rust code (no subprocess). Results mirror the JSON of the commands:

* ``fen(record)``: the object of ``pgnfen fen --format json`` for one record.
* ``stats(*paths)``: the object of ``pgnfen stats --format json``.
* ``check(*paths, warnings=False)``: the objects of ``pgnfen check --format json``,
  as a lazy iterator (bounded memory; ``list()`` of it gives them all).
* ``filter(*paths, output=..., classes=[...])`` and
  ``convert(*paths, output=..., to=...)``: write files as the commands do and
  return a dict of counts.
* ``games(*paths)``: a streaming iterator of ``Game`` objects, in input order.
* ``scan(*paths, tags=None)``: the rows of ``pgnfen export`` as a
  ``pyarrow.RecordBatchReader`` (needs pyarrow: ``pip install 'pgnfen[arrow]'``, or ``./python[arrow]`` from a checkout).
* ``split(*paths, template=...)`` and ``export(*paths, output=...)``: write
  files as the commands do and return a dict of counts.
* ``fen_records(*paths)``: the objects of ``pgnfen fen --format json`` for
  every record of FEN/EPD books, as a lazy iterator.

``pgnfen.dask`` (``pip install 'pgnfen[dask]'``, or ``./python[dask]`` from a checkout) runs ``stats``, ``filter`` and
``read_headers`` on a Dask cluster, partition by partition, with results equal
to one machine's.

Paths are ``str``, ``bytes`` or ``os.PathLike`` (a file name need not be
UTF-8), plain or compressed (gzip, bzip2, xz, zstd) or a zip archive. Every error is a
``pgnfen.Error``: I/O errors a ``pgnfen.InputError``, which is an ``OSError``
(a missing file a ``pgnfen.MissingFileError``, also a ``FileNotFoundError``),
bad arguments a ``pgnfen.UsageError``, which is a ``ValueError``; the messages
are those of the command line. The GIL is released while the work runs on
``threads`` worker threads; Ctrl-C stops a call within a fraction of a second,
removes its temporary files, leaves existing outputs alone and raises
``KeyboardInterrupt``.
"""

from collections.abc import Mapping as _Mapping

from ._errors import (  # noqa: F401  (the private kinds: pickled by name)
    Error,
    InputError,
    InputWarning,
    MissingFileError,
    UsageError,
    _BrokenPipeError,
    _IsADirectoryError,
    _NotADirectoryError,
    _PermissionError,
)
from ._pgnfen import (  # noqa: F401  (re-exported)
    ArrowBatch,
    ArrowStream,
    FenRecordIterator,
    Game,
    GameIterator,
    ProblemIterator,
    Tags,
    __version__,
    check,
    convert,
    export,
    fen,
    fen_records,
    filter,
    games,
    scan_stream,
    split,
    stats,
)

# A native class cannot inherit from Mapping; registered, it is one for
# isinstance() (pandas, for one, then takes a list of them as rows).
_Mapping.register(Tags)


def scan(*paths, tags=None, threads=None, encoding=None, where=None, speeds=None):
    """Every game's headers as Arrow record batches: the rows of ``pgnfen export``.

    Returns a ``pyarrow.RecordBatchReader`` with one row per game, in input
    order: ``file``, ``game``, ``offset``, ``length``, ``line``, ``class``,
    ``chess960_position``, ``speed`` (None when unknown), ``time_base`` and
    ``time_increment`` (seconds, float, of the first period of the
    TimeControl tag; None for ``-`` and unknown), ``variant``, ``fen``,
    ``problems``, then one column
    per tag and ``other_tags`` (a map of the remaining tags). ``tags``: None
    for the default columns (the Seven Tag Roster, ``WhiteElo``, ``BlackElo``,
    ``ECO``, ``Opening``, ``TimeControl``, ``Termination``, ``UTCDate``,
    ``UTCTime``), a list of tag names, or ``"all"`` (one column for every tag
    name met; the files are read twice). ``encoding``: how tag names and
    values are decoded, None or ``"auto"`` (UTF-8 when valid, else
    Windows-1252, the Latin-1 of old archives), ``"utf-8"`` or ``"latin-1"``.
    ``where``: tag expressions every row's game satisfies (``["WhiteElo>=2500"]``,
    as ``filter(tags=...)`` and ``export --tag``); ``speeds``: the speeds to
    keep (``["blitz", "rapid"]``, as ``--speed``); None keeps every game.

    The reader implements the Arrow PyCapsule interface, so
    ``polars.from_arrow(reader)``, ``duckdb.sql("select ... from reader")`` and
    ``reader.read_pandas()`` take it without a copy. The batches are built on
    ``threads`` worker threads (default: one per core) with bounded memory; the
    reader can be read once. Reading it looks for Ctrl-C between batches
    (``KeyboardInterrupt`` stops the export).

    >>> reader = pgnfen.scan("samples/mixed.pgn", tags=["White", "Black"])
    >>> table = reader.read_all()
    >>> table.num_rows, table.column("class")[0].as_py()
    (13, 'standard')

    Raises FileNotFoundError/OSError for a file that cannot be read, ValueError
    for bad tag names, ImportError when pyarrow is not installed.
    """
    try:
        import pyarrow
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise ImportError(
            "pgnfen.scan() returns a pyarrow.RecordBatchReader: pip install pyarrow (or 'pgnfen[arrow]')"
        ) from e
    stream = scan_stream(
        *paths, tags=tags, threads=threads, encoding=encoding, where=where, speeds=speeds
    )
    # Batch by batch through Python rather than pyarrow's import of the C
    # stream: pyarrow reads an imported stream without looking for signals,
    # so Ctrl-C would wait for the whole export; `next_batch` waits in slices
    # and raises KeyboardInterrupt, which pyarrow passes on unchanged. Each
    # batch still crosses without a copy (the Arrow C data interface).
    schema = pyarrow.schema(stream)

    def batches():
        sent = False
        while True:
            batch = stream.next_batch()
            if batch is None:
                break
            sent = True
            yield pyarrow.record_batch(batch)
        if not sent:
            # No rows: one empty batch, so that readers that take their
            # schema from the first batch (polars.from_arrow) see it.
            yield pyarrow.RecordBatch.from_pylist([], schema=schema)

    return pyarrow.RecordBatchReader.from_batches(schema, batches())


__all__ = [
    "ArrowBatch",
    "ArrowStream",
    "Error",
    "FenRecordIterator",
    "Game",
    "GameIterator",
    "InputError",
    "InputWarning",
    "MissingFileError",
    "ProblemIterator",
    "Tags",
    "UsageError",
    "check",
    "convert",
    "export",
    "fen",
    "fen_records",
    "filter",
    "games",
    "scan",
    "scan_stream",
    "split",
    "stats",
]
