"""The exceptions pgnfen raises (re-exported by the package).

Each is a ``pgnfen.Error`` and also the built-in exception a Python program
would expect for the same failure, so ``except ValueError`` or ``except
OSError`` keep working while ``except pgnfen.Error`` catches everything the
package raises. They are defined here, in Python, rather than in the native
module so that they pickle by name (Dask sends a worker's exception to the
client) and so that one class can have two bases.
"""

import builtins


class Error(Exception):
    """The base class of every error pgnfen raises."""


class UsageError(Error, ValueError):
    """A bad argument (an unknown class, a malformed tag expression, two
    outputs naming one file, ...): nothing was read or written."""


class InputWarning(UserWarning):
    """A note about an input or a record that did not stop the call, which
    the command line writes on standard error: an input in which no PGN tag
    line was found (a binary file or the wrong file named by mistake), a FEN
    that ``convert`` left unchanged. Filter it with the ``warnings`` module
    (``warnings.simplefilter("ignore", pgnfen.InputWarning)``)."""


class InputError(Error, OSError):
    """Reading an input or writing an output failed; the message names the
    file as it was given. A missing input is the subclass
    ``MissingFileError``, which is also a ``FileNotFoundError``. As Python's
    own ``OSError``, it has ``filename`` (the path as given), ``strerror`` and,
    for an error of the operating system, ``errno``."""

    def __str__(self):
        # The command line's message ("FILE: what"), which OSError would
        # replace by "[Errno N] what: 'FILE'" once filename is set.
        if len(self.args) == 1:
            return str(self.args[0])
        return super().__str__()

    def __reduce__(self):
        # OSError pickles (errno, strerror, filename) as the arguments when
        # filename is set; keep the message as the argument and the rest as
        # state, so that an error from a Dask worker reads the same.
        state = {"errno": self.errno, "strerror": self.strerror, "filename": self.filename}
        return (type(self), self.args, state)


class MissingFileError(InputError, builtins.FileNotFoundError):
    """An input that does not exist, or an output whose folder does not
    (also a ``FileNotFoundError``, as ``open(path, "w")`` raises)."""


# The other I/O kinds keep the built-in subclass Python itself would raise
# (code catching ``PermissionError`` still works); private because the
# built-in name is the one to catch.
class _PermissionError(InputError, builtins.PermissionError):
    """Permission denied, on an input or an output."""


class _IsADirectoryError(InputError, builtins.IsADirectoryError):
    """A folder was given where a file was expected."""


class _NotADirectoryError(InputError, builtins.NotADirectoryError):
    """A path went through a file as if it were a folder (``a.pgn/x``)."""


class _BrokenPipeError(InputError, builtins.BrokenPipeError):
    """The reader of an output went away."""


# Shown (and pickled) as ``pgnfen.X``, where the package re-exports them.
for _class in (
    Error,
    UsageError,
    InputError,
    MissingFileError,
    _PermissionError,
    _IsADirectoryError,
    _NotADirectoryError,
    _BrokenPipeError,
    InputWarning,
):
    _class.__module__ = "pgnfen"
del _class
