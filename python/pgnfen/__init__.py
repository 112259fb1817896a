"""pgnfen: the SetUp, FEN and Variant headers of PGN chess archives.

The functions of the ``pgnfen`` command line, as Python functions running the
same Rust code (no subprocess). Results mirror the JSON of the commands:

* ``fen(record)``: the object of ``pgnfen fen --format json`` for one record.
* ``stats(*paths)``: the object of ``pgnfen stats --format json``.
* ``check(*paths, warnings=False)``: the objects of ``pgnfen check --format json``.
* ``filter(*paths, output=..., classes=[...])`` and
  ``convert(*paths, output=..., to=...)``: write files as the commands do and
  return a dict of counts.
* ``games(*paths)``: a streaming iterator of ``Game`` objects, in input order.

Paths are ``str`` or ``os.PathLike``, plain or compressed (gzip, bzip2,
zstd). I/O errors raise ``OSError`` (``FileNotFoundError`` for a missing
file), bad arguments ``ValueError``, with the messages of the command line.
The GIL is released while the work runs on ``threads`` worker threads.
"""

from ._pgnfen import (  # noqa: F401  (re-exported)
    Game,
    GameIterator,
    __version__,
    check,
    convert,
    fen,
    filter,
    games,
    stats,
)

__all__ = [
    "Game",
    "GameIterator",
    "check",
    "convert",
    "fen",
    "filter",
    "games",
    "stats",
]
