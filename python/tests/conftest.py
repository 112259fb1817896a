"""Shared fixtures: the repository, the CLI binary, the corpus files."""

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# The binary `cargo test --release` built (CARGO_TARGET_DIR moves it).
CLI = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target")) / "release" / "pgnfen"
# The test corpus lives outside the repository; PGNFEN_CORPUS names its folder.
# Without it the tests that need it are skipped (visibly, with that reason).
CORPUS = Path(os.environ.get("PGNFEN_CORPUS", "/nonexistent/PGNFEN_CORPUS-not-set"))
SAMPLES = ROOT / "samples"
TEST_DATA = ROOT / "tests" / "data"
needs_corpus = pytest.mark.skipif(not CORPUS.is_dir(), reason="needs PGNFEN_CORPUS")

# The first lines of a child script that a test interrupts with SIGINT. A
# process started in the background by a shell without job control (nohup,
# some CI runners) inherits SIGINT ignored, and Python then sets no handler of
# its own: the child restores it, so that the test is about pgnfen's handling.
RESTORE_SIGINT = "import signal\nsignal.signal(signal.SIGINT, signal.default_int_handler)\n"


def corpus_files():
    """Every PGN file of samples/ and tests/data/, and of the corpus when
    PGNFEN_CORPUS names it."""
    files = sorted(SAMPLES.glob("*.pgn"))
    files += sorted(TEST_DATA.glob("*.pgn")) + sorted((TEST_DATA / "edge").glob("*.pgn"))
    if CORPUS.is_dir():
        for sub in ("real", "generated", "generated/edge"):
            files += sorted(
                p for p in (CORPUS / sub).iterdir() if p.suffix in (".pgn", ".epd")
            )
    return files


def real_files():
    """The real-world files of the corpus (python-chess comparisons)."""
    if not CORPUS.is_dir():
        return []
    return sorted((CORPUS / "real").glob("*.pgn"))


def file_id(path):
    return str(path.relative_to(path.parents[1]))


def cli(*args, stdin=None):
    """Runs the CLI (the same build as the package); returns its stdout bytes."""
    if not CLI.exists():
        pytest.fail(f"{CLI} is missing: run `cargo build --release` first")
    out = subprocess.run(
        [str(CLI), "--no-progress", "--quiet", *map(str, args)],
        stdin=stdin,
        capture_output=True,
        check=False,
    )
    if out.returncode not in (0, 1):
        pytest.fail(f"pgnfen {' '.join(map(str, args))}: {out.stderr.decode()}")
    return out.stdout


@pytest.fixture(scope="session")
def zst_dir(tmp_path_factory):
    """A .zst copy of every corpus file, written as independent frames (as pzstd does)."""
    zstandard = pytest.importorskip("zstandard")
    out = tmp_path_factory.mktemp("zst")
    for path in corpus_files():
        data = path.read_bytes()
        cctx = zstandard.ZstdCompressor(level=1)
        half = len(data) // 2
        target = out / (path.parent.name + "-" + path.name + ".zst")
        target.write_bytes(cctx.compress(data[:half]) + cctx.compress(data[half:]))
    return out


def interrupted(child, after=None, sig=signal.SIGINT):
    """Sends `sig` to `child` (a `subprocess.Popen` of a script that prints
    "started" once under way) and waits for it to end: its exit code and the
    seconds it took after the signal. With `after`, first waits for
    "started" and that many seconds more, and checks that the child still
    runs (a signal to a child that already ended would prove nothing). The
    child is killed if it is still alive after 10 seconds, or if a check
    fails."""
    try:
        if after is not None:
            assert child.stdout.readline() == b"started\n", child.stderr.read().decode()
            time.sleep(after)
            assert child.poll() is None, child.stderr.read().decode()
        sent = time.monotonic()
        child.send_signal(sig)
        code = child.wait(timeout=10)
        return code, time.monotonic() - sent
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
