"""The errors a user can see. Each message says what went wrong and what to do.

Every one is a MiniragError, which both faces report as one line (the CLI's `minirag: error: ...`,
an MCP tool error) instead of a traceback; the kinds below let callers act on an error by type.
"""

import errno


class MiniragError(Exception):
    """Base of every error minirag reports to a user instead of a traceback."""


class IndexUnavailable(MiniragError):
    """The index file cannot be used as asked (missing, wrong model, newer schema)."""


class DamagedIndex(IndexUnavailable):
    """The index file is corrupt (SQLite reads it as malformed, or as no database at all)."""


class ModelUnavailable(MiniragError):
    """The embedding model cannot be found or loaded. `remedy`, when given, is what to do: the
    message is then "problem; remedy", and `problem` the first half (doctor shows them apart)."""

    def __init__(self, problem: str, remedy: str | None = None):
        super().__init__(f"{problem}; {remedy}" if remedy else problem)
        self.problem, self.remedy = problem, remedy


class ModelRunStopped(ModelUnavailable):
    """A model run that a RunBound stopped (interruptible): its caller cancelled, or it ran past its limit."""


class PathOutsideRoots(MiniragError):
    """A path (or what a symlink resolves to) is not inside any configured root."""


class NotFound(MiniragError):
    """A source, file, chunk or job that was asked for does not exist."""


class ListingGone(MiniragError):
    """A list_files cursor whose listing is not kept: the server restarted, or the client's newer
    listings took its place."""


class InvalidArgument(MiniragError):
    """An argument is out of range or malformed."""


class ConversionFailed(MiniragError):
    """A document could not be converted to text (corrupt, encrypted, binary, too large)."""


class MessageTooLong(ConversionFailed):
    """An e-mail whose attachments together give more text than one document may: the whole
    message is refused, as a document that long is (not each further attachment in turn)."""


def exhausted(exc: BaseException) -> str | None:
    """A resource minirag ran out of, as users read it, in the CLI, over MCP and for one file alike:
    memory, threads, or file descriptors. No bug, so no internal error; None for any other exception."""
    if isinstance(exc, MemoryError):
        said = " ".join(str(exc).split())[:200]
        return (f"out of memory{f' ({said})' if said else ''}; free some, or raise the limit minirag runs under "
                "(`ulimit -v`), and run it again")
    if isinstance(exc, ImportError) and "std::bad_alloc" in str(exc):  # a native module's start (pybind11's words)
        return exhausted(MemoryError("loading a native library: std::bad_alloc"))
    if isinstance(exc, ImportError) and _MAP_FAILED in str(exc) and _address_space_limited():
        library = str(exc).split(":", 1)[0].rsplit("/", 1)[-1][:100]
        return exhausted(MemoryError(f"loading {library}"))
    if isinstance(exc, RuntimeError) and str(exc) == "can't start new thread":  # pthread_create failed
        return ("cannot start a thread (out of memory, or past the threads minirag may start); free some, "
                "or raise the limits minirag runs under (`ulimit -v`, `ulimit -u`), and run it again")
    if isinstance(exc, OSError) and exc.errno in (errno.EMFILE, errno.ENFILE):
        return (f"too many open files{_descriptor_limit()}; raise the limit "
                "minirag runs under (`ulimit -n`), or close other programs, and run it again")
    return None


# What the dynamic loader says where it could not map a library's code: under an address-space limit,
# for want of room (a file system mounted noexec says the same, so the limit is asked too).
_MAP_FAILED = "failed to map segment from shared object"


def _address_space_limited() -> bool:
    try:
        import resource
    except ImportError:  # pragma: no cover - Windows has no such limit
        return False
    return resource.getrlimit(resource.RLIMIT_AS)[0] != resource.RLIM_INFINITY


def _descriptor_limit() -> str:
    try:
        import resource
    except ImportError:  # pragma: no cover - Windows has no such limit to name
        return ""
    soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    return "" if soft == resource.RLIM_INFINITY else f" ({soft} at most)"


def described(exc: BaseException) -> str:
    """A parser's exception on one line, for a ConversionFailed: its type and its message's first line,
    its summary; or, where the message is a traceback (RapidOCR wraps onnxruntime's error so), the
    exception that traceback ends in, its type's module path left out (a RecursionError, a parser's
    stack outrun by its input, says so in words)."""
    if isinstance(exc, RecursionError):
        return "its structure is nested too deeply to read"
    lines = [line.strip() for line in str(exc).strip().splitlines() if line.strip()]
    if not lines:
        return type(exc).__name__
    line = lines[0]
    if line.startswith("Traceback (most recent call last)"):
        kind, colon, message = lines[-1].partition(":")
        line = f"{kind.rpartition('.')[2]}{colon}{message}" if " " not in kind else lines[-1]
    return f"{type(exc).__name__}: {line[:200]}"


class OutputUnwritable(MiniragError):
    """stdout refused a command's output: its disk full, a file size limit, an I/O error."""


class SyncLocked(MiniragError):
    """Another process holds the sync lock."""


class FileAccessError(MiniragError):
    """A file or folder minirag needs (a lock file, a backup's folder) cannot be read or written."""


class ConfigError(MiniragError, ValueError):
    """The configuration cannot be used; the message says which setting and why."""


class UrlRefused(MiniragError):
    """The URL was not fetched on security grounds: its scheme, or where its host points."""


class FetchError(MiniragError):
    """The URL could not be fetched: bad URL, DNS failure, network or HTTP error, limits."""
