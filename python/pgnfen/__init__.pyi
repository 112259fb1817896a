"""Type stubs of pgnfen (the native module re-exported by the package).

Every result is typed precisely: the dicts are TypedDicts with the keys of the
command line's JSON. pyarrow (an optional extra) is imported for type checking
only.
"""

import builtins
import os
from typing import (
    TYPE_CHECKING,
    ClassVar,
    Dict,
    ItemsView,
    Iterator,
    KeysView,
    List,
    Literal,
    Mapping,
    Optional,
    Sequence,
    Tuple,
    TypeVar,
    Union,
    ValuesView,
    final,
    overload,
)
from types import TracebackType

if TYPE_CHECKING:
    import pyarrow

_T = TypeVar("_T")
_Path = Union[str, bytes, "os.PathLike[str]", "os.PathLike[bytes]"]

from .types import (
    CheckProblem as CheckProblem,
    ClassCounts as ClassCounts,
    ClassName as ClassName,
    ConvertCounts as ConvertCounts,
    ExportCounts as ExportCounts,
    FenProblem as FenProblem,
    FenRecordReport as FenRecordReport,
    FenReport as FenReport,
    FilterCounts as FilterCounts,
    SeverityName as SeverityName,
    SpeedCounts as SpeedCounts,
    SpeedName as SpeedName,
    SplitCounts as SplitCounts,
    Stats as Stats,
)

__version__: str

# ---- errors (pgnfen/_errors.py) ----

class Error(Exception):
    """The base class of every error pgnfen raises."""

class UsageError(Error, ValueError):
    """A bad argument: nothing was read or written."""

class InputError(Error, OSError):
    """Reading an input or writing an output failed."""

class MissingFileError(InputError, builtins.FileNotFoundError):
    """An input that does not exist, or an output whose folder does not
    (also a ``FileNotFoundError``, as ``open(path, "w")`` raises)."""

class InputWarning(UserWarning):
    """A note about an input that did not stop the call (no PGN tag line
    found; a FEN that ``convert`` left unchanged)."""

# ---- games ----

# A native class: it cannot be subclassed.
@final
class Game:
    """One game of a PGN file, as ``games()`` yields it."""

    @property
    def file(self) -> str:
        """The input's path as given (``<stdin>`` for standard input); a name that is not UTF-8 as ``os.fsdecode`` gives it."""
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
    def class_(self) -> ClassName:
        """standard, setup, chess960, crc, other or malformed."""
    @property
    def chess960_position(self) -> Optional[int]:
        """The Chess960 start position number (0-959), or None."""
    @property
    def speed(self) -> SpeedName:
        """ultrabullet, bullet, blitz, rapid, classical, correspondence or unknown."""
    @property
    def problems(self) -> List[CheckProblem]:
        """Problems as ``check --format json`` gives them, warnings included."""
    @property
    def headers(self) -> Dict[str, str]:
        """Every tag, values unescaped (a new dict at each access); a repeated tag keeps its first value."""
    @property
    def tags(self) -> Tags:
        """The tags of ``headers`` as a read-only mapping read from the game's bytes when asked."""
    @property
    def moves(self) -> Optional[Literal["passed", "illegal", "not_checked"]]:
        """With ``games(moves=...)``: what the replay of the mainline found; else None."""
    @property
    def raw(self) -> bytes:
        """The bytes of the game exactly as in the input."""

# A native class: it cannot be subclassed. At runtime it is registered as a
# collections.abc.Mapping (isinstance holds) rather than derived from it.
@final
class Tags(Mapping[str, str]):
    """A game's tags, read from its bytes when asked; ``copy()`` gives a dict."""

    def __getitem__(self, key: str, /) -> str: ...
    def __iter__(self) -> Iterator[str]: ...
    def __len__(self) -> int: ...
    def __contains__(self, key: object, /) -> bool: ...
    @overload
    def get(self, key: str, default: None = None, /) -> Optional[str]: ...
    @overload
    def get(self, key: str, default: Union[str, _T], /) -> Union[str, _T]: ...
    def keys(self) -> KeysView[str]: ...
    def values(self) -> ValuesView[str]: ...
    def items(self) -> ItemsView[str, str]: ...
    def copy(self) -> Dict[str, str]:
        """A new dict of every tag (``game.headers``; faster than ``dict(tags)``)."""
    def __eq__(self, other: object, /) -> bool: ...
    __hash__: ClassVar[None]  # type: ignore[assignment]

# A native class: it cannot be subclassed.
@final
class GameIterator(Iterator[Game]):
    """The iterator of ``games()``; also a context manager that closes it."""

    def __iter__(self) -> "GameIterator": ...
    def __next__(self) -> Game: ...
    def close(self) -> None:
        """Stop reading now."""
    def __enter__(self) -> "GameIterator": ...
    def __exit__(
        self,
        exc_type: Optional[type[BaseException]],
        exc_value: Optional[BaseException],
        traceback: Optional[TracebackType],
        /,
    ) -> None: ...

def fen(record: str, /, *, ep: Optional[Literal["as-is", "pseudo-legal", "legal"]] = None) -> FenReport:
    """The object of ``pgnfen fen --format json`` for one bare FEN record
    (``ep`` as ``fen --ep``)."""

# A native class: it cannot be subclassed.
@final
class FenRecordIterator(Iterator[FenRecordReport]):
    """The lazy iterator of ``fen_records()``; also a context manager that closes it."""

    def __iter__(self) -> "FenRecordIterator": ...
    def __next__(self) -> FenRecordReport: ...
    def close(self) -> None:
        """Stop reading now."""
    def __enter__(self) -> "FenRecordIterator": ...
    def __exit__(
        self,
        exc_type: Optional[type[BaseException]],
        exc_value: Optional[BaseException],
        traceback: Optional[TracebackType],
        /,
    ) -> None: ...

def fen_records(
    *paths: _Path,
    threads: Optional[int] = None,
    ep: Optional[Literal["as-is", "pseudo-legal", "legal"]] = None,
) -> FenRecordIterator:
    """The objects of ``pgnfen fen --format json`` for every record of these
    books, lazily (``ep`` as ``fen --ep``)."""

def stats(
    *paths: _Path,
    threads: Optional[int] = None,
    moves: Optional[Literal["first", "all"]] = None,
    tags: Optional[Sequence[str]] = None,
    speeds: Optional[Sequence[SpeedName]] = None,
) -> Stats:
    """The object of ``pgnfen stats --format json`` for these files (``tags``
    and ``speeds`` as ``--tag`` and ``--speed``)."""

# A native class: it cannot be subclassed.
@final
class ProblemIterator(Iterator[CheckProblem]):
    """The lazy iterator of ``check()``; also a context manager that closes it."""

    def __iter__(self) -> "ProblemIterator": ...
    def __next__(self) -> CheckProblem: ...
    def close(self) -> None:
        """Stop reading now."""
    def __enter__(self) -> "ProblemIterator": ...
    def __exit__(
        self,
        exc_type: Optional[type[BaseException]],
        exc_value: Optional[BaseException],
        traceback: Optional[TracebackType],
        /,
    ) -> None: ...

def check(
    *paths: _Path,
    warnings: bool = False,
    threads: Optional[int] = None,
    moves: Optional[Literal["first", "all"]] = None,
) -> ProblemIterator:
    """The objects of ``pgnfen check --format json`` for these files, lazily."""

def filter(
    *paths: _Path,
    output: _Path,
    classes: Optional[Sequence[ClassName]] = None,
    tags: Optional[Sequence[str]] = None,
    rest: Optional[_Path] = None,
    chess960_positions: Optional[Sequence[int]] = None,
    speeds: Optional[Sequence[SpeedName]] = None,
    threads: Optional[int] = None,
    moves: Optional[Literal["first", "all"]] = None,
) -> FilterCounts:
    """Copy the matching games to ``output``; returns games, kept, rest counts."""

def convert(
    *paths: _Path,
    output: _Path,
    to: Literal["fen", "xfen", "shredder"],
    ep: Optional[Literal["as-is", "pseudo-legal", "legal"]] = None,
    repair: bool = False,
    threads: Optional[int] = None,
) -> ConvertCounts:
    """Rewrite FEN tags in dialect ``to``; returns games, converted, unchanged counts."""

def split(
    *paths: _Path,
    template: _Path,
    classes: Optional[Sequence[ClassName]] = None,
    tags: Optional[Sequence[str]] = None,
    speeds: Optional[Sequence[SpeedName]] = None,
    threads: Optional[int] = None,
) -> SplitCounts:
    """Write every game to the file named by its class and/or speed; returns the games per file written."""

def export(
    *paths: _Path,
    output: _Path,
    format: Optional[Literal["parquet", "csv", "jsonl"]] = None,
    tags: Union[None, str, Sequence[str]] = None,
    threads: Optional[int] = None,
    encoding: Optional[str] = None,
    where: Optional[Sequence[str]] = None,
    speeds: Optional[Sequence[SpeedName]] = None,
    csv_raw: bool = False,
) -> ExportCounts:
    """Write every game's headers as a table (the rows of ``scan()``); returns counts.
    ``where`` and ``speeds`` select games as ``--tag`` and ``--speed``."""

def games(
    *paths: _Path,
    threads: Optional[int] = None,
    encoding: Optional[str] = None,
    moves: Optional[Literal["first", "all"]] = None,
) -> GameIterator:
    """Stream the games of these files, in input order."""

# A native class: it cannot be subclassed.
@final
class ArrowBatch:
    """One record batch of an export (the Arrow PyCapsule interface, once)."""

    def __arrow_c_array__(
        self, requested_schema: Optional[object] = None
    ) -> Tuple[object, object]:
        """Hands the batch over as (schema, array) PyCapsules."""

# A native class: it cannot be subclassed.
@final
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
    where: Optional[Sequence[str]] = None,
    speeds: Optional[Sequence[SpeedName]] = None,
) -> ArrowStream:
    """The native half of ``scan``: the export's rows as an ``ArrowStream``."""

def scan(
    *paths: _Path,
    tags: Union[None, str, Sequence[str]] = None,
    threads: Optional[int] = None,
    encoding: Optional[str] = None,
    where: Optional[Sequence[str]] = None,
    speeds: Optional[Sequence[SpeedName]] = None,
) -> "pyarrow.RecordBatchReader":
    """The rows of ``pgnfen export`` as a ``pyarrow.RecordBatchReader``."""

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
