"""The guarantees of the Python and Dask front ends (docs/python-guarantees.md):
Ctrl-C stops every long call, check() has bounded memory, paths may be bytes
or os.PathLike (and not UTF-8), and pgnfen.dask neither writes over its own
inputs nor mixes runs or changed files."""

import gzip
import os
import pathlib
import shutil
import signal
import subprocess
import sys
import textwrap
import time
import warnings

import pytest

import pgnfen

from conftest import RESTORE_SIGINT, SAMPLES, cli, interrupted

# A game whose header is a problem (SetUp without FEN): every game a finding.
PROBLEM_GAME = b'[SetUp "1"]\n\n*\n\n'
GAME = (
    b'[Event "e"]\n[Site "s"]\n[White "w"]\n[Black "b"]\n[Result "*"]\n'
    b'[SetUp "1"]\n[FEN "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1"]\n\n1... e5 *\n\n'
)


# ---- Ctrl-C into each long call ----

# The child feeds a named pipe with games for ever, so the call can only end
# by being interrupted; it prints when the call is under way and exits 42 on
# KeyboardInterrupt.
CHILD = RESTORE_SIGINT + textwrap.dedent(
    """
    import os, sys, threading, time
    import pgnfen
    fifo, call, out = sys.argv[1:4]
    slow = sys.argv[5] == "slow"
    # Fast: as fast as the call reads. Slow: a trickle (a few games every
    # 20 ms), so that a chunk is never filled while the call is under way.
    block = bytes.fromhex(sys.argv[4]) * (2 if slow else 4000)

    def feed():
        fd = os.open(fifo, os.O_WRONLY)
        try:
            while True:
                os.write(fd, block)
                if slow:
                    time.sleep(0.02)
        except OSError:
            pass

    threading.Thread(target=feed, daemon=True).start()
    print("started", flush=True)
    try:
        if call == "stats":
            pgnfen.stats(fifo)
        elif call == "check":
            for _ in pgnfen.check(fifo):
                pass
        elif call == "filter":
            pgnfen.filter(fifo, output=out, classes=["setup"], rest=out + ".rest")
        elif call == "convert":
            pgnfen.convert(fifo, output=out, to="shredder")
        elif call == "scan":
            for _ in pgnfen.scan(fifo):  # batch by batch: no stop handler of pyarrow
                pass
        elif call == "games":
            for _ in pgnfen.games(fifo):
                pass
        # Consumed by C code (`list`), which gives Python no moment of its
        # own to run the signal handler between items.
        elif call == "list(check)":
            list(pgnfen.check(fifo))
        elif call == "list(games)":
            list(pgnfen.games(fifo))
        elif call == "list(fen_records)":
            list(pgnfen.fen_records(fifo))
        elif call == "split":
            pgnfen.split(fifo, template=out + "-{class}.pgn")
        elif call == "export":
            pgnfen.export(fifo, output=out + ".csv")
        # bzip2, the slowest compressor: a whole batch of rows through it
        # took up to two seconds after Ctrl-C.
        elif call == "export.jsonl.bz2":
            pgnfen.export(fifo, output=out + ".jsonl.bz2")
    except KeyboardInterrupt:
        sys.exit(42)
    sys.exit(1)
    """
)

# A child that filters argv[1] into argv[2], prints "started" first and exits
# 42 on KeyboardInterrupt.
FILTER_CHILD = textwrap.dedent(
    """
    import sys
    import pgnfen
    print("started", flush=True)
    try:
        pgnfen.filter(sys.argv[1], output=sys.argv[2], classes=["setup"])
    except KeyboardInterrupt:
        sys.exit(42)
    sys.exit(1)
    """
)

CALLS = [
    "stats",
    "check",
    "filter",
    "convert",
    "scan",
    "games",
    "list(check)",
    "list(games)",
    "list(fen_records)",
    "export.jsonl.bz2",
]


def start_child(tmp_path, script_text, call, out, data, pace="fast"):
    """Runs `script_text` (CHILD or a variant) on a named pipe fed with `data`
    for ever; returns the child once `call` is under way."""
    fifo = tmp_path / "games.pgn"
    os.mkfifo(fifo)
    script = tmp_path / "child.py"
    script.write_text(script_text)
    child = subprocess.Popen(
        [sys.executable, str(script), str(fifo), call, str(out), data.hex(), pace],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert child.stdout.readline() == b"started\n"
    time.sleep(0.3)
    assert child.poll() is None, child.stderr.read().decode()
    return child


@pytest.mark.parametrize("pace", ["fast", "slow"])
@pytest.mark.parametrize("call", CALLS)
def test_sigint_stops_each_call_and_leaves_outputs_alone(call, pace, tmp_path):
    if call == "scan":
        pytest.importorskip("pyarrow")
    out = tmp_path / "out.pgn"
    out.write_bytes(b"an existing output\n")
    rest = tmp_path / "out.pgn.rest"
    rest.write_bytes(b"an existing rest\n")
    child = start_child(tmp_path, CHILD, call, out, GAME + PROBLEM_GAME, pace)
    code, elapsed = interrupted(child)
    assert code == 42, child.stderr.read().decode()
    # Half a second is the promise; the margin is for a loaded test machine.
    assert elapsed < 1.0, elapsed
    # The existing outputs are untouched and no temporary file is left.
    assert out.read_bytes() == b"an existing output\n"
    assert rest.read_bytes() == b"an existing rest\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["child.py", "games.pgn", "out.pgn", "out.pgn.rest"]


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
@pytest.mark.parametrize("call", ["filter", "convert", "split", "export"])
def test_sigterm_and_sighup_remove_temporaries_and_end_the_process_by_them(call, sig, tmp_path):
    # Python leaves both to their default action, which ends the process at
    # once: the call's temporary files must go first, and the process must
    # still end by the signal.
    out = tmp_path / "out.pgn"
    out.write_bytes(b"an existing output\n")
    # As a program started from a terminal has them: a test run under
    # `nohup` (or in the background) would pass SIGHUP on ignored.
    script = (
        "import signal\n"
        f"signal.signal(signal.Signals({int(sig)}), signal.SIG_DFL)\n"
        + CHILD
    )
    child = start_child(tmp_path, script, call, out, GAME + PROBLEM_GAME)
    code, _ = interrupted(child, sig=sig)
    assert code == -sig, child.stderr.read().decode()
    assert out.read_bytes() == b"an existing output\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["child.py", "games.pgn", "out.pgn"]


# Preloaded into the child: a `read` of the file named by HANG_PATH never
# returns, as on a file system that hangs (every other read is the real one).
HANGING_READ = textwrap.dedent(
    """
    #define _GNU_SOURCE
    #include <dlfcn.h>
    #include <limits.h>
    #include <stdio.h>
    #include <stdlib.h>
    #include <string.h>
    #include <unistd.h>

    ssize_t read(int fd, void *buf, size_t count) {
        static ssize_t (*real)(int, void *, size_t);
        if (!real)
            real = (ssize_t (*)(int, void *, size_t))dlsym(RTLD_NEXT, "read");
        const char *hang = getenv("HANG_PATH");
        char link[64], target[PATH_MAX];
        snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
        ssize_t n = hang ? readlink(link, target, sizeof target - 1) : -1;
        if (n > 0) {
            target[n] = 0;
            if (strcmp(target, hang) == 0)
                for (;;)
                    pause();
        }
        return real(fd, buf, count);
    }
    """
)


def hanging_input(tmp_path):
    """A gzip file of games (read with read(), never mapped) and the
    environment in which every read of it hangs."""
    gcc = shutil.which("gcc")
    if gcc is None:
        pytest.skip("needs gcc to build the hanging read")
    (tmp_path / "hang.c").write_text(HANGING_READ)
    shim = tmp_path / "hang.so"
    subprocess.run([gcc, "-shared", "-fPIC", "-o", shim, tmp_path / "hang.c", "-ldl"], check=True)
    games = tmp_path / "games.pgn.gz"
    games.write_bytes(gzip.compress(GAME * 10_000, compresslevel=1))
    return games, dict(os.environ, LD_PRELOAD=str(shim), HANG_PATH=str(games.resolve()))


def ctrl_c_while_a_read_hangs(tmp_path, script_text, args, env):
    """Runs `script_text` (which prints "started", then exits 42 on
    KeyboardInterrupt) with `args` in `env` (hanging_input's), sends it
    Ctrl-C half a second after it started, and checks that it ended by the
    exception within the promise; returns the ended child."""
    script = tmp_path / "child.py"
    script.write_text(RESTORE_SIGINT + script_text)
    child = subprocess.Popen(
        [sys.executable, str(script), *map(str, args)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    code, elapsed = interrupted(child, after=0.5)
    assert code == 42, child.stderr.read().decode()
    # Half a second is the promise; the margin is for a loaded test machine.
    assert elapsed < 1.5, elapsed
    return child


# A child that runs one call (argv[2]) on the file argv[1] with its outputs
# in the folder argv[3]. On KeyboardInterrupt it prints what that folder holds
# before it exits (so that what is gone was removed by the call, not by the
# process's end), and that a second call still works.
HANGING_CALL_CHILD = textwrap.dedent(
    """
    import os, sys
    import pgnfen
    games, call, folder = sys.argv[1:4]
    out = os.path.join(folder, "out.pgn")
    calls = {
        "stats": lambda: pgnfen.stats(games),
        "filter": lambda: pgnfen.filter(games, output=out, classes=["setup"], rest=out + ".rest"),
        "convert": lambda: pgnfen.convert(games, output=out, to="shredder"),
        "split": lambda: pgnfen.split(games, template=os.path.join(folder, "made", "{class}.pgn")),
        "export": lambda: pgnfen.export(games, output=os.path.join(folder, "out.parquet")),
    }
    print("started", flush=True)
    try:
        calls[call]()
    except KeyboardInterrupt:
        print(sorted(os.listdir(folder)), flush=True)
        print(pgnfen.stats(sys.argv[4])["games"], flush=True)
        sys.exit(42)
    sys.exit(1)
    """
)


@pytest.mark.parametrize("call", ["stats", "filter", "convert", "split", "export"])
def test_ctrl_c_stops_a_call_whose_read_hangs(call, tmp_path):
    # A run stuck in a read that never returns (a file system whose server
    # went away) cannot stop: after a moment the call removes its temporary
    # outputs and raises without it, where it waited for the read for ever.
    if call == "export":
        pytest.importorskip("pyarrow")
    games, env = hanging_input(tmp_path)
    folder = tmp_path / "outputs"
    folder.mkdir()
    (folder / "out.pgn").write_bytes(b"an existing output\n")
    (folder / "out.pgn.rest").write_bytes(b"an existing rest\n")
    other = tmp_path / "other.pgn"
    other.write_bytes(GAME * 3)
    child = ctrl_c_while_a_read_hangs(tmp_path, HANGING_CALL_CHILD, [games, call, folder, other], env)
    left, games_counted = child.stdout.read().decode().splitlines()
    # No temporary file, no folder made for split's outputs, and the
    # existing outputs untouched.
    assert left == "['out.pgn', 'out.pgn.rest']"
    assert (folder / "out.pgn").read_bytes() == b"an existing output\n"
    assert (folder / "out.pgn.rest").read_bytes() == b"an existing rest\n"
    assert games_counted == "3"


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
def test_sigterm_and_sighup_end_a_call_whose_read_hangs(sig, tmp_path):
    # The call's run is stuck in its read with its temporary output made:
    # SIGTERM or SIGHUP must still remove that file and end the process by
    # the signal.
    games, env = hanging_input(tmp_path)
    out = tmp_path / "out.pgn"
    out.write_bytes(b"an existing output\n")
    script = tmp_path / "child.py"
    script.write_text(
        f"import signal\nsignal.signal(signal.Signals({int(sig)}), signal.SIG_DFL)\n"
        + FILTER_CHILD
    )
    child = subprocess.Popen(
        [sys.executable, str(script), str(games), str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )

    def temporaries():
        return [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")]

    try:
        assert child.stdout.readline() == b"started\n", child.stderr.read().decode()
        deadline = time.monotonic() + 10
        while not temporaries() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert temporaries(), "the call made its temporary output"
    except BaseException:
        child.kill()
        child.wait()
        raise
    code, _ = interrupted(child, sig=sig)
    assert code == -sig, child.stderr.read().decode()
    assert out.read_bytes() == b"an existing output\n"
    assert temporaries() == []


@pytest.mark.parametrize("kind", ["games", "check", "fen_records", "scan"])
def test_ctrl_c_stops_an_iterator_whose_read_hangs(kind, tmp_path):
    # An iterator has no output to drop: Ctrl-C waits a moment for its run
    # to stop and then raises without it (the run's threads end once the
    # read returns), where it waited for the read for ever.
    if kind == "scan":
        pytest.importorskip("pyarrow")
    games, env = hanging_input(tmp_path)
    script = (
        "import sys\n"
        + "import pgnfen\n"
        + "print('started', flush=True)\n"
        + "try:\n"
        + f"    for _ in pgnfen.{kind}(sys.argv[1]):\n"
        + "        pass\n"
        + "except KeyboardInterrupt:\n"
        + "    print('stopped', flush=True)\n"
        + "    sys.exit(42)\n"
        + "sys.exit(1)\n"
    )
    ctrl_c_while_a_read_hangs(tmp_path, script, [games], env)


FORK_DURING_A_CALL = textwrap.dedent(
    """
    import os, signal, sys, threading, time
    import pgnfen
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    fifo, out = sys.argv[1:3]
    game = bytes.fromhex(sys.argv[3]) * 4000

    def feed():
        fd = os.open(fifo, os.O_WRONLY)
        try:
            while True:
                os.write(fd, game)
        except OSError:
            pass

    threading.Thread(target=feed, daemon=True).start()
    call = lambda: pgnfen.filter(fifo, output=out, classes=["setup"])
    threading.Thread(target=call, daemon=True).start()
    time.sleep(0.3)
    pid = os.fork()
    if pid == 0:
        # A worker of multiprocessing, say: no call of its own runs here.
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(5)
        os._exit(3)
    _, status = os.waitpid(pid, 0)
    print(os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGTERM, flush=True)
    os._exit(0)
    """
)


def test_a_process_forked_during_a_call_ends_on_sigterm(tmp_path):
    # The child of a fork inherits the call's handler but not the call that
    # polls for it: it must start with the default action back.
    fifo = tmp_path / "games.pgn"
    os.mkfifo(fifo)
    script = tmp_path / "fork.py"
    script.write_text(FORK_DURING_A_CALL)
    out = subprocess.run(
        [sys.executable, str(script), str(fifo), str(tmp_path / "out.pgn"), GAME.hex()],
        capture_output=True,
        timeout=30,
    )
    assert out.stdout == b"True\n", out.stderr.decode()


ZST_AFTER_A_FORK = textwrap.dedent(
    """
    import os, sys
    import pgnfen
    src, out = sys.argv[1:3]
    pgnfen.filter(src, output=out + "/parent.pgn.zst", classes=["standard"])
    pid = os.fork()
    if pid == 0:
        # multiprocessing's way: the parent's compression threads are not here.
        pgnfen.filter(src, output=out + "/child.pgn.zst", classes=["standard"])
        os._exit(0)
    _, status = os.waitpid(pid, 0)
    print(os.WEXITSTATUS(status), flush=True)
    """
)


def test_a_forked_child_writes_zst_outputs_of_its_own(tmp_path):
    # The `.zst` compression threads are the process's: a child made by fork
    # has none of them, and must start its own rather than wait for them.
    script = tmp_path / "fork.py"
    script.write_text(ZST_AFTER_A_FORK)
    src = tmp_path / "games.pgn"
    src.write_bytes((SAMPLES / "mixed.pgn").read_bytes() * 2000)
    out = subprocess.run(
        [sys.executable, str(script), str(src), str(tmp_path)],
        capture_output=True,
        timeout=60,
    )
    assert out.stdout == b"0\n", out.stderr.decode()
    assert (tmp_path / "child.pgn.zst").read_bytes() == (tmp_path / "parent.pgn.zst").read_bytes()


def test_a_handler_of_the_program_for_sigterm_is_left_alone(tmp_path):
    # The program's own handler runs (at the call's next look for signals)
    # and its exception stops the call, as Ctrl-C's does.
    script = CHILD.replace(
        "import pgnfen\n",
        "import pgnfen, signal\n"
        "def _stop(*_):\n    raise KeyboardInterrupt\n"
        "signal.signal(signal.SIGTERM, _stop)\n",
    )
    child = start_child(tmp_path, script, "filter", tmp_path / "out.pgn", GAME)
    try:
        child.send_signal(signal.SIGTERM)
        code = child.wait(timeout=10)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert code == 42, child.stderr.read().decode()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["child.py", "games.pgn"]




def test_sigint_stops_an_export_to_bzip2_between_rows_not_batches(tmp_path):
    # A regular file, read as fast as it can be: the run is ahead of the
    # writer, whose batches (16,384 rows) each took one to two seconds
    # through bzip2 after Ctrl-C before the flag was looked at again.
    games = tmp_path / "games.pgn"
    games.write_bytes(GAME * 250_000)
    script = tmp_path / "child.py"
    script.write_text(
        RESTORE_SIGINT
        + "import sys\n"
        + "import pgnfen\n"
        + "print('started', flush=True)\n"
        + "try:\n"
        + "    pgnfen.export(sys.argv[1], output=sys.argv[2])\n"
        + "except KeyboardInterrupt:\n"
        + "    sys.exit(42)\n"
        + "sys.exit(1)\n"
    )
    out = tmp_path / "rows.jsonl.bz2"
    child = subprocess.Popen(
        [sys.executable, str(script), str(games), str(out)], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    code, elapsed = interrupted(child, after=1.0)
    assert code == 42, child.stderr.read().decode()
    assert elapsed < 0.7, elapsed
    assert sorted(p.name for p in tmp_path.iterdir()) == ["child.py", "games.pgn"]


def test_sigint_stops_a_filter_to_xz_between_slices_not_chunks(tmp_path):
    # A regular file, read faster than xz compresses: the merger handed a
    # whole chunk (up to 4 MiB) to the encoder in one call, which took xz up
    # to a second, and looked at the flag only after it.
    # Comments of random hex, which xz compresses slowly (copies of one game
    # it compressed at once).
    games = tmp_path / "games.pgn"
    with open(games, "wb") as f:
        for _ in range(60_000):
            f.write(GAME[:-3] + b" {" + os.urandom(200).hex().encode() + b"} *\n\n")
    script = tmp_path / "child.py"
    script.write_text(
        RESTORE_SIGINT
        + FILTER_CHILD
    )
    out = tmp_path / "kept.pgn.xz"
    child = subprocess.Popen(
        [sys.executable, str(script), str(games), str(out)], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    code, elapsed = interrupted(child, after=1.0)
    assert code == 42, child.stderr.read().decode()
    assert elapsed < 0.5, elapsed
    assert sorted(p.name for p in tmp_path.iterdir()) == ["child.py", "games.pgn"]


# A call that waits on another program: a named pipe nobody writes or opens,
# one nobody reads, or standard output into a pipe nobody empties. A read or
# write that blocks could not be taken back; the run waits with poll instead.
BLOCKED = RESTORE_SIGINT + textwrap.dedent(
    """
    import os, sys
    import pgnfen
    how, fifo, games, out = sys.argv[1:5]
    if how == "output pipe nobody reads":
        # The read end stays open and is never read: the pipe fills.
        os.mkfifo(fifo)
        keep = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    elif how == "standard output nobody empties":
        print("started", flush=True)
        read_end, write_end = os.pipe()
        os.dup2(write_end, 1)
    else:
        os.mkfifo(fifo)
    if how != "standard output nobody empties":
        print("started", flush=True)
    try:
        if how == "input pipe nobody opens":
            pgnfen.stats(fifo)
        elif how == "input pipe nobody opens, iterated":
            for _ in pgnfen.games(fifo):
                pass
        elif how == "book pipe nobody opens":
            for _ in pgnfen.fen_records(fifo):
                pass
        elif how == "input pipe that gives nothing":
            keep = os.open(fifo, os.O_RDWR)  # a writer that never writes
            pgnfen.convert(fifo, output=out, to="shredder")
        elif how in ("output pipe nobody opens", "output pipe nobody reads"):
            pgnfen.filter(games, output=fifo, classes=["setup"], rest=out)
        elif how == "standard output nobody empties":
            pgnfen.convert(games, output="-", to="shredder")
    except KeyboardInterrupt:
        sys.exit(42)
    sys.exit(1)
    """
)


@pytest.mark.parametrize(
    "how",
    [
        "input pipe nobody opens",
        "input pipe nobody opens, iterated",
        "book pipe nobody opens",
        "input pipe that gives nothing",
        "output pipe nobody opens",
        "output pipe nobody reads",
        "standard output nobody empties",
    ],
)
def test_sigint_stops_a_call_waiting_on_a_pipe(how, tmp_path):
    games = tmp_path / "games.pgn"
    games.write_bytes(GAME * 20_000)  # far more than a pipe holds
    out = tmp_path / "rest.pgn"
    script = tmp_path / "child.py"
    script.write_text(BLOCKED)
    child = subprocess.Popen(
        [sys.executable, str(script), how, str(tmp_path / "pipe"), str(games), str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    code, elapsed = interrupted(child, after=0.7)
    assert code == 42, child.stderr.read().decode()
    assert elapsed < 0.5, elapsed
    # No temporary file (the rest's) is left.
    assert sorted(p.name for p in tmp_path.iterdir()) == ["child.py", "games.pgn", "pipe"][
        : 3 if how != "standard output nobody empties" else 2
    ]


@pytest.mark.parametrize(
    "how",
    ["filter on a daemon thread", "games on a daemon thread", "filter on a thread the main one joins"],
)
def test_a_call_on_another_thread_when_the_program_ends(how, tmp_path):
    # Python runs signal handlers on its main thread only, and ends with a
    # call still running on another one: a daemon thread, or Ctrl-C while
    # the main thread joins. The call's temporary files must go, and the
    # thread must not take the GIL after finalization began (pthread_exit's
    # unwinding through the extension aborted the process: "FATAL:
    # exception not rethrown", status 134).
    games = tmp_path / "games.pgn"
    games.write_bytes(GAME * 100_000)
    work = {
        "filter": "pgnfen.filter(*[sys.argv[1]] * 40, output=sys.argv[2], rest=sys.argv[3], "
        "classes=['standard'], threads=1)",
        "games": "[g.headers for g in pgnfen.games(*[sys.argv[1]] * 40)]",
    }[how.split()[0]]
    daemon = "daemon" in how
    script = tmp_path / "child.py"
    script.write_text(
        RESTORE_SIGINT
        + "import sys, threading, time\n"
        + "import pgnfen\n"
        + f"t = threading.Thread(target=lambda: {work}, daemon={daemon})\n"
        + "t.start()\n"
        + "time.sleep(0.3)\n"
        + "print('started', flush=True)\n"
        + ("time.sleep(0.3)\n" if daemon else "t.join()\n")
    )
    out, rest = tmp_path / "kept.pgn", tmp_path / "rest.pgn"
    child = subprocess.Popen(
        [sys.executable, str(script), str(games), str(out), str(rest)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    if daemon:
        assert child.stdout.readline() == b"started\n"
        code = child.wait(timeout=30)
        expected = 0
    else:
        code, _ = interrupted(child, after=0.1)
        expected = -signal.SIGINT
    stderr = child.stderr.read().decode()
    assert code == expected, stderr
    assert "FATAL" not in stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["child.py", "games.pgn"]


# ---- notes: warnings ----


def test_an_input_without_a_tag_line_is_an_input_warning_in_every_call(tmp_path):
    binary = tmp_path / "program.bin"
    binary.write_bytes(bytes(range(256)) * 40)
    calls = [
        lambda: pgnfen.stats(binary),
        lambda: list(pgnfen.check(binary)),
        lambda: list(pgnfen.games(binary)),
        lambda: pgnfen.filter(binary, output=tmp_path / "o.pgn", classes=["standard"]),
        lambda: pgnfen.convert(binary, output=tmp_path / "c.pgn", to="xfen"),
        lambda: pgnfen.split(binary, template=tmp_path / "{class}.pgn"),
        lambda: pgnfen.export(binary, output=tmp_path / "h.csv"),
    ]
    for call in calls:
        with pytest.warns(pgnfen.InputWarning, match=r"program\.bin: no PGN tag line found"):
            call()
    # A PGN file gives none.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pgnfen.stats(SAMPLES / "mixed.pgn")
        list(pgnfen.games(SAMPLES / "mixed.pgn"))
    # The warnings module decides: as errors, the first is raised.
    with warnings.catch_warnings():
        warnings.simplefilter("error", pgnfen.InputWarning)
        with pytest.raises(pgnfen.InputWarning):
            pgnfen.stats(binary)


def test_an_empty_input_is_warned_about_as_holding_no_game(tmp_path):
    # No tag line is found in it either (an empty download, a wrong path).
    empty = tmp_path / "empty.pgn"
    empty.write_bytes(b"")
    blank = tmp_path / "blank.pgn"
    blank.write_bytes(b"\n  \r\n\n")
    for path in (empty, blank):
        with pytest.warns(pgnfen.InputWarning, match=rf"{path.name}: no PGN tag line found \(it holds no text, so no game\)"):
            assert pgnfen.stats(path)["games"] == 0
        with pytest.warns(pgnfen.InputWarning, match=rf"{path.name}: no PGN tag line found"):
            assert list(pgnfen.games(path)) == []


def test_a_call_gives_only_its_own_warnings(tmp_path):
    # A stream's warning waits for that stream: another call made meanwhile
    # (on this thread or another) neither gives nor swallows it.
    binary = tmp_path / "program.bin"
    binary.write_bytes(bytes(range(256)) * 40)
    games = pgnfen.games(binary, SAMPLES / "mixed.pgn")
    first = next(games)
    assert first.file.endswith("program.bin")
    time.sleep(0.3)  # the run is past the binary file: its note is kept
    with warnings.catch_warnings():
        warnings.simplefilter("error", pgnfen.InputWarning)
        pgnfen.stats(SAMPLES / "mixed.pgn")
        list(pgnfen.check(SAMPLES / "mixed.pgn"))
    with pytest.warns(pgnfen.InputWarning, match=r"program\.bin: no PGN tag line found"):
        rest = list(games)
    assert len(rest) == pgnfen.stats(SAMPLES / "mixed.pgn")["games"]


def test_a_tag_no_game_held_is_an_input_warning_in_every_selecting_call(tmp_path):
    # A misspelled name selects nothing (or everything, for != and !~) and
    # says nothing else: as on the command line, a warning after the run
    # names the tag and the closest name the inputs hold.
    mixed = SAMPLES / "mixed.pgn"
    calls = [
        ("tags=", lambda: pgnfen.stats(mixed, tags=["event~a"])),
        ("tags=", lambda: pgnfen.filter(mixed, output=tmp_path / "o.pgn", tags=["event~a"])),
        ("tags=", lambda: pgnfen.split(mixed, template=tmp_path / "{class}.pgn", tags=["event~a"])),
        ("where=", lambda: pgnfen.export(mixed, output=tmp_path / "h.csv", where=["event~a"])),
        # pyarrow is one of the test extra's packages.
        ("where=", lambda: pgnfen.scan(mixed, where=["event~a"]).read_all()),
    ]
    for named_by, call in calls:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            call()
        given = [str(w.message) for w in caught if issubclass(w.category, pgnfen.InputWarning)]
        assert given == [
            f"no game held the tag event named by {named_by} (tag names are case-sensitive); did you mean Event?"
        ], (named_by, given)
    # A tag some game held, or a name near none the inputs hold.
    with warnings.catch_warnings():
        warnings.simplefilter("error", pgnfen.InputWarning)
        assert pgnfen.stats(mixed, tags=["Event~a", "Event!=x"])["games"] > 0
    with pytest.warns(pgnfen.InputWarning, match=r"the tag Xyzzy named by tags= \(tag names are case-sensitive\)$"):
        assert pgnfen.stats(mixed, tags=["Xyzzy!=1"])["unmatched"] == 0


def test_a_fen_that_convert_leaves_unchanged_is_an_input_warning(tmp_path):
    pgn = tmp_path / "inner.pgn"
    pgn.write_bytes(
        b'[Event "x"]\n[Variant "Chess960"]\n[SetUp "1"]\n'
        b'[FEN "rn2k1r1/ppp1pp1p/3p2p1/5bn1/P7/2N2B2/1PPPPP2/2BNK1RR w Gkq - 4 11"]\n\n*\n'
    )
    with pytest.warns(pgnfen.InputWarning, match=r"inner\.pgn:4:.*lossy-castling.*FEN left unchanged"):
        counts = pgnfen.convert(pgn, output=tmp_path / "o.pgn", to="fen")
    assert counts["unchanged"] == 1


# ---- check(): lazy, bounded memory ----


def test_check_is_a_lazy_iterator_that_stops_when_left(tmp_path):
    path = tmp_path / "problems.pgn"
    path.write_bytes(PROBLEM_GAME * 1000)
    problems = pgnfen.check(path)
    assert iter(problems) is problems
    first = next(problems)
    assert first["game"] == 1 and first["code"] and first["file"] == str(path)
    problems.close()
    assert list(problems) == []
    with pgnfen.check(path) as problems:
        assert len(list(problems)) == 1000 - 0
    assert list(pgnfen.check(path)) == list(pgnfen.check(str(path), threads=1))


def test_check_memory_is_bounded_on_a_file_dense_with_problems(tmp_path):
    path = tmp_path / "dense.pgn"
    path.write_bytes(PROBLEM_GAME * (20_000_000 // len(PROBLEM_GAME)))
    code = textwrap.dedent(
        """
        import sys, pgnfen
        n = 0
        for p in pgnfen.check(sys.argv[1]):
            n += 1
        # The peak of this process's own memory (getrusage's ru_maxrss would
        # also count the test process it was forked from).
        peak = [l for l in open("/proc/self/status") if l.startswith("VmHWM:")][0]
        print(n, peak.split()[1])
        """
    )
    out = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, check=True)
    count, rss_kib = map(int, out.stdout.split())
    assert count == 20_000_000 // len(PROBLEM_GAME)
    assert rss_kib < 100 * 1024, f"{rss_kib} KiB"


def test_games_memory_is_bounded_on_tiny_games_that_are_all_problems(tmp_path):
    # 11 bytes a game, each with a problem: a chunk of the input holds 95,000
    # games, which took batches of 50 MB and a loop to 500 MiB before the
    # batches were cut by weight.
    path = tmp_path / "tiny.pgn"
    path.write_bytes(b'[FEN "x"]\n\n' * 1_000_000)
    code = textwrap.dedent(
        """
        import sys, pgnfen, warnings
        warnings.simplefilter("ignore")
        n = 0
        for g in pgnfen.games(sys.argv[1]):
            n += len(g.problems)
        peak = [l for l in open("/proc/self/status") if l.startswith("VmHWM:")][0]
        print(n, peak.split()[1])
        """
    )
    out = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, check=True)
    count, rss_kib = map(int, out.stdout.split())
    assert count >= 1_000_000
    assert rss_kib < 100 * 1024, f"{rss_kib} KiB"


def test_fen_records_memory_is_bounded_on_a_book_of_short_invalid_records(tmp_path):
    # 12 bytes a record, each with a problem: a 256 KiB block holds 21,845
    # of them, whose dicts took the loop to 101-119 MiB while a whole
    # block was rendered before any was handed on.
    path = tmp_path / "junk.epd"
    path.write_bytes(b'[Event "b"]\n' * 2_000_000)
    code = textwrap.dedent(
        """
        import sys, pgnfen
        n = 0
        for r in pgnfen.fen_records(sys.argv[1]):
            n += not r["valid"]
        peak = [l for l in open("/proc/self/status") if l.startswith("VmHWM:")][0]
        print(n, peak.split()[1])
        """
    )
    out = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, check=True)
    count, rss_kib = map(int, out.stdout.split())
    assert count == 2_000_000
    assert rss_kib < 90 * 1024, f"{rss_kib} KiB"


# ---- paths: str, bytes, os.PathLike, not UTF-8 ----


def test_bytes_and_pathlike_paths_also_not_utf8(tmp_path):
    data = (SAMPLES / "standard.pgn").read_bytes() + GAME + PROBLEM_GAME
    raw = os.fsencode(tmp_path) + b"/caf\xe9.pgn"
    with open(raw, "wb") as f:
        f.write(data)
    text = os.fsdecode(raw)  # surrogate-escaped, as Python lists the name
    expected = pgnfen.stats(text)
    assert expected["games"] > 2
    for path in (raw, text, pathlib.Path(text), pathlib.PurePath(text)):
        assert pgnfen.stats(path) == expected
    assert list(pgnfen.check(raw)) != []
    assert [g.raw for g in pgnfen.games(raw)] == [g.raw for g in pgnfen.games(pathlib.Path(text))]
    out = os.fsencode(tmp_path) + b"/s\xe9tup.pgn"
    rest = os.fsencode(tmp_path) + b"/r\xe9st.pgn"
    counts = pgnfen.filter(raw, output=out, classes=["setup"], rest=rest)
    assert counts["kept"] == expected["classes"]["setup"] and counts["rest"] > 0
    assert open(out, "rb").read() + open(rest, "rb").read() != b""
    conv = os.fsencode(tmp_path) + b"/c\xe9.pgn"
    assert pgnfen.convert(pathlib.Path(text), output=conv, to="shredder")["games"] == expected["games"]
    assert os.path.exists(conv)
    with pytest.raises(TypeError):
        pgnfen.stats(42)


def test_a_name_that_is_not_utf8_is_given_back_as_its_original(tmp_path):
    # The library names inputs with text; what names an input in Python is
    # the str os.fsdecode makes of the original, which opens the file again.
    raw = os.fsencode(tmp_path) + b"/caf\xe9.pgn"
    with open(raw, "wb") as f:
        f.write(GAME + PROBLEM_GAME)
    text = os.fsdecode(raw)
    for given in (raw, text, pathlib.Path(text)):
        games = list(pgnfen.games(given))
        assert {g.file for g in games} == {text}
        assert open(games[0].file, "rb").read(len(games[0].raw)) == games[0].raw
        assert {p["file"] for g in games for p in g.problems} == {text}
        assert {p["file"] for p in pgnfen.check(given)} == {text}
    # The same lossy text for another original: the one given last names it.
    other = os.fsencode(tmp_path) + b"/caf\xe8.pgn"
    with open(other, "wb") as f:
        f.write(GAME)
    assert [g.file for g in pgnfen.games(other)] == [os.fsdecode(other)]
    # A missing file's error names it as given.
    missing = os.fsencode(tmp_path) + b"/no\xff.pgn"
    with pytest.raises(pgnfen.MissingFileError) as e:
        pgnfen.stats(missing)
    assert e.value.filename == os.fsdecode(missing)
    # A bare-FEN book's records.
    book = os.fsencode(tmp_path) + b"/b\xe9.epd"
    with open(book, "wb") as f:
        f.write(b"4k3/8/8/8/8/8/8/4K2R w K - id \"x\";\n")
    assert [r["file"] for r in pgnfen.fen_records(book)] == [os.fsdecode(book)]
    # A zip member keeps its member name after the original archive's.
    import zipfile

    archive = os.fsencode(tmp_path) + b"/z\xe9.zip"
    with zipfile.ZipFile(os.fsdecode(archive), "w") as z:
        z.writestr("in.pgn", GAME)
    assert [g.file for g in pgnfen.games(archive)] == [os.fsdecode(archive) + ":in.pgn"]


def test_a_name_shown_otherwise_is_given_back_as_given(tmp_path, monkeypatch):
    # Reports show a name with control characters escaped and `./` before a
    # leading `:` (no report line may start a GitHub command); Python gives
    # back the name as given, which opens the file again.
    monkeypatch.chdir(tmp_path)
    for raw in (b":\xff.pgn", b"a\nb.pgn", b":a.pgn", b" ::error::x.pgn"):
        with open(raw, "wb") as f:
            f.write(GAME + PROBLEM_GAME)
        text = os.fsdecode(raw)
        games = list(pgnfen.games(raw))
        assert {g.file for g in games} == {text}, raw
        assert open(games[0].file, "rb").read(len(games[0].raw)) == games[0].raw
        assert {p["file"] for p in pgnfen.check(text)} == {text}, raw


def test_bytes_paths_in_scan_and_dask_partitions(tmp_path):
    pytest.importorskip("pyarrow")
    raw = os.fsencode(tmp_path) + b"/n\xe9.pgn"
    with open(raw, "wb") as f:
        f.write(GAME * 3)
    assert pgnfen.scan(raw).read_all().num_rows == 3
    dask = pytest.importorskip("pgnfen.dask")
    parts = dask.partitions(raw, partition_size=1 << 20)
    assert len(parts) == 1 and os.fsencode(parts[0][0]) == raw


def test_a_worker_process_names_a_file_that_is_not_utf8_as_one_machine_does(tmp_path):
    # A worker in a process of its own never saw the client's path: its
    # errors named the file lossily ("b\ufffdd.pgn.gz"), where one machine
    # gives back the str that opens it again.
    dask = pytest.importorskip("pgnfen.dask")
    raw = os.fsencode(tmp_path) + b"/b\xe9d.pgn.gz"
    with open(raw, "wb") as f:
        f.write(b"\x1f\x8b\x08\x00" + b"\x00" * 20)  # gzip that cannot be read
    with pytest.raises(pgnfen.InputError) as one_machine:
        pgnfen.stats(raw)
    assert one_machine.value.filename == os.fsdecode(raw)
    (part,) = dask.partitions(raw, partition_size=1 << 20)
    worker = textwrap.dedent(
        """
        import pickle, sys
        from pgnfen import _pgnfen
        try:
            _pgnfen.partition_stats(pickle.loads(bytes.fromhex(sys.argv[1])), None, threads=1)
        except OSError as e:
            sys.stdout.buffer.write(pickle.dumps((e.filename, str(e))))
        """
    )
    import pickle

    out = subprocess.run(
        [sys.executable, "-c", worker, pickle.dumps(part).hex()], capture_output=True, check=True
    )
    filename, message = pickle.loads(out.stdout)
    assert filename == one_machine.value.filename
    assert message == str(one_machine.value)


# ---- pgnfen.dask ----


@pytest.fixture(scope="module")
def client():
    distributed = pytest.importorskip("dask.distributed")
    pytest.importorskip("pyarrow")
    pytest.importorskip("pandas")
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
    ) as cluster, distributed.Client(cluster) as client:
        yield client


def mixed(path, n=300):
    """Standard, Chess960 and setup games, about 280 bytes each."""
    games = []
    for i in range(n):
        if i % 3 == 0:
            games.append(
                f'[Event "c{i}"]\n[Variant "Chess960"]\n[SetUp "1"]\n'
                f'[FEN "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w HFhf - 0 1"]\n\n1. e4 *\n\n'
            )
        elif i % 3 == 1:
            games.append(f'[Event "s{i}"]\n[White "w"]\n[Black "b"]\n\n1. e4 e5 2. Nf3 *\n\n')
        else:
            games.append(GAME.decode())
    path.write_text("".join(games))
    return path


def test_dask_warns_about_a_file_that_is_not_utf8_in_one_machines_words(client, tmp_path):
    import pgnfen.dask

    raw = os.fsencode(tmp_path) + b"/caf\xe9.pgn"
    with open(raw, "wb") as f:
        f.write(b"no tag line here\n")
    with warnings.catch_warnings(record=True) as one_machine:
        warnings.simplefilter("always")
        pgnfen.stats(raw)
    with warnings.catch_warnings(record=True) as distributed:
        warnings.simplefilter("always")
        pgnfen.dask.stats([raw], client=client)
    words = [str(w.message) for w in one_machine]
    assert words and "\ufffd" in words[0]  # messages show such names lossily
    assert [str(w.message) for w in distributed] == words


def test_dask_filter_refuses_to_write_over_its_own_inputs(client, tmp_path):
    import pgnfen.dask

    src = mixed(tmp_path / "src.pgn")
    dref = tmp_path / "dref"
    n1 = pgnfen.dask.filter([src], dref, classes=["chess960", "standard"], client=client, partition_size=4 << 10)
    assert len(n1) > 3
    before = {p: open(p, "rb").read() for p in n1}
    # Refining an earlier output in place: every input is a part file there.
    with pytest.raises(ValueError, match="part file of the output folder"):
        pgnfen.dask.filter(n1, dref, classes=["chess960"], client=client, partition_size=2 << 10)
    # The same through another spelling of the folder and a link to a part.
    os.symlink(n1[1], tmp_path / "link.pgn")
    with pytest.raises(ValueError, match="part file"):
        pgnfen.dask.filter([tmp_path / "link.pgn"], str(dref) + "/./", classes=["chess960"], client=client)
    assert {p: open(p, "rb").read() for p in n1} == before
    # Into a fresh folder the same refinement works and keeps every game.
    n2 = pgnfen.dask.filter(n1, tmp_path / "refined", classes=["chess960"], client=client, partition_size=2 << 10)
    ref = tmp_path / "ref.pgn"
    pgnfen.filter(src, output=ref, classes=["chess960"])
    assert b"".join(open(p, "rb").read() for p in n2) == ref.read_bytes()


def test_dask_filter_output_folder_holds_exactly_the_runs_parts(client, tmp_path):
    import pgnfen.dask

    src = mixed(tmp_path / "src.pgn")
    out = tmp_path / "out"
    out.mkdir()
    (out / "notes.txt").write_text("not a part file")
    ref = tmp_path / "ref.pgn"
    pgnfen.filter(src, output=ref, classes=["chess960"])
    small = pgnfen.dask.filter([src], out, classes=["chess960"], client=client, partition_size=2 << 10)
    large = pgnfen.dask.filter([src], out, classes=["chess960"], client=client, partition_size=1 << 20)
    assert len(small) > len(large) == 1
    # The earlier run's parts are gone, other files stay, nothing is staged.
    assert sorted(os.listdir(out)) == sorted([os.path.basename(p) for p in large] + ["notes.txt"])
    assert b"".join(open(p, "rb").read() for p in sorted(out.glob("part-*.pgn"))) == ref.read_bytes()


def _mutate(how, path):
    data = path.read_bytes()
    if how == "append":
        with open(path, "ab") as f:
            f.write(GAME * 50)
    elif how == "truncate":
        with open(path, "r+b") as f:
            f.truncate(len(data) // 2)
    else:
        # Replaced: another file renamed over it (same size, another inode).
        other = path.with_name("other.pgn")
        other.write_bytes(data.replace(b"Event", b"Evenx"))
        os.replace(other, path)


@pytest.mark.parametrize("how", ["append", "truncate", "replace"])
def test_dask_run_on_a_file_changed_after_planning_is_an_error(client, tmp_path, monkeypatch, how):
    import pgnfen.dask

    src = mixed(tmp_path / "src.pgn")
    out = tmp_path / "out"
    first = pgnfen.dask.filter([src], out, classes=["chess960"], client=client, partition_size=4 << 10)
    kept = {p: open(p, "rb").read() for p in first}
    planned = pgnfen.dask.partitions

    def plan_then_change(*args, **kwargs):
        parts = planned(*args, **kwargs)
        _mutate(how, src)
        return parts

    monkeypatch.setattr(pgnfen.dask, "partitions", plan_then_change)
    mixed(src)
    with pytest.raises(OSError, match="changed during the Dask run"):
        pgnfen.dask.stats([src], client=client, partition_size=4 << 10)
    mixed(src)
    with pytest.raises(OSError, match="changed during the Dask run"):
        pgnfen.dask.filter([src], out, classes=["chess960"], client=client, partition_size=8 << 10)
    # The failed run left the earlier run's parts as they were.
    assert {p: open(p, "rb").read() for p in out.glob("part-*.pgn")} == {pathlib.Path(p): b for p, b in kept.items()}
    assert sorted(os.listdir(out)) == sorted(os.path.basename(p) for p in first)
    mixed(src)
    with pytest.raises(OSError, match="changed during the Dask run"):
        pgnfen.dask.read_headers([src], client=client, partition_size=4 << 10).compute()


def test_default_partition_size_gives_every_thread_two_partitions(client, tmp_path):
    import pgnfen.dask

    threads = sum(client.nthreads().values())
    src = tmp_path / "big.pgn"
    src.write_bytes(GAME * (6_000_000 // len(GAME)))
    size = pgnfen.dask.default_partition_size([src], client)
    assert size == -(-src.stat().st_size // (2 * threads))
    parts = pgnfen.dask.partitions([src], client=client)
    assert len(parts) >= 2 * threads
    assert pgnfen.dask.stats([src], client=client) == pgnfen.stats(src)


def test_default_partition_size_stays_within_bounds(tmp_path):
    import pgnfen.dask

    class Cluster:
        def __init__(self, threads):
            self.threads = threads

        def nthreads(self):
            return {f"w{i}": 1 for i in range(self.threads)}

    tiny = tmp_path / "tiny.pgn"
    tiny.write_bytes(GAME)
    assert pgnfen.dask.default_partition_size([tiny], Cluster(64)) == pgnfen.dask.MIN_PARTITION_SIZE
    huge = tmp_path / "huge.pgn"
    with open(huge, "wb") as f:
        f.truncate(10 << 30)  # sparse: 10 GiB on one thread
    assert pgnfen.dask.default_partition_size([huge], Cluster(1)) == pgnfen.dask.DEFAULT_PARTITION_SIZE
    assert pgnfen.dask.default_partition_size([huge], Cluster(64)) == (10 << 30) // 128


def test_read_headers_keeps_its_frame_partitions_small(client, tmp_path):
    # Each partition of read_headers' frame is a DataFrame a worker holds
    # whole: its default size stays within ROWS_PARTITION_SIZE (256 MiB of
    # input had made partitions of 240 to 340 MiB), where stats' default
    # would give 24 MiB partitions here.
    import pgnfen.dask

    src = tmp_path / "big.pgn"
    src.write_bytes(GAME * ((96 << 20) // len(GAME)))
    assert pgnfen.dask.default_partition_size([src], client) > pgnfen.dask.ROWS_PARTITION_SIZE
    df = pgnfen.dask.read_headers([src], client=client)
    assert df.npartitions == -(-src.stat().st_size // pgnfen.dask.ROWS_PARTITION_SIZE)
    assert len(df.partitions[df.npartitions - 1].compute()) > 0
    # Paths from a generator (Path.glob) are listed once, for the size and
    # the plan alike.
    df = pgnfen.dask.read_headers(tmp_path.glob("*.pgn"), client=client)
    assert df.npartitions == -(-src.stat().st_size // pgnfen.dask.ROWS_PARTITION_SIZE)


# ---- what a review of hostile use found (2026-11-29) ----


def test_a_str_no_file_name_can_be_is_a_usage_error_not_a_panic(tmp_path):
    bad = str(tmp_path / "x\ud800.pgn")
    mixed = SAMPLES / "mixed.pgn"
    calls = [
        lambda: pgnfen.stats(bad),
        lambda: list(pgnfen.games(bad)),
        lambda: list(pgnfen.fen_records(bad)),
        lambda: pgnfen.filter(mixed, output=bad),
        lambda: pgnfen.export(mixed, output=bad),
        lambda: pgnfen.split(mixed, template=bad + "{class}.pgn"),
    ]
    for call in calls:
        with pytest.raises(pgnfen.UsageError, match="not a possible file name"):
            call()
    assert not list(tmp_path.iterdir())


def test_tags_has_no_key_that_no_tag_can_be():
    game = next(pgnfen.games(SAMPLES / "mixed.pgn"))
    assert "\ud800" not in game.tags
    assert game.tags.get("\ud800") is None
    with pytest.raises(KeyError):
        game.tags["\ud800"]


def test_scan_all_tags_of_a_file_replaced_between_its_two_readings(tmp_path):
    path = tmp_path / "games.pgn"
    # More rows than the batches in flight hold: the second reading cannot
    # end before the loop takes its rows, so it ends after the rename.
    path.write_bytes(b"".join(b'[Event "old"]\n[White "w%d"]\n\n*\n\n' % i for i in range(300_000)))
    reader = pgnfen.scan(path, tags="all")
    new = tmp_path / "new.pgn"
    new.write_bytes(b"".join(b'[Event "new"]\n[Zebra "%d"]\n\n*\n\n' % i for i in range(5)))
    os.replace(new, path)
    with pytest.raises(OSError, match="changed between the reading of its tag names and of its rows"):
        reader.read_all()
    # Unchanged, the same call reads the file.
    assert pgnfen.scan(path, tags="all").read_all().column("Zebra").to_pylist() == [str(i) for i in range(5)]


def test_fen_records_stops_for_ctrl_c_inside_a_line_of_gigabytes(tmp_path):
    zeros = tmp_path / "zeros.epd"
    with open(zeros, "wb") as f:
        f.truncate(40 << 30)  # sparse: no disk used, one line of NUL bytes
    script = tmp_path / "child.py"
    script.write_text(
        RESTORE_SIGINT
        + "import sys, pgnfen\n"
        + "print('started', flush=True)\n"
        + "try:\n    list(pgnfen.fen_records(sys.argv[1]))\n"
        + "except KeyboardInterrupt:\n    sys.exit(42)\nsys.exit(1)\n"
    )
    child = subprocess.Popen([sys.executable, str(script), str(zeros)], stdout=subprocess.PIPE)
    assert child.stdout.readline() == b"started\n"
    time.sleep(0.5)
    sent = time.monotonic()
    child.send_signal(signal.SIGINT)
    try:
        code = child.wait(timeout=10)
    finally:
        child.kill()
    assert code == 42
    assert time.monotonic() - sent < 3


def test_an_iterator_read_by_two_threads_at_once_says_so(tmp_path):
    import threading

    fifo = tmp_path / "games.pgn"
    os.mkfifo(fifo)
    it = pgnfen.games(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(next(it, None)))
    writer = os.open(fifo, os.O_RDWR)  # keeps the pipe open: the reader waits
    reader.start()
    try:
        time.sleep(0.3)
        for call in (lambda: next(it), it.close, lambda: it.__exit__(None, None, None)):
            with pytest.raises(pgnfen.UsageError, match="being read by another thread"):
                call()
    finally:
        os.write(writer, b'[Event "a"]\n\n*\n\n')
        os.close(writer)
        reader.join(timeout=10)
    assert not reader.is_alive()
    assert [g.tags["Event"] for g in got] == ["a"]
    it.close()


# ---- an iterator in the child of a fork ----

# Opens each kind of iterator, takes one item, forks; the child uses its copy
# (next() must raise pgnfen.UsageError), closes it, then opens its own and
# exits through the interpreter's finalization (which drops every copy it
# inherited). Prints what the child saw; the parent's iterators go on.
ITERATOR_IN_A_FORK = RESTORE_SIGINT + textwrap.dedent(
    """
    import os, sys
    import pgnfen
    path, book = sys.argv[1:3]
    opened = {
        "games": pgnfen.games(path, path),
        "check": pgnfen.check(path, path),
        "fen_records": pgnfen.fen_records(book, book),
        "scan": pgnfen.scan_stream(path, path),
    }
    first = {name: (it.next_batch() if name == "scan" else next(it)) for name, it in opened.items()}
    # A stream handed over to Arrow before the fork: its reader is Arrow's.
    import pyarrow as pa
    handed = pa.RecordBatchReader.from_stream(pgnfen.scan_stream(path, path))
    handed.read_next_batch()
    pid = os.fork()
    if pid == 0:
        seen = []
        try:
            handed.read_next_batch()
            seen.append("handed:no error")
        except Exception as e:
            seen.append("handed:fork" if "os.fork()" in str(e) else "handed:" + str(e))
        del handed
        for name, it in opened.items():
            try:
                it.next_batch() if name == "scan" else next(it)
                seen.append(name + ":no error")
            except pgnfen.UsageError as e:
                seen.append(name + (":fork" if "os.fork()" in str(e) else ":" + str(e)))
        for name, it in opened.items():
            if name != "scan":
                it.close()
        own = sum(1 for _ in pgnfen.games(path))
        print(" ".join(seen), own, flush=True)
        sys.exit(0)
    _, status = os.waitpid(pid, 0)
    rest = {name: (sum(b.num_rows for b in iter(it.next_batch, None)) if name == "scan" else sum(1 for _ in it)) for name, it in opened.items()}
    print(os.waitstatus_to_exitcode(status), rest["games"], 1 + sum(1 for _ in handed), flush=True)
    """
)


def test_an_iterator_used_in_the_child_of_a_fork_raises_and_the_child_exits(tmp_path):
    pytest.importorskip("pyarrow")
    script = tmp_path / "fork.py"
    script.write_text(ITERATOR_IN_A_FORK)
    book = tmp_path / "book.epd"
    book.write_text("".join(f"{fen} id \"{i}\";\n" for i, fen in enumerate(["8/8/8/8/8/8/8/K6k w - -"] * 3)))
    out = subprocess.run(
        [sys.executable, str(script), str(SAMPLES / "mixed.pgn"), str(book)],
        capture_output=True,
        timeout=60,
    )
    games = len(list(pgnfen.games(SAMPLES / "mixed.pgn")))
    lines = out.stdout.decode().splitlines()
    assert lines == [
        f"handed:fork games:fork check:fork fen_records:fork scan:fork {games}",
        f"0 {2 * games - 1} 1",
    ], out.stderr.decode()
