"""The types of pgnfen's results: each dict a function returns is one of these
TypedDicts, with the keys of the command line's JSON. Import them to annotate
code that handles the results::

    from pgnfen.types import FenReport

    def is_standard(report: FenReport) -> bool:
        return report["class"] == "standard"

>>> import pgnfen
>>> from pgnfen.types import Stats
>>> stats: Stats = pgnfen.stats("samples/standard.pgn")
>>> stats["classes"]["standard"]
3
"""

import sys
from typing import Dict, List, Literal, Optional

if sys.version_info >= (3, 11):
    from typing import NotRequired, TypedDict
else:  # NotRequired is 3.11's; typing_extensions has it (and a TypedDict that knows it)
    from typing_extensions import NotRequired, TypedDict

__all__ = [
    "CheckProblem",
    "ClassCounts",
    "ClassName",
    "ConvertCounts",
    "ExportCounts",
    "FenProblem",
    "FenRecordReport",
    "FenReport",
    "FilterCounts",
    "MoveCounts",
    "SeverityName",
    "SpeedCounts",
    "SpeedName",
    "SplitCounts",
    "Stats",
]

#: The classes of a game or a record.
ClassName = Literal["standard", "setup", "chess960", "crc", "other", "malformed"]
#: The speed of a game, from its TimeControl tag.
SpeedName = Literal[
    "ultrabullet", "bullet", "blitz", "rapid", "classical", "correspondence", "unknown"
]
#: How grave a problem is.
SeverityName = Literal["error", "warning"]

# ---- results ----


class FenProblem(TypedDict):
    """A problem of one FEN/EPD record, as ``fen --format json`` gives it."""

    code: str
    severity: SeverityName
    message: str
    column: int


# "class" is a keyword: the functional form of TypedDict.
FenReport = TypedDict(
    "FenReport",
    {
        # None only for a line too long to be a record (it is not kept).
        "input": Optional[str],
        "valid": bool,
        "class": ClassName,
        "board": Optional[Literal["8x8", "10x8"]],
        "chess960_position": Optional[int],
        "fen": Optional[str],
        "xfen": Optional[str],
        "shredder": Optional[str],
        "problems": List[FenProblem],
        "operations": Optional[str],
    },
)


class FenRecordReport(FenReport):
    """A record of a book, as ``fen_records()`` gives it: the object of
    ``fen`` and where the record was read (as ``fen --format json`` writes
    them for files)."""

    #: The book's path as given; a zip member as ``ARCHIVE:MEMBER``.
    file: str
    #: The record's line (1-based; within its zip member).
    line: int


class ClassCounts(TypedDict):
    """Games per class."""

    standard: int
    setup: int
    chess960: int
    crc: int
    other: int
    malformed: int


class SpeedCounts(TypedDict):
    """Games per speed (all seven keys, fastest first)."""

    ultrabullet: int
    bullet: int
    blitz: int
    rapid: int
    classical: int
    correspondence: int
    unknown: int


class MoveCounts(TypedDict):
    """Games replayed by ``stats(..., moves=...)``."""

    checked: int
    illegal: int
    not_checked: int


class Stats(TypedDict):
    """The object of ``stats --format json``."""

    games: int
    #: Only with ``tags=`` or ``speeds=``: the games that did not match (not
    #: counted anywhere else).
    unmatched: NotRequired[int]
    classes: ClassCounts
    #: Games per speed (from the TimeControl tag).
    speeds: SpeedCounts
    #: Games per Chess960 start position number (as a string key, as in JSON).
    chess960_positions: Dict[str, int]
    #: Occurrences per problem code (a game with two wrong castling letters
    #: counts twice), warnings included.
    problems: Dict[str, int]
    #: Only with ``moves=``.
    moves: NotRequired[MoveCounts]


class CheckProblem(TypedDict):
    """One problem of a game, as ``check --format json`` gives it."""

    file: str
    game: int
    line: int
    column: int
    #: None for a problem of the movetext (``illegal-move``).
    tag: Optional[str]
    code: str
    severity: SeverityName
    message: str
    #: The column just past the part at fault.
    end_column: int
    #: How to fix it, when there is advice.
    help: Optional[str]
    #: ``illegal-move`` only: the ply (1 for the game's first mainline move).
    ply: NotRequired[int]
    #: ``illegal-move`` only: the move as written.
    move: NotRequired[str]
    #: ``illegal-move`` only: the position the move was played in (X-FEN).
    position: NotRequired[str]


class FilterCounts(TypedDict):
    """What ``filter()`` read and wrote."""

    games: int
    kept: int
    rest: int


class ConvertCounts(TypedDict):
    """What ``convert()`` read and rewrote (FEN tags)."""

    games: int
    converted: int
    unchanged: int


class ExportCounts(TypedDict):
    """What ``export()`` read and wrote."""

    games: int
    rows: int
    dropped_pairs: int
    games_with_dropped_pairs: int


#: ``split()``: games written to each file, by path.
SplitCounts = Dict[str, int]

