"""Counts the records of FEN/EPD books by class and lists the invalid ones.

    python python/examples/classify_book.py samples/positions.fen
"""

import sys
from collections import Counter
from typing import List

import pgnfen
from pgnfen.types import ClassName, FenRecordReport


def invalid_records(paths: List[str]) -> List[FenRecordReport]:
    """The records of the books that are not legal positions."""
    return [r for r in pgnfen.fen_records(*paths) if not r["valid"]]


def count_records(paths: List[str]) -> int:
    """How many records the books hold; the `with` block closes the
    iterator however it is left (a type checker knows that an exception
    raised in it goes on, so no return is missing after it)."""
    with pgnfen.fen_records(*paths) as records:
        return sum(1 for _ in records)


def main(paths: List[str]) -> int:
    classes: Counter[ClassName] = Counter()
    with pgnfen.fen_records(*paths) as records:
        for record in records:
            classes[record["class"]] += 1
    for name, count in classes.most_common():
        print(f"{name:10} {count}")
    print(f"{'total':10} {count_records(paths)}")
    for record in invalid_records(paths):
        problems = "; ".join(p["message"] for p in record["problems"])
        print(f"{record['file']}:{record['line']}: invalid: {record['input']}: {problems}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:] or ["samples/positions.fen"]))
