"""pgnfen on a Dask cluster: the same work as one machine, cut into partitions.

``pip install './python[dask]'``. Each input is cut into partitions of about
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

    import pgnfen.dask
    from dask.distributed import Client
    client = Client("scheduler:8786")           # or LocalCluster()
    pgnfen.dask.stats(paths)                    # dict, equal to pgnfen.stats(*paths)
    df = pgnfen.dask.read_headers(paths)        # dask.dataframe: the rows of `export`
    pgnfen.dask.filter(paths, "out/", classes=["chess960"])  # one file per partition
"""

import os

from . import _pgnfen

DEFAULT_PARTITION_SIZE = 256 << 20

__all__ = ["stats", "read_headers", "filter", "partitions", "DEFAULT_PARTITION_SIZE"]


def _client(client):
    if client is not None:
        return client
    from dask.distributed import default_client

    return default_client()


def _paths(paths):
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    paths = [os.fspath(p) for p in paths]
    if not paths:
        raise ValueError("pgnfen.dask needs at least one path")
    return paths


def partitions(paths, partition_size=DEFAULT_PARTITION_SIZE):
    """The partitions of ``paths``: (path, kind, index, start, end) tuples, in order."""
    return _pgnfen.partitions(_paths(paths), int(partition_size))


def _resolve(client, parts, run):
    """Runs every partition speculatively on the cluster, then walks them in
    order and runs again (on the cluster) each one whose guess was wrong.

    ``run(part, at, own_nothing)`` returns (outcome, result). Returns, for each
    partition, (final outcome, result); the result of a partition that owns
    nothing is the one ``run`` gave with ``own_nothing=True``.
    """
    futures = [client.submit(run, p, None, False, pure=False) for p in parts]
    final = []
    previous = None
    for part, future in zip(parts, futures):
        outcome, result = future.result()
        if part[2] == 0:
            previous = None
        verdict, value = _pgnfen.judge(previous, outcome)
        if verdict == "redo":
            outcome, result = client.submit(run, part, value, False, pure=False).result()
        elif verdict == "empty":
            _, result = client.submit(run, part, None, True, pure=False).result()
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


def _stats_task(part, at, own_nothing):
    import json

    if own_nothing:
        return None, None
    outcome, text = _pgnfen.partition_stats(part, at, threads=1)
    return outcome, json.loads(text)


def _add_stats(total, counts):
    total["games"] += counts["games"]
    for group in ("classes", "speeds", "chess960_positions", "problems"):
        for key, n in counts[group].items():
            total[group][key] = total[group].get(key, 0) + n


def stats(paths, client=None, partition_size=DEFAULT_PARTITION_SIZE):
    """Counts by class, speed, Chess960 start position and problem code: the dict
    ``pgnfen.stats(*paths)`` returns, computed on the cluster."""
    client = _client(client)
    parts = partitions(paths, partition_size)
    total = {
        "games": 0,
        "classes": {c: 0 for c in ("standard", "setup", "chess960", "crc", "other", "malformed")},
        "speeds": {
            s: 0
            for s in ("ultrabullet", "bullet", "blitz", "rapid", "classical", "correspondence", "unknown")
        },
        "chess960_positions": {},
        "problems": {},
    }
    for _, counts in _resolve(client, parts, _stats_task):
        if counts is not None:
            _add_stats(total, counts)
    # The order `stats --format json` uses: most common first, ties by number.
    positions = sorted(total["chess960_positions"].items(), key=lambda kv: (-kv[1], int(kv[0])))
    total["chess960_positions"] = dict(positions)
    # Problem codes in the order `stats --format json` lists them.
    total["problems"] = {c: total["problems"][c] for c in _pgnfen.problem_codes() if total["problems"].get(c)}
    return total


def filter(paths, out_dir, classes=None, tags=None, client=None, partition_size=DEFAULT_PARTITION_SIZE):
    """Writes the games that match (``classes`` and ``tags`` as in
    ``pgnfen.filter``) to one file per partition in ``out_dir``, named
    ``part-00000.pgn``, ``part-00001.pgn``, ... in input order (a partition
    that keeps no game gets an empty file). Returns the list of paths: their
    contents, concatenated in this order, are byte for byte what ``pgnfen
    filter`` writes."""
    client = _client(client)
    parts = partitions(paths, partition_size)
    os.makedirs(out_dir, exist_ok=True)
    width = max(5, len(str(len(parts) - 1)))
    names = [os.path.join(out_dir, f"part-{i:0{width}d}.pgn") for i in range(len(parts))]
    by_part = {part: name for part, name in zip(parts, names)}
    if not classes and not tags:
        raise ValueError("filter() needs classes or tags")

    def task(part, at, own_nothing):
        return _pgnfen.partition_filter(
            part, by_part[part], at, classes=classes, tags=tags, own_nothing=own_nothing, threads=1
        )

    _resolve(client, parts, task)
    return names


def _meta(tags):
    """The empty pandas frame of the rows' columns (for Dask's metadata)."""
    import pyarrow as pa

    stream = _pgnfen.partition_rows(
        (os.devnull, "plain", 0, 0, 0), 0, (0, 0, 0), tags=tags, threads=1
    )
    return _to_pandas(pa.RecordBatchReader.from_stream(stream).read_all())


def _to_pandas(table):
    """Arrow-backed pandas columns: lists and maps stay lists and maps (Dask
    would otherwise turn object columns into strings)."""
    import pandas as pd

    return table.to_pandas(types_mapper=pd.ArrowDtype)


def _rows(args):
    import pyarrow as pa

    part, at, bases, tags = args
    stream = _pgnfen.partition_rows(part, at, bases, tags=tags, threads=1)
    return _to_pandas(pa.RecordBatchReader.from_stream(stream).read_all())


def read_headers(paths, tags=None, client=None, partition_size=DEFAULT_PARTITION_SIZE):
    """The rows of ``pgnfen export`` as a ``dask.dataframe``, one partition of
    the frame per partition of the input that owns games, in input order. The
    columns are Arrow-backed (``pandas.ArrowDtype``): ``problems`` a list of
    strings, ``other_tags`` a map, Elo columns nullable integers.

    Where each partition's first game starts, and its offset, line and game
    number bases, are found first (a counting pass on the cluster, resolved as
    ``stats`` does); the frame's partitions then read their rows from there.
    ``tags``: None for the default tag columns, or a list of tag names.
    """
    import dask.dataframe as dd

    if isinstance(tags, str):
        raise ValueError('read_headers(tags=...) takes a list of tag names ("all" is not supported)')
    client = _client(client)
    parts = partitions(paths, partition_size)
    resolved = _resolve(client, parts, _stats_task)
    pieces = []
    bases = (0, 0, 0)
    for part, (outcome, _) in zip(parts, resolved):
        if part[2] == 0:
            bases = (0, 0, 0)
        if outcome["first"] is not None and outcome["games"] > 0:
            pieces.append((part, outcome["first"], bases, tags))
        bases = _pgnfen.bases_after(bases, outcome)
    meta = _meta(tags)
    if not pieces:
        return dd.from_pandas(meta, npartitions=1)
    return dd.from_map(_rows, pieces, meta=meta, enforce_metadata=False)
