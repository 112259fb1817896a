"""What the corpus checks share: the program they run and the corpus folder.

BIN is the program `cargo build --release` built (CARGO_TARGET_DIR moves it;
a relative one is read from the repository), CORPUS the folder PGNFEN_CORPUS
names. `.ci/run` always gives the corpus, so a check without it cannot pass:
`require_corpus` ends the check with status 2 and says what to set.
"""

import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(ROOT, os.environ.get("CARGO_TARGET_DIR") or "target", "release", "pgnfen")
CORPUS = os.environ.get("PGNFEN_CORPUS", "")


def require_corpus(check):
    """Exits with status 2, saying why, unless PGNFEN_CORPUS names a folder."""
    if CORPUS and os.path.isdir(CORPUS):
        return
    where = f" ({CORPUS} is not a folder)" if CORPUS else ""
    print(f"{check}: needs the test corpus: set PGNFEN_CORPUS to its folder{where}; "
          "what it holds is in CONTRIBUTING.md, \"Tests that need the corpus\"", file=sys.stderr)
    sys.exit(2)
