"""The errors a user can see. Each message says what went wrong and what to do."""


class MiniragError(Exception):
    """Base of every error minirag reports to a user instead of a traceback."""


class IndexUnavailable(MiniragError):
    """The index file cannot be used as asked (missing, wrong model, newer schema)."""


class ModelUnavailable(MiniragError):
    """The embedding model cannot be found or loaded."""


class PathOutsideRoots(MiniragError):
    """A path (or what a symlink resolves to) is not inside any configured root."""


class NotFound(MiniragError):
    """A source, file, chunk or job that was asked for does not exist."""


class InvalidArgument(MiniragError):
    """An argument is out of range or malformed."""


class ConversionFailed(MiniragError):
    """A document could not be converted to text (corrupt, encrypted, binary, too large)."""


class SyncLocked(MiniragError):
    """Another process holds the sync lock."""


class FileAccessError(MiniragError):
    """A file or folder minirag needs (a lock file, a backup's folder) cannot be read or written."""
