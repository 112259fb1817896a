"""pgnfen on a Dask cluster: the same work as one machine, cut into partitions.

``pip install 'pgnfen[dask]'`` (``'./python[dask]'`` from a checkout). Each input is cut into partitions of about
``partition_size`` bytes as stored: byte ranges of a plain file, ranges of whole
frames of a zstd file written as several frames (``pzstd``, the lichess
database); a gzip, bzip2, one-frame zstd or zip input is one partition. A
partition owns the games that start in it and reads past its end to finish its
last game.

A partition cannot know where its first game starts without reading what
comes before it, so every partition first runs at once, guessing (the first
line beginning with ``[`` after a blank line). The results are then walked in
order: each partition's run reports where the game after its own starts, which
is where the next partition's first game truly starts; a partition whose guess
was wrong (a comment holding a blank line and a tag line, a game without a
blank line before it) is run again from the right place, or found to own no
game. So the results equal the one-machine run whatever the partitions: the
same counts, the same rows in the same order, and the ``filter`` outputs,
concatenated in order, byte for byte the output of ``pgnfen filter``.

The files must be readable at the same paths on every worker (a shared file
system), and ``filter``'s ``out_dir`` writable from every worker.

The partitions are planned from the files as they are when the call starts
(size, modification time, inode); every partition checks its file against
that before and after its work, so a file appended to, truncated or replaced
during the run is an ``OSError`` naming it, never a mix of two files.

``partition_size`` (bytes) defaults to a size chosen from the cluster: the
inputs' total size over twice the worker threads, so that every thread gets
at least two partitions, within ``MIN_PARTITION_SIZE`` (1 MiB) and
``DEFAULT_PARTITION_SIZE`` (256 MiB).

    import pgnfen.dask
    from dask.distributed import Client
    client = Client("scheduler:8786")           # or LocalCluster()
    pgnfen.dask.stats(paths)                    # dict, equal to pgnfen.stats(*paths)
    df = pgnfen.dask.read_headers(paths)        # dask.dataframe: the rows of `export`
    pgnfen.dask.filter(paths, "out/", classes=["chess960"])  # one file per partition
"""

import contextlib
import errno
import functools
import operator
import os
import re
import shutil
import signal
import stat
import threading
import uuid
import warnings

from . import _pgnfen
from ._errors import InputWarning, UsageError

#: The largest partition size chosen by default (and the size used when no
#: cluster is known): big enough that a partition's fixed costs vanish.
DEFAULT_PARTITION_SIZE = 256 << 20
#: The smallest partition size chosen by default: below it a partition costs
#: more in scheduling than in work.
MIN_PARTITION_SIZE = 1 << 20
#: Partitions per worker thread the default size aims at: two, so that a
#: thread whose partition ends early has another one to take.
PARTITIONS_PER_THREAD = 2
#: The largest partition size ``read_headers`` chooses by default: each
#: partition of its frame is a pandas DataFrame held whole in a worker's
#: memory, and 256 MiB of input made one of 240 to 340 MiB (the benchmark's
#: games, with Arrow's table it is built from). 16 MiB as stored is about 70
#: MB of PGN for a zstd file: a frame partition of about 60 to 120 MiB.
ROWS_PARTITION_SIZE = 16 << 20

__all__ = [
    "stats",
    "read_headers",
    "filter",
    "partitions",
    "default_partition_size",
    "DEFAULT_PARTITION_SIZE",
    "MIN_PARTITION_SIZE",
    "ROWS_PARTITION_SIZE",
]

# The part files ``filter`` writes (and owns) in its output folder.
_PART = re.compile(r"part-[0-9]+\.pgn\Z")


def _needs_dask(part):
    """Imports ``dask.<part>`` (``distributed`` for every call, ``dataframe``
    for ``read_headers``), or says how to install it."""
    import importlib

    try:
        importlib.import_module(f"dask.{part}")
    except ImportError as e:
        raise ImportError(f"pgnfen.dask needs dask.{part} ({e}): pip install 'pgnfen[dask]'") from e


def _client(client):
    if client is not None:
        return client
    _needs_dask("distributed")
    from dask.distributed import default_client

    try:
        return default_client()
    except ValueError as e:
        # Dask's "No clients found": a UsageError (still a ValueError), in
        # one line (Dask's own text, several, stays as the cause).
        raise UsageError(
            "pgnfen.dask needs a Dask client: pass client=, or start one first "
            "(from dask.distributed import Client; client = Client())"
        ) from e


def _paths(paths):
    """The paths as ``str`` (str, bytes or os.PathLike accepted; a name that is
    not UTF-8 becomes a str with surrogate escapes, which pickles to workers
    and gives back the same bytes)."""
    if isinstance(paths, (str, bytes, os.PathLike)):
        paths = [paths]
    paths = [os.fsdecode(os.fspath(p)) for p in paths]
    if not paths:
        raise UsageError("pgnfen.dask needs at least one path")
    for path in paths:
        _refuse_impossible_name(path)
    return paths


def _refuse_impossible_name(path):
    """A str no file name can be (a lone surrogate, a NUL byte): refused
    here, not as a UnicodeEncodeError or ValueError from a later call."""
    try:
        encoded = os.fsencode(path)
    except UnicodeEncodeError as e:
        raise UsageError(f"{path!r}: not a possible file name: {e}") from None
    if b"\0" in encoded:
        raise UsageError(f"{path!r}: not a possible file name: it holds a NUL byte")


def default_partition_size(paths, client=None):
    """The partition size used when none is given: the inputs' total size
    divided by ``PARTITIONS_PER_THREAD`` times the cluster's worker threads
    (so that every thread has work), rounded up and kept within
    ``MIN_PARTITION_SIZE`` and ``DEFAULT_PARTITION_SIZE``. Without a client
    (none given and no default one) it is ``DEFAULT_PARTITION_SIZE``.
    (``read_headers`` keeps its default within ``ROWS_PARTITION_SIZE``.)"""
    return _default_size(paths, client, DEFAULT_PARTITION_SIZE)


def _default_size(paths, client, largest):
    """``default_partition_size`` with ``largest`` as its upper bound."""
    if client is None:
        try:
            client = _client(None)
        except (ValueError, ImportError):
            return largest
    threads = max(1, sum(client.nthreads().values()))
    total = 0
    for path in _paths(paths):
        try:
            total += os.stat(path).st_size
        except OSError:
            pass  # the plan names the file in its error
    size = -(-total // (PARTITIONS_PER_THREAD * threads))
    return max(MIN_PARTITION_SIZE, min(largest, size))


def partitions(paths, partition_size=None, client=None):
    """The partitions of ``paths``: (path, kind, index, start, end, identity)
    tuples, in order; identity is what the file was when planned (size,
    modification time, device, inode). ``partition_size``: bytes, or None for
    ``default_partition_size(paths, client)``."""
    paths = _paths(paths)
    if partition_size is None:
        partition_size = default_partition_size(paths, client)
    return _pgnfen.partitions(paths, _partition_size(partition_size))


#: Sizes above this are one partition per file anyway.
_LARGEST_PARTITION_SIZE = (1 << 63) - 1


def _partition_size(value):
    """``partition_size`` as the whole number of bytes it must be: an int (a
    float, a str or a bool is refused rather than rounded: ``True`` or ``1.5``
    taken as 1 byte would make a task per byte), at least 1; a size larger
    than any file is one partition per file."""
    try:
        if isinstance(value, bool):
            raise TypeError
        size = operator.index(value)
    except TypeError:
        raise UsageError(
            f"partition_size must be a number of bytes, an int (got {value!r})"
        ) from None
    if size < 1:
        raise UsageError(f"partition_size must be at least 1 byte (got {value!r})")
    return min(size, _LARGEST_PARTITION_SIZE)


def _resolve(client, parts, run, discard=None):
    """Runs every partition speculatively on the cluster, then walks them in
    order and runs again (on the cluster) each one whose guess was wrong.

    ``run(slot, part, at, own_nothing)`` returns (outcome, result); ``slot``
    is (the partition's position in ``parts``, "guess" or "again"), so that
    a task that writes a file writes the two runs of a partition to two
    files. Returns, for each partition, (final outcome, result); the result
    of a partition that owns nothing is the one ``run`` gave with
    ``own_nothing=True``. ``discard(result)`` is called with each first
    result that a second run replaces (a file that is of no use any more).
    """
    futures = [client.submit(run, (i, "guess"), p, None, False, pure=False) for i, p in enumerate(parts)]
    try:
        return _walk(client, parts, futures, run, discard)
    except BaseException:
        # An error or Ctrl-C: the partitions still queued or running are of
        # no use any more (those run again too).
        client.cancel([f for f in futures if f is not None])
        raise


def _walk(client, parts, futures, run, discard):
    final = []
    previous = None

    def taken(i):
        # Each result is fetched once, then the future is let go: the
        # scheduler would otherwise run a finished task again when the worker
        # holding its result dies, and a task that writes a file would write
        # it again behind the walk's back.
        outcome, result = futures[i].result()
        futures[i].release()
        futures[i] = None
        return outcome, result

    def once_more(i, *args):
        futures[i] = client.submit(run, (i, "again"), parts[i], *args, pure=False)
        return taken(i)

    for i, part in enumerate(parts):
        outcome, result = taken(i)
        if part[2] == 0:
            previous = None
        verdict, value = _pgnfen.judge(previous, outcome)
        if verdict != "keep" and discard is not None:
            discard(result)
        if verdict == "redo":
            outcome, result = once_more(i, value, False)
        elif verdict == "empty":
            _, result = once_more(i, None, True)
            outcome = {
                "first": None,
                "next": value,
                "decoded_len": outcome["decoded_len"],
                "lines": 0,
                "games": 0,
            }
        final.append((outcome, result))
        previous = outcome
    return final


def _warn_as_one_machine(parts, resolved):
    """The warnings one machine gives as it reads, in input order, worded as
    there: the notes the workers' runs kept (about a zip's members, read
    whole by one partition), and about a file in which no tag line is found
    (a binary file, the wrong file named by mistake), once a file: when none of its partitions
    saw one."""

    def no_tag_line(path, seen, games):
        if seen:
            return
        if games == 0:
            why = " (it holds no text, so no game)"
        elif games > 1:
            why = f" (its {games} games are its text cut at lines that begin with '[')"
        else:
            why = ""
        # Named as one machine names it in messages (lossy when not UTF-8).
        name = _pgnfen.shown_name(path)
        warnings.warn(InputWarning(f"{name}: no PGN tag line found{why}"), stacklevel=4)

    # The file being summed up: (path, a tag line seen, games).
    current = None
    for part, (outcome, _) in zip(parts, resolved):
        if current is not None and (current[0] != part[0] or part[2] == 0):
            no_tag_line(*current)
            current = None
        for note in outcome.get("notes", ()):
            warnings.warn(InputWarning(note), stacklevel=3)
        seen, games = (False, 0) if current is None else current[1:]
        current = (part[0], seen or outcome.get("tag_line", False), games + outcome["games"])
    if current is not None:
        no_tag_line(*current)


def _warn_unseen_tags(parts, resolved):
    """The warning one machine gives after its run for each tag that ``tags``
    names and no game held (a misspelled name, most often), with the
    closest tag name the files hold: for the tags that no partition's games
    held."""
    unseen = None
    for outcome, _ in resolved:
        # A partition that owns no game (its outcome made by the walk) saw
        # nothing to tell.
        names = outcome.get("unseen") if outcome is not None else None
        if names is not None:
            unseen = names if unseen is None else [n for n in unseen if n in names]
    if not unseen:
        return
    paths = dict.fromkeys(part[0] for part in parts)
    for message in _pgnfen.unseen_tag_warnings(unseen, "tags=", *paths):
        warnings.warn(InputWarning(message), stacklevel=3)


def _stats_task(slot, part, at, own_nothing, tags=None, speeds=None, moves=None):
    import json

    if own_nothing:
        return None, None
    outcome, text = _pgnfen.partition_stats(part, at, threads=1, tags=tags, speeds=speeds, moves=moves)
    return outcome, json.loads(text)


def _add_stats(total, counts):
    total["games"] += counts["games"]
    if "unmatched" in total:
        total["unmatched"] += counts["unmatched"]
    for group in ("classes", "speeds", "chess960_positions", "problems"):
        for key, n in counts[group].items():
            total[group][key] = total[group].get(key, 0) + n
    if "moves" in total:
        for key, n in counts["moves"].items():
            total["moves"][key] += n


def stats(paths, client=None, partition_size=None, tags=None, speeds=None, moves=None):
    """Counts by class, speed, Chess960 start position and problem code: the dict
    ``pgnfen.stats(*paths)`` returns, computed on the cluster. ``tags`` (tag
    expressions) and ``speeds`` count only the games that match, the others
    in ``unmatched``; ``moves`` ("first" or "all") replays each game's
    mainline and counts the games checked, with an illegal move and not
    checked: as ``pgnfen.stats(tags=..., speeds=..., moves=...)`` and
    ``stats --tag``/``--speed``/``--moves`` count them. A bad one is refused
    on the client."""
    # Refused here, before any work, with the errors pgnfen.stats raises (a
    # generator, a set or one str is no list of str there either).
    _pgnfen.check_stats_selection(tags=tags, speeds=speeds, moves=moves)
    tags = list(tags) if tags is not None else None
    speeds = list(speeds) if speeds is not None else None
    selected = bool(tags or speeds)
    client = _client(client)
    parts = partitions(paths, partition_size, client)
    total = {"games": 0}
    if selected:
        total["unmatched"] = 0
    total |= {
        "classes": {c: 0 for c in ("standard", "setup", "chess960", "crc", "other", "malformed")},
        "speeds": {
            s: 0
            for s in ("ultrabullet", "bullet", "blitz", "rapid", "classical", "correspondence", "unknown")
        },
        "chess960_positions": {},
        "problems": {},
    }
    if moves is not None:
        total["moves"] = {"checked": 0, "illegal": 0, "not_checked": 0}
    task = _stats_task
    if selected or moves is not None:
        task = functools.partial(_stats_task, tags=tags, speeds=speeds, moves=moves)
    resolved = _resolve(client, parts, task)
    _warn_as_one_machine(parts, resolved)
    _warn_unseen_tags(parts, resolved)
    for _, counts in resolved:
        if counts is not None:
            _add_stats(total, counts)
    # The order `stats --format json` uses: most common first, ties by number.
    positions = sorted(total["chess960_positions"].items(), key=lambda kv: (-kv[1], int(kv[0])))
    total["chess960_positions"] = dict(positions)
    # Problem codes in the order `stats --format json` lists them.
    total["problems"] = {c: total["problems"][c] for c in _pgnfen.problem_codes() if total["problems"].get(c)}
    return total


def _same_file(a, b):
    return (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)


def _refuse_self_overwrite(parts, out_dir):
    """A ``pgnfen.UsageError`` (a ``ValueError``) before anything is written when an input is a file the
    run would replace or remove: a part file of ``out_dir`` (the folder is the
    run's, its ``part-*.pgn`` files are replaced), compared by device and
    inode so that links and other spellings of the path are caught too."""
    try:
        owned = [
            os.stat(os.path.join(out_dir, name))
            for name in os.listdir(out_dir)
            if _PART.match(name)
        ]
    except (FileNotFoundError, NotADirectoryError):
        # No part file yet (below a file, making out_dir fails later).
        return
    for path in dict.fromkeys(part[0] for part in parts):
        try:
            st = os.stat(path)
        except OSError:
            continue
        if any(_same_file(st, o) for o in owned):
            raise UsageError(
                f"pgnfen.dask.filter: the input {path} is a part file of the output folder "
                f"{os.fsdecode(out_dir)}, which this run replaces; write into another folder "
                "(the folder's part-*.pgn files are the run's own)"
            )


def _remove_if_there(path):
    try:
        os.remove(path)
    except FileNotFoundError:
        pass


def _remove_tree(path):
    """Removes a staging folder, also while cancelled tasks may still be
    writing their last temporary file into it."""
    for _ in range(50):
        try:
            shutil.rmtree(path)
            return
        except FileNotFoundError:
            return
        except OSError:
            import time

            time.sleep(0.02)
    shutil.rmtree(path, ignore_errors=True)


class _EndingSignal(BaseException):
    """SIGTERM or SIGHUP during a distributed ``filter``, raised in the main
    thread so that the run removes its staging folder before the process ends
    by that signal (a ``BaseException``, as ``KeyboardInterrupt`` is: nothing
    may take it for an error of the run and go on)."""

    def __init__(self, signum):
        super().__init__(signum)
        self.signum = signum


@contextlib.contextmanager
def _ending_signals_clean_up():
    """While a distributed ``filter`` runs on the main thread, SIGTERM and
    SIGHUP left to their default action, which would end the process at once
    and leave the staging folder in ``out_dir``, raise ``_EndingSignal``
    there instead; once the run has removed what it wrote, the process ends by
    the signal as it would have. A handler the program set is left alone.

    Yields a function that raises ``_EndingSignal`` if a signal came whose
    exception was lost: raised while the interpreter ran a callback whose
    exceptions it ignores (the garbage collector's, which ``distributed``
    sets), the exception never reaches the run. The run calls it before it
    puts its outputs in place."""
    if threading.current_thread() is not threading.main_thread():
        yield lambda: None
        return

    noted = []

    def note(signum, _frame):
        noted.append(signum)
        raise _EndingSignal(signum)

    def check():
        if noted:
            raise _EndingSignal(noted[0])

    replaced = []
    for ending in (signal.SIGTERM, signal.SIGHUP):
        if signal.getsignal(ending) == signal.SIG_DFL:
            signal.signal(ending, note)
            replaced.append(ending)
    try:
        yield check
    except _EndingSignal as e:
        for ending in replaced:
            signal.signal(ending, signal.SIG_DFL)
        os.kill(os.getpid(), e.signum)
        raise
    finally:
        for ending in replaced:
            if signal.getsignal(ending) is note:
                signal.signal(ending, signal.SIG_DFL)
        if noted:
            # Lost after the last check: the run ended; the process still
            # ends by the signal, as the signal's default action would.
            os.kill(os.getpid(), noted[0])


#: The prefix of a staging folder's name in ``out_dir``.
_STAGING = ".pgnfen-staging-"
#: The file in a staging folder that its run holds locked while it lives.
_STAGING_LOCK = ".lock"


def _hold_staging_lock(staging):
    """Opens and locks the staging folder's lock file for the run: a later
    run into the same ``out_dir`` removes a staging folder only when nobody
    holds its lock (its run was killed, by SIGKILL or a power cut)."""
    import fcntl

    fd = os.open(os.path.join(staging, _STAGING_LOCK), os.O_CREAT | os.O_WRONLY, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        pass  # a file system without locks: the folder is only not swept later
    return fd


def _sweep_dead_staging(out_dir):
    """Removes the staging folders of earlier runs into ``out_dir`` that ended
    without removing them (killed at once): those whose lock nobody holds."""
    import fcntl

    try:
        names = os.listdir(out_dir)
    except OSError:
        return
    for name in names:
        if not name.startswith(_STAGING):
            continue
        folder = os.path.join(out_dir, name)
        try:
            fd = os.open(os.path.join(folder, _STAGING_LOCK), os.O_RDONLY)
        except OSError:
            continue  # not a run's folder, or one just being made
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            continue  # its run is alive
        finally:
            os.close(fd)
        _remove_tree(folder)


def _refuse_folders_in_the_way(out_dir, names):
    """A ``pgnfen.UsageError`` when something other than a file has the name
    of a part file in ``out_dir`` (one of ``names``, or one of an earlier
    run, which is removed): it could not be replaced or removed. Checked
    before any work; ``_put_in_place`` checks again as it goes."""
    try:
        present = [name for name in os.listdir(out_dir) if _PART.match(name)]
    except (FileNotFoundError, NotADirectoryError):
        # Not there yet (or below a file: making it fails, with its error).
        present = []
    for name in dict.fromkeys(list(names) + present):
        path = os.path.join(out_dir, name)
        try:
            mode = os.lstat(path).st_mode
        except (FileNotFoundError, NotADirectoryError):
            continue
        # A file or a symbolic link (even a dangling one) is replaced or
        # removed, as `_put_in_place` does; anything else is in the way.
        if not (stat.S_ISREG(mode) or stat.S_ISLNK(mode)):
            raise _in_the_way(path)


def _in_the_way(path):
    """The ``UsageError`` of something other than a file where a part file goes."""
    return UsageError(
        f"pgnfen.dask.filter: {path} is in the way of a part file (not a file); "
        "move it away or write into another folder"
    )


#: Why ``os.link`` fails on a file system without hard links.
_NO_HARD_LINKS = {errno.EPERM, errno.EOPNOTSUPP, errno.ENOSYS, errno.EMLINK, errno.EXDEV}


def _put_in_place(out_dir, staging, finals):
    """Moves this run's parts (``finals``: (staged file, part name)) into
    ``out_dir`` and removes the earlier run's other part files, all or
    nothing. Every earlier part file this changes (replaced or removed) is
    first kept in the staging folder (a hard link, or moved there where the
    file system has none); if a step fails or Ctrl-C comes, the new names are
    taken away and the kept files put back. Each part file is replaced by one
    rename, so a reader never finds a part half-written."""
    previous = os.path.join(staging, "previous")
    os.mkdir(previous)
    names = [name for _, name in finals]
    wanted = set(names)
    extras = [name for name in os.listdir(out_dir) if _PART.match(name) and name not in wanted]
    # (part name, where its earlier file is kept, or None when it had none),
    # recorded before each step so that the rollback sees every step begun.
    kept = []
    # What each replaced part file was (its mode, owner and group go to the new one).
    replaced = {}
    try:
        for name in names + extras:
            target = os.path.join(out_dir, name)
            try:
                mode = os.lstat(target).st_mode
            except FileNotFoundError:
                kept.append((name, None))
                continue
            if not (stat.S_ISREG(mode) or stat.S_ISLNK(mode)):
                raise _in_the_way(target)
            if name in wanted:
                try:
                    replaced[name] = os.stat(target)
                except OSError:
                    pass  # a dangling link, or gone meanwhile: nothing to keep
            earlier = os.path.join(previous, name)
            kept.append((name, earlier))
            try:
                _keep_aside(target, earlier)
            except FileNotFoundError:
                kept[-1] = (name, None)  # removed by someone else meanwhile
        for source, name in finals:
            if name in replaced:
                _take_over(source, replaced[name])
            os.replace(source, os.path.join(out_dir, name))
        for name in extras:
            try:
                os.remove(os.path.join(out_dir, name))
            except FileNotFoundError:
                pass  # removed by someone else: gone all the same
    except BaseException as failure:
        if not _roll_back(out_dir, kept, wanted):
            # What could not be put back must outlive the staging folder,
            # which the caller removes.
            rescue = os.path.join(out_dir, f".pgnfen-kept-{uuid.uuid4().hex}")
            try:
                os.rename(previous, rescue)
            except OSError:
                pass
            else:
                message = (
                    "pgnfen.dask.filter: earlier part files that could not be put back "
                    f"are kept in {rescue}"
                )
                if hasattr(failure, "add_note"):
                    failure.add_note(message)
                else:
                    import warnings

                    warnings.warn(message, RuntimeWarning, stacklevel=3)
        raise


def _take_over(path, earlier):
    """Gives the new file ``path`` the mode, owner and group of the file it
    replaces (``earlier``, its ``os.stat``), as every pgnfen output keeps
    them. Not the set-user-ID and set-group-ID bits: new contents must not
    run with another's rights. The owner is kept where the system lets this
    user (root, or the owner keeping a group of theirs)."""
    if hasattr(os, "chown"):
        try:
            os.chown(path, earlier.st_uid, earlier.st_gid)
        except OSError:
            pass
    os.chmod(path, stat.S_IMODE(earlier.st_mode) & 0o1777)


def _keep_aside(target, earlier):
    """Keeps the file ``target`` as ``earlier`` too: a hard link, or, on a file
    system without hard links, ``target`` moved there (its name is then
    missing until its new part comes, or for good if it is removed)."""
    try:
        os.link(target, earlier, follow_symlinks=False)
    except OSError as e:
        # (A file gone meanwhile, ENOENT, is raised as it is.)
        if e.errno not in _NO_HARD_LINKS or stat.S_ISDIR(os.lstat(target).st_mode):
            raise
        os.rename(target, earlier)


def _roll_back(out_dir, kept, wanted):
    """Puts back what ``_put_in_place`` changed, last step first; whether all
    of it was. A second Ctrl-C does not cut it short; the failure that
    started the rollback is what the caller raises."""
    complete = True
    for name, earlier in reversed(kept):
        target = os.path.join(out_dir, name)
        try:
            if earlier is not None:
                if os.path.lexists(earlier):
                    os.replace(earlier, target)
            elif name in wanted and not os.path.isdir(target):
                os.remove(target)
        except FileNotFoundError:
            pass
        except (OSError, KeyboardInterrupt):
            complete = False
    return complete


def filter(
    paths,
    out_dir,
    classes=None,
    tags=None,
    client=None,
    partition_size=None,
    chess960_positions=None,
    speeds=None,
    moves=None,
):
    """Writes the games that match (``classes``, ``tags``,
    ``chess960_positions``, ``speeds`` and ``moves`` as in ``pgnfen.filter``;
    every one given must hold) to one file per partition in ``out_dir``, named
    ``part-00000.pgn``, ``part-00001.pgn``, ... in input order (a partition
    that keeps no game gets an empty file). Returns the list of paths: their
    contents, concatenated in this order, are byte for byte what ``pgnfen
    filter`` writes.

    ``out_dir`` is the run's own: after a successful run its ``part-*.pgn``
    files are exactly this run's (those of an earlier run are removed; other
    files are left alone). The parts are written into a hidden staging
    folder inside ``out_dir`` and moved into place only when every partition
    succeeded, all of them or none, so a failed or interrupted run (Ctrl-C)
    leaves ``out_dir`` as it was. An input that is one of ``out_dir``'s part
    files, or a folder where a part file goes, is refused
    (``pgnfen.UsageError``, a ``ValueError``) before anything is written."""
    # The arguments are checked here, before any folder is made, with the
    # errors ``pgnfen.filter`` raises, rather than on a worker.
    _pgnfen.check_selection(classes, tags, chess960_positions, speeds, moves)
    out_dir = os.fsdecode(os.fspath(out_dir))
    _refuse_impossible_name(out_dir)
    if os.path.exists(out_dir) and not os.path.isdir(out_dir):
        raise UsageError(f"{out_dir}: not a folder (out_dir is the folder the part files go to)")
    client = _client(client)
    parts = partitions(paths, partition_size, client)
    _refuse_self_overwrite(parts, out_dir)
    width = max(5, len(str(len(parts) - 1)))
    names = [f"part-{i:0{width}d}.pgn" for i in range(len(parts))]
    _refuse_folders_in_the_way(out_dir, names)
    # The folders made for out_dir: removed again (when empty) if the run fails.
    made = []
    folder = os.path.abspath(out_dir)
    while not os.path.exists(folder):
        made.append(folder)
        folder = os.path.dirname(folder)
    staging = os.path.join(out_dir, f"{_STAGING}{uuid.uuid4().hex}")
    try:
        os.makedirs(out_dir, exist_ok=True)
        _sweep_dead_staging(out_dir)
        os.mkdir(staging)
        lock = _hold_staging_lock(staging)
    except OSError as e:
        # An out_dir that cannot be written (read-only, full): named by its
        # first part file, as one machine names its output, never by the
        # hidden staging folder; what was made for it goes again.
        shutil.rmtree(staging, ignore_errors=True)
        for folder in made:
            with contextlib.suppress(OSError):
                os.rmdir(folder)
        raise _pgnfen.os_error(e.errno or errno.EIO, os.path.join(out_dir, names[0])) from None

    # Whether another file follows each partition's: a last game without a
    # final line end then gets one, as on one machine, so that it does not
    # run on into the next file's first game in the concatenated parts.
    more_inputs_follow = []
    follows = False
    for part in reversed(parts):
        more_inputs_follow.append(follows)
        follows = follows or part[2] == 0
    more_inputs_follow.reverse()

    def task(slot, part, at, own_nothing, folder=staging):
        # A file per partition and run: the run again of a partition whose
        # guess was wrong never shares a file with its first run, which the
        # scheduler may still be finishing or repeating. `folder` is bound
        # now: the staging folder is renamed away when the run fails.
        i, attempt = slot
        staged = os.path.join(folder, f"{i}.{attempt}.pgn")
        outcome, _kept = _pgnfen.partition_filter(
            part,
            staged,
            at,
            classes=classes,
            tags=tags,
            chess960_positions=chess960_positions,
            speeds=speeds,
            own_nothing=own_nothing,
            more_inputs_follow=more_inputs_follow[i],
            threads=1,
            moves=moves,
            # Errors name the part file, not the staging file.
            shown=os.path.join(out_dir, names[i]),
        )
        return outcome, staged

    succeeded = False
    with _ending_signals_clean_up() as ended_by_signal:
        try:
            # A first run's part that a second run replaces goes at once:
            # the staging folder then holds about one output's worth. (Should
            # the scheduler run it again, it comes back, and goes with the
            # folder.)
            resolved = _resolve(client, parts, task, discard=_remove_if_there)
            staged = [path for _, path in resolved]
            ended_by_signal()
            _put_in_place(out_dir, staging, list(zip(staged, names)))
            succeeded = True
        finally:
            _clean_up(staging, succeeded, made)
            os.close(lock)
    _warn_as_one_machine(parts, resolved)
    _warn_unseen_tags(parts, resolved)
    return [os.path.join(out_dir, name) for name in names]


def _clean_up(staging, succeeded, made):
    """Removes a distributed filter's staging folder, and after a failure
    the empty folders the run made for ``out_dir``."""
    if not succeeded:
        # Tasks already running on the workers when the run was cancelled
        # go on: renamed away, the folder can no longer receive their part
        # files (their temporary file or its renaming fails), so that
        # removing it is not a race against them.
        abandoned = staging + ".abandoned"
        try:
            os.rename(staging, abandoned)
            staging = abandoned
        except OSError:
            pass
    _remove_tree(staging)
    # A failed run removes the (empty) folders it made for out_dir.
    for folder in [] if succeeded else made:
        try:
            os.rmdir(folder)
        except OSError:
            break


def _meta(tags, where=None, speeds=None, encoding=None):
    """The empty pandas frame of the rows' columns (for Dask's metadata); also
    checks the selection, on the client."""
    import pyarrow as pa

    stream = _pgnfen.partition_rows(
        (os.devnull, "plain", 0, 0, 0, None),
        0,
        (0, 0, 0),
        tags=tags,
        threads=1,
        expressions=where,
        speeds=speeds,
        encoding=encoding,
    )
    return _to_pandas(pa.RecordBatchReader.from_stream(stream).read_all())


def _to_pandas(table):
    """Arrow-backed pandas columns: lists and maps stay lists and maps (Dask
    would otherwise turn object columns into strings)."""
    import pandas as pd

    return table.to_pandas(types_mapper=pd.ArrowDtype)


def _rows(args):
    import pyarrow as pa

    part, at, bases, tags, where, speeds, encoding = args
    stream = _pgnfen.partition_rows(
        part, at, bases, tags=tags, threads=1, expressions=where, speeds=speeds, encoding=encoding
    )
    table = pa.RecordBatchReader.from_stream(stream).read_all()
    # The rows are read: the file must still be the one planned.
    _pgnfen.partition_unchanged(part)
    return _to_pandas(table)


def read_headers(paths, tags=None, client=None, partition_size=None, where=None, speeds=None, encoding=None):
    """The rows of ``pgnfen export`` as a ``dask.dataframe``, one partition of
    the frame per partition of the input that owns games, in input order. The
    columns are Arrow-backed (``pandas.ArrowDtype``): ``problems`` a list of
    strings, ``other_tags`` a map, Elo columns nullable integers.

    Where each partition's first game starts, and its offset, line and game
    number bases, are found first (a counting pass on the cluster, resolved as
    ``stats`` does); the frame's partitions then read their rows from there.
    ``tags``: None for the default tag columns, or tag names (a list, or one
    string of names joined by commas, as ``scan()`` takes them; not ``"all"``).
    ``where`` (tag expressions) and ``speeds`` keep only the rows of the games
    that match, as in ``pgnfen.scan()`` and ``export --tag``/``--speed``.
    ``encoding`` decodes tag names and values as ``scan(encoding=...)`` and
    ``export --encoding`` do (``"auto"`` when None).
    Each partition of the frame is held whole in a worker's memory, so the
    default ``partition_size`` stays within ``ROWS_PARTITION_SIZE`` (16 MiB
    as stored); a file that cannot be cut (gzip, a zstd file of one frame)
    is one partition whatever its size.
    """
    _needs_dask("dataframe")
    import dask.dataframe as dd

    if isinstance(tags, str):
        if tags.lower() == "all":
            # The columns must be known before any partition is read (the
            # frame's meta), and "all" would need every header of every file.
            raise UsageError('read_headers(tags="all") is not supported: name the tags (a list, or "White,Black")')
        # As scan() and `export --tags` take them.
        tags = tags.split(",")
    if isinstance(tags, bytes):
        raise TypeError(f"argument 'tags': a list of str, not bytes ({tags!r})")
    # The columns first: a bad tag name or encoding is found before any work.
    meta = _meta(tags, where, speeds, encoding)
    client = _client(client)
    # Listed once: a generator of paths (Path.glob) serves both calls.
    paths = _paths(paths)
    if partition_size is None:
        partition_size = _default_size(paths, client, ROWS_PARTITION_SIZE)
    parts = partitions(paths, partition_size, client)
    resolved = _resolve(client, parts, _stats_task)
    _warn_as_one_machine(parts, resolved)
    pieces = []
    bases = (0, 0, 0)
    for part, (outcome, _) in zip(parts, resolved):
        if part[2] == 0:
            bases = (0, 0, 0)
        if outcome["first"] is not None and outcome["games"] > 0:
            pieces.append((part, outcome["first"], bases, tags, where, speeds, encoding))
        bases = _pgnfen.bases_after(bases, outcome)
    if not pieces:
        return dd.from_pandas(meta, npartitions=1)
    return dd.from_map(_rows, pieces, meta=meta, enforce_metadata=False)
