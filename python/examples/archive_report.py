"""A report on PGN archives: classes, problems and the Chess960 games.

    python python/examples/archive_report.py samples/mixed.pgn
"""

import sys
from typing import Dict, List, Mapping, Optional

import pgnfen
from pgnfen.types import CheckProblem, Stats


def errors_by_code(paths: List[str]) -> Dict[str, List[CheckProblem]]:
    """The errors of the archives, grouped by problem code."""
    found: Dict[str, List[CheckProblem]] = {}
    for problem in pgnfen.check(*paths):
        found.setdefault(problem["code"], []).append(problem)
    return found


def chess960_positions(paths: List[str]) -> Dict[int, int]:
    """Games per Chess960 start position number."""
    counts: Dict[int, int] = {}
    for game in pgnfen.games(*paths):
        position: Optional[int] = game.chess960_position
        if game.class_ == "chess960" and position is not None:
            counts[position] = counts.get(position, 0) + 1
    return counts


def chess960_players(paths: List[str]) -> Dict[str, int]:
    """Chess960 games per player, White or Black: two tags of each game,
    read through ``tags`` without making a dict of its header."""
    counts: Dict[str, int] = {}
    for game in pgnfen.games(*paths):
        if game.class_ != "chess960":
            continue
        tags: Mapping[str, str] = game.tags
        for side in ("White", "Black"):
            name = tags.get(side, "?")
            counts[name] = counts.get(name, 0) + 1
    return counts


def games_per_speed(paths: List[str]) -> Dict[str, int]:
    """Games per speed, from the rows of ``scan`` (a pyarrow
    ``RecordBatchReader``: typed when pyarrow-stubs is installed)."""
    counts: Dict[str, int] = {}
    for batch in pgnfen.scan(*paths, tags=["TimeControl"]):
        for speed in batch.column("speed").to_pylist():
            name = speed if isinstance(speed, str) else "unknown"
            counts[name] = counts.get(name, 0) + 1
    return counts


def main(paths: List[str]) -> int:
    stats: Stats = pgnfen.stats(*paths)
    print(f"{stats['games']} games, {stats['classes']['chess960']} Chess960")
    for code, problems in sorted(errors_by_code(paths).items()):
        first = problems[0]
        print(f"{code}: {len(problems)} (first: {first['file']}:{first['line']})")
    for position, count in sorted(chess960_positions(paths).items()):
        print(f"position {position}: {count}")
    players = sorted(chess960_players(paths).items(), key=lambda p: (-p[1], p[0]))
    for name, count in players[:3]:
        print(f"{name}: {count} Chess960 games")
    for speed, count in sorted(games_per_speed(paths).items()):
        print(f"{speed}: {count}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:] or ["samples/mixed.pgn"]))
