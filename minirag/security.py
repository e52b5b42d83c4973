"""Root containment: the single definition of "inside".

A path is inside a root when its real path (symlinks followed) equals the
root or continues it past a separator; `/docs/proj` never contains
`/docs/project-secret`.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
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
