"""Root containment and scope: the single definitions of "inside".

A path is inside a root when its real path (symlinks followed) equals the
root or continues it past a separator; `/docs/proj` never contains
`/docs/project-secret`.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from minirag.errors import PathOutsideRoots


def is_under(path: str, prefix: str, sep: str = "/") -> bool:
    """True when `path` is `prefix` or lies below it, matching whole segments only."""
    prefix = prefix.rstrip(sep) if prefix != sep else prefix
    if path == prefix:
        return True
    return path.startswith(prefix if prefix.endswith(sep) else prefix + sep)


def containing_root(real: Path, roots: Iterable[Path]) -> Path | None:
    for root in roots:
        if is_under(str(real), str(root), os.sep):
            return root
    return None


def resolve_inside_roots(path: Path, roots: Iterable[Path]) -> Path:
    """The real path of `path` if it lands inside a root; else PathOutsideRoots."""
    roots = list(roots)
    real = Path(os.path.realpath(path))
    if containing_root(real, roots) is None:
        shown = f"{path} (resolves to {real})" if real != Path(os.path.abspath(path)) else str(path)
        raise PathOutsideRoots(
            f"path outside configured document roots: {shown}; roots: {', '.join(map(str, roots))}"
        )
    return real


@dataclass(frozen=True)
class Scope:
    """A scope as SQL bounds: the exact source, or anything in [low, high)."""

    exact: str
    low: str
    high: str

    @classmethod
    def of(cls, scope: str) -> Scope:
        sep = os.sep if os.sep in scope and "/" not in scope else "/"
        base = scope.rstrip(sep) or sep
        prefix = base if base.endswith(sep) else base + sep
        # Every string that starts with `prefix` sorts in [prefix, prefix with its last char bumped).
        return cls(exact=base, low=prefix, high=prefix[:-1] + chr(ord(prefix[-1]) + 1))

    #: The same test in SQL, over `sources s`; its arguments are `args`.
    SQL = "(s.source = ? OR (s.source >= ? AND s.source < ?))"

    @property
    def args(self) -> tuple[str, str, str]:
        return self.exact, self.low, self.high

    def matches(self, source: str) -> bool:
        return source == self.exact or self.low <= source < self.high
