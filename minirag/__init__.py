"""minirag: local-first hybrid search over your documents in one SQLite file."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("minirag")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.0.0+unknown"
