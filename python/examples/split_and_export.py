"""Splits archives by class into a folder and exports their headers, with the
errors a script should expect.

    python python/examples/split_and_export.py samples/mixed.pgn out/
"""

import os
import sys
from typing import List

import pgnfen
from pgnfen.types import ExportCounts, SplitCounts


def run(paths: List[str], folder: str) -> int:
    os.makedirs(folder, exist_ok=True)
    try:
        written: SplitCounts = pgnfen.split(
            *paths, template=os.path.join(folder, "{class}.pgn.zst")
        )
        counts: ExportCounts = pgnfen.export(
            *paths, output=os.path.join(folder, "headers.csv"), tags=["White", "Black"]
        )
    except pgnfen.UsageError as e:  # a bad argument: nothing was written
        print(f"usage: {e}", file=sys.stderr)
        return 2
    except pgnfen.InputError as e:  # an input missing or unreadable, an output unwritable
        print(f"error: {e}", file=sys.stderr)
        return 1
    for path, games in written.items():
        print(f"{path}: {games} games")
    print(f"{counts['rows']} rows of {counts['games']} games exported")
    return 0


if __name__ == "__main__":
    args = sys.argv[1:] or ["samples/mixed.pgn", "out"]
    sys.exit(run(args[:-1], args[-1]))
