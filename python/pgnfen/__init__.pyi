"""Type stubs of pgnfen (the native module re-exported by the package)."""

import os

import pyarrow
from typing import Any, Dict, Iterator, List, Optional, Sequence, Tuple, Union

_Path = Union[str, bytes, "os.PathLike[str]", "os.PathLike[bytes]"]

__version__: str

class Game:
    """One game of a PGN file, as ``games()`` yields it."""

    @property
    def file(self) -> str:
        """The input's path as given (``<stdin>`` for standard input)."""
    @property
    def game(self) -> int:
        """1-based number of the game within its file."""
    @property
    def offset(self) -> int:
        """Offset of the game's first byte in the (decompressed) input."""
    @property
    def length(self) -> int:
        """Length of the game in bytes."""
    @property
    def line(self) -> int:
        """The game's first line (1-based) in the input."""
    @property
    def class_(self) -> str:
        """standard, setup, chess960, crc, other or malformed."""
    @property
    def chess960_position(self) -> Optional[int]:
        """The Chess960 start position number (0-959), or None."""
    @property
    def speed(self) -> str:
        """ultrabullet, bullet, blitz, rapid, classical, correspondence or unknown."""
    @property
    def problems(self) -> List[Dict[str, Any]]:
        """Problems as ``check --format json`` gives them, warnings included."""
    @property
    def headers(self) -> Dict[str, str]:
        """Every tag, values unescaped (a new dict at each access)."""
    @property
    def raw(self) -> bytes:
        """The bytes of the game exactly as in the input."""

class GameIterator(Iterator[Game]):
    """The iterator of ``games()``; also a context manager that closes it."""

    def __iter__(self) -> "GameIterator": ...
    def __next__(self) -> Game: ...
    def close(self) -> None:
        """Stop reading now."""
    def __enter__(self) -> "GameIterator": ...
    def __exit__(self, exc_type: Any, exc_value: Any, traceback: Any) -> bool: ...

def fen(record: str, /) -> Dict[str, Any]:
    """The object of ``pgnfen fen --format json`` for one bare FEN record."""

def stats(*paths: _Path, threads: Optional[int] = None) -> Dict[str, Any]:
    """The object of ``pgnfen stats --format json`` for these files."""

class ProblemIterator(Iterator[Dict[str, Any]]):
    """The lazy iterator of ``check()``; also a context manager that closes it."""

    def __iter__(self) -> "ProblemIterator": ...
    def __next__(self) -> Dict[str, Any]: ...
    def close(self) -> None:
        """Stop reading now."""
    def __enter__(self) -> "ProblemIterator": ...
    def __exit__(self, exc_type: Any, exc_value: Any, traceback: Any) -> bool: ...

def check(
    *paths: _Path, warnings: bool = False, threads: Optional[int] = None
) -> ProblemIterator:
    """The objects of ``pgnfen check --format json`` for these files, lazily."""

def filter(
    *paths: _Path,
    output: _Path,
    classes: Optional[Sequence[str]] = None,
    tags: Optional[Sequence[str]] = None,
    rest: Optional[_Path] = None,
    chess960_positions: Optional[Sequence[int]] = None,
    speeds: Optional[Sequence[str]] = None,
    threads: Optional[int] = None,
) -> Dict[str, int]:
    """Copy the matching games to ``output``; returns games, kept, rest counts."""

def convert(
    *paths: _Path,
    output: _Path,
    to: str,
    ep: Optional[str] = None,
    repair: bool = False,
    threads: Optional[int] = None,
) -> Dict[str, int]:
    """Rewrite FEN tags in dialect ``to``; returns games, converted, unchanged counts."""

def games(
    *paths: _Path, threads: Optional[int] = None, encoding: Optional[str] = None
) -> GameIterator:
    """Stream the games of these files, in input order."""

class ArrowBatch:
    """One record batch of an export (the Arrow PyCapsule interface, once)."""

    def __arrow_c_array__(
        self, requested_schema: Optional[object] = None
    ) -> Tuple[object, object]:
        """Hands the batch over as (schema, array) PyCapsules."""

class ArrowStream:
    """The rows of an export as an Arrow C stream (consumed once)."""

    @property
    def column_names(self) -> List[str]:
        """The column names, in order."""
    def __arrow_c_stream__(self, requested_schema: Optional[object] = None) -> object:
        """Hands the stream over as a PyCapsule (the Arrow PyCapsule interface)."""
    def __arrow_c_schema__(self) -> object:
        """The schema as a PyCapsule (the Arrow PyCapsule interface)."""
    def next_batch(self) -> Optional[ArrowBatch]:
        """The next batch, or None at the end (Ctrl-C raises KeyboardInterrupt)."""

def scan_stream(
    *paths: _Path,
    tags: Union[None, str, Sequence[str]] = None,
    threads: Optional[int] = None,
    encoding: Optional[str] = None,
) -> ArrowStream:
    """The native half of ``scan``: the export's rows as an ``ArrowStream``."""

def scan(
    *paths: _Path,
    tags: Union[None, str, Sequence[str]] = None,
    threads: Optional[int] = None,
    encoding: Optional[str] = None,
) -> "pyarrow.RecordBatchReader":
    """The rows of ``pgnfen export`` as a ``pyarrow.RecordBatchReader``."""
