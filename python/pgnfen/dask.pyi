"""Type stubs of pgnfen.dask (dask and pandas are imported for type checking only)."""

import os
from typing import TYPE_CHECKING, List, Literal, Optional, Sequence, Tuple, Union

from .types import ClassName, SpeedName, Stats

if TYPE_CHECKING:
    import dask.dataframe
    import distributed

_Path = Union[str, bytes, "os.PathLike[str]", "os.PathLike[bytes]"]
_Paths = Union[_Path, Sequence[_Path]]
#: A partition: (path, kind, index in its file, start, end, identity of the
#: file when planned: size, mtime_ns, device, inode).
_Partition = Tuple[str, str, int, int, int, Optional[Tuple[int, int, int, int]]]

DEFAULT_PARTITION_SIZE: int
MIN_PARTITION_SIZE: int
PARTITIONS_PER_THREAD: int
ROWS_PARTITION_SIZE: int

def default_partition_size(
    paths: _Paths, client: Optional["distributed.Client"] = None
) -> int:
    """The partition size used when none is given."""

def partitions(
    paths: _Paths,
    partition_size: Optional[int] = None,
    client: Optional["distributed.Client"] = None,
) -> List[_Partition]:
    """The partitions of the inputs, in input order."""

def stats(
    paths: _Paths,
    client: Optional["distributed.Client"] = None,
    partition_size: Optional[int] = None,
    tags: Optional[Sequence[str]] = None,
    speeds: Optional[Sequence[SpeedName]] = None,
    moves: Optional[Literal["first", "all"]] = None,
) -> Stats:
    """``pgnfen.stats`` of the inputs, partition by partition on the cluster
    (``tags``, ``speeds`` and ``moves`` as there)."""

def filter(
    paths: _Paths,
    out_dir: _Path,
    classes: Optional[Sequence[ClassName]] = None,
    tags: Optional[Sequence[str]] = None,
    client: Optional["distributed.Client"] = None,
    partition_size: Optional[int] = None,
    chess960_positions: Optional[Sequence[int]] = None,
    speeds: Optional[Sequence[SpeedName]] = None,
    moves: Optional[Literal["first", "all"]] = None,
) -> List[str]:
    """``pgnfen.filter`` to one file per partition in ``out_dir``: their paths, in order."""

def read_headers(
    paths: _Paths,
    tags: Optional[Sequence[str]] = None,
    client: Optional["distributed.Client"] = None,
    partition_size: Optional[int] = None,
    where: Optional[Sequence[str]] = None,
    speeds: Optional[Sequence[SpeedName]] = None,
    encoding: Optional[str] = None,
) -> "dask.dataframe.DataFrame":
    """The rows of ``pgnfen export`` as a dask dataframe, in input order
    (``where``, ``speeds`` and ``encoding`` as in ``pgnfen.scan()``)."""

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
