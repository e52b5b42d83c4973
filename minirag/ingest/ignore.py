"""Ignore rules: which files and folders under the roots are left out on purpose.

Three sources, in this order (the first that decides wins):
1. exclude globs (MINIRAG_EXCLUDE / --exclude),
2. `.minignore` and `.gitignore` files with git's semantics (pathspec's GitIgnoreSpec): a file
   applies to the paths below its folder, a deeper file wins over a shallower one, a later line
   over an earlier one (`!` re-includes), `dir/` matches folders only, and nothing under an
   ignored folder can be re-included. In one folder `.minignore` wins over `.gitignore`. When a
   root lies inside a git repository, the `.gitignore` files from the repository's top down apply;
3. include globs (MINIRAG_INCLUDE / --include): when set, a file must match one of them.

Globs are gitignore patterns matched against the path relative to each root (a leading `/`
anchors one there, as in .gitignore); one that starts with a root's own path (`/srv/docs/*.md`
for the root /srv/docs) applies to that root only. Ignore files are read once per walk,
so a changed one takes effect at the next sync (the watcher starts one when they change).
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from minirag.display import printable
from minirag.gitstate import is_own, read_regular_file

if TYPE_CHECKING:  # imported where patterns are compiled: a query's configuration never compiles them
    from pathspec import GitIgnoreSpec

log = logging.getLogger(__name__)

IGNORE_FILES = (".minignore", ".gitignore")  # in one folder, the first wins
MAX_IGNORE_FILE = 1024 * 1024  # bytes; a bigger "ignore file" is not one (it is read, per folder, per walk)


@dataclass(frozen=True)
class IgnoreReason:
    pattern: str
    origin: str  # the ignore file's path, or the setting / flag that gave the glob

    def __str__(self) -> str:
        return f"ignore rule: {self.pattern}, {self.origin}"


@dataclass(frozen=True)
class Globs:
    """Include or exclude globs as configured, and where they came from (for messages)."""

    patterns: tuple[str, ...] = ()
    origin: str = ""


def split_globs(patterns: Sequence[str], roots: Sequence[Path]) -> dict[Path, list[str]]:
    """Each root's share of `patterns`: one that starts with a root's path goes to that root, made
    relative (anchored) to it; every other one, to every root."""
    out: dict[Path, list[str]] = {root: [] for root in roots}
    for pattern in patterns:
        negated = pattern.startswith("!")
        body = pattern[1:] if negated else pattern
        owner = next((r for r in sorted(roots, key=lambda r: -len(str(r)))
                      if body.startswith(str(r).rstrip(os.sep) + os.sep)), None)
        if owner is None:  # relative, or anchored at each root by its leading `/` (as in .gitignore)
            for root in roots:
                out[root].append(pattern)
            continue
        relative = "/" + body[len(str(owner)):].lstrip(os.sep)
        out[owner].append(("!" if negated else "") + relative.replace(os.sep, "/"))
    return out


# pathspec matches through Python regular expressions, which backtrack: each wildcard multiplies the
# worst case by the length it may span. Measured on names of 255 characters and paths 2,040 folders
# deep: two wildcards that cross folders (`**`, or the start of a pattern with no `/` before its end)
# with two within a name take 0.24 s a path at worst; a third crossing one took 50 s, six within a
# name (`*d*d*d*d*d*x`) hours. A line over either bound is skipped as git skips a line that is no pattern.
MAX_CROSSING_WILDCARDS = 2
MAX_WILDCARDS = 4
_CROSSING = re.compile(r"\.[+*]")  # `.+` / `.*` in pathspec's regex; `[^/]*` stays within a name
# Every path is matched against every line of the ignore files above it, so a file is also bounded as
# a whole: a line of three or four wildcards costs by them, each more multiplying a hostile path's
# worst case about sixtyfold (docs/documents.md), and such lines past the budget are skipped: it holds
# 128 of three (`*backup*.sql`), or 2 of four. Plainer lines (`*.pyc`, `private/`) are kept up to a
# count of their own, so no costly line can crowd them out.
MATCH_BUDGET = 8192
MAX_PLAIN_LINES = 8192
_COST_BY_WILDCARDS = {3: 64, 4: 4096}


def _wildcards(pattern) -> tuple[int, int]:
    """(wildcards that cross folders, wildcards in all) of a compiled pattern."""
    regex = getattr(pattern, "regex", None)
    if regex is None:  # a comment or a blank line
        return 0, 0
    crossing = len(_CROSSING.findall(regex.pattern))
    return crossing, crossing + regex.pattern.count("[^/]*")


def _costly(pattern) -> str | None:
    """Why matching a compiled pattern could take minutes on a hostile path, or None."""
    crossing, wildcards = _wildcards(pattern)
    if crossing > MAX_CROSSING_WILDCARDS or wildcards > MAX_WILDCARDS:
        return (f"too many wildcards to match in time: at most {MAX_CROSSING_WILDCARDS} that cross folders "
                f"(**, or an unanchored start) and {MAX_WILDCARDS} in all")
    return None


def _cost(pattern) -> int:
    return _COST_BY_WILDCARDS.get(_wildcards(pattern)[1], 1)


def line_cost(line: str) -> int:
    """What one ignore line costs of its file's MATCH_BUDGET."""
    from pathspec import GitIgnoreSpec

    return sum(_cost(pattern) for pattern in GitIgnoreSpec.from_lines([line]).patterns)


def _spec(lines: Sequence[str], origin: str) -> GitIgnoreSpec | None:
    """The rules of an ignore file's lines. A line that is no valid pattern (`[z-a]`), or one too costly
    to match, is skipped with a warning, as git skips a bad line: one line must not leave every file of
    the roots unindexed, nor stall every walk."""
    from pathspec import GitIgnoreSpec

    if not lines:
        return None
    try:
        spec = GitIgnoreSpec.from_lines(lines)
        costs = [_cost(pattern) for pattern in spec.patterns]
        if (not any(_costly(pattern) for pattern in spec.patterns) and costs.count(1) <= MAX_PLAIN_LINES
                and sum(cost for cost in costs if cost > 1) <= MATCH_BUDGET):
            return spec
    except (ValueError, re.error):  # pathspec's GitWildMatchPatternError is a ValueError
        pass
    valid, spent, plain, over = [], 0, 0, []
    for number, line in enumerate(lines, 1):
        if (reason := bad_glob(line)) is not None:
            log.warning("%s, line %d: not an ignore pattern, skipped (%s)", origin, number, reason)
            continue
        cost = line_cost(line)
        if (plain >= MAX_PLAIN_LINES) if cost == 1 else (spent + cost > MATCH_BUDGET):
            over.append(number)
            continue
        plain, spent = (plain + 1, spent) if cost == 1 else (plain, spent + cost)
        valid.append(line)
    if over:
        log.warning("%s: %d line%s skipped, the first line %d: matching every path against more of its lines "
                    "would stall each sync", origin, len(over), "" if len(over) == 1 else "s", over[0])
    return GitIgnoreSpec.from_lines(valid)


def bad_glob(pattern: str) -> str | None:
    """Why `pattern` is no gitignore pattern (an include or exclude glob), or None when it is one."""
    from pathspec import GitIgnoreSpec

    try:
        spec = GitIgnoreSpec.from_lines([pattern])
    except (ValueError, re.error) as exc:
        return str(exc)
    return next((reason for compiled in spec.patterns if (reason := _costly(compiled))), None)


def _decide(spec: GitIgnoreSpec | None, relative: str) -> tuple[bool, str] | None:
    """(ignored, the deciding pattern), or None when no pattern of `spec` matches."""
    if spec is None:
        return None
    result = spec.check_file(relative)
    if result.include is None or result.index is None:
        return None
    return result.include, str(spec.patterns[result.index])  # str(): the pattern as written


def _repository_top(root: Path) -> Path | None:
    """The nearest folder at or above `root` holding `.git` (a folder, or a worktree's file); None
    where another user owns that `.git` or its folder, a repository git refuses (gitstate.is_own)."""
    for folder in (root, *root.parents):
        if os.path.lexists(folder / ".git"):
            return folder if is_own(folder) and is_own(folder / ".git") else None
    return None


def folders_above(roots: Sequence[Path], gitignore: bool = True) -> dict[str, list[Path]]:
    """The folders above the roots whose ignore files apply to them (a repository's, from its top
    down to the folder holding a root), each with the roots below it: what a watcher must watch
    besides the roots, for a changed rule there to be synced."""
    above: dict[str, list[Path]] = {}
    for root in roots if gitignore else ():
        top = _repository_top(root)
        if top is None or top == root:
            continue
        for folder in root.parents:  # up to the top, which holds the root (_repository_top)
            above.setdefault(str(folder), []).append(root)
            if folder == top:
                break
    return above


class IgnoreRules:
    """The rules of one walk. Not thread-safe; cheap to make (ignore files are read lazily)."""

    def __init__(self, roots: Sequence[Path], include: Globs = Globs(), exclude: Globs = Globs(),
                 gitignore: bool = True, index: Path | None = None):
        # Not at the top: store.home reads the configuration, which reads this module.
        from minirag.store.home import index_files

        self.roots = tuple(Path(r) for r in roots)
        self.gitignore = gitignore
        # The index and the files beside it, where DB_PATH puts them inside a root: never documents.
        self._index_files = frozenset(str(p) for p in index_files(Path(os.path.abspath(index)))) if index else frozenset()
        self._index_reason = IgnoreReason(Path(index).name, "the index itself (DB_PATH), or a file beside it") if index else None
        includes = split_globs(include.patterns, self.roots) if include.patterns else {}
        excludes = split_globs(exclude.patterns, self.roots) if exclude.patterns else {}
        from pathspec import GitIgnoreSpec

        self._include = {root: (GitIgnoreSpec.from_lines(p), include.origin) for root, p in includes.items() if p}
        self._exclude = {root: (GitIgnoreSpec.from_lines(p), exclude.origin) for root, p in excludes.items() if p}
        self._top = {root: (_repository_top(root) if gitignore else None) or root for root in self.roots}
        self._files: dict[str, list[tuple[str, GitIgnoreSpec]]] = {}
        self._dirs: dict[str, IgnoreReason | None] = {}

    @classmethod
    def from_config(cls, config) -> IgnoreRules:
        return cls(config.roots, config.include, config.exclude, config.gitignore, config.db_path)

    def _ignore_files(self, folder: str) -> list[tuple[str, GitIgnoreSpec]]:
        """The ignore files in `folder`, the winning one first."""
        cached = self._files.get(folder)
        if cached is None:
            cached = []
            for name in IGNORE_FILES if self.gitignore else IGNORE_FILES[:1]:
                path = os.path.join(folder, name)
                # None there (the usual case), unreadable, too big, or no regular file (a FIFO
                # would block the walk, /dev/zero never end): no rules from it.
                text = self._read(path)
                spec = _spec(text.splitlines(), path) if text is not None else None
                if spec is not None:
                    cached.append((path, spec))
            self._files[folder] = cached
        return cached

    def _read(self, path: str) -> str | None:
        """An ignore file's text, or None. One in a root is read as documents are (read_inside_roots):
        a link out of the roots gives no rules. One above a root (a repository's, from its top down)
        lies outside every root: it is read only where it really lies in its own folder, reached with no link."""
        from minirag.errors import PathOutsideRoots
        from minirag.security import containing_root, read_inside_roots

        if not os.path.lexists(path):  # the usual case, answered without opening the path from `/`
            return None
        if self._root_of(os.path.dirname(path)) is None:
            return read_regular_file(path, MAX_IGNORE_FILE, below=Path(os.path.dirname(path)))
        if containing_root(Path(os.path.realpath(path)), self.roots) is None:
            log.warning("%s: a link out of the document roots; not read, so it gives no rules", printable(path))
            return None
        try:
            data = read_inside_roots(path, self.roots, MAX_IGNORE_FILE)
        except (PathOutsideRoots, OSError):  # no regular file, swapped for a link meanwhile, unreadable
            return None
        return None if len(data) > MAX_IGNORE_FILE else data.decode("utf-8", "replace")

    def _root_of(self, path: str) -> Path | None:
        from minirag.security import innermost_root

        return innermost_root(path, self.roots)

    def reason(self, path: str, is_dir: bool = False) -> IgnoreReason | None:
        """Why `path` (absolute, inside a root) is left out, or None when it is not."""
        path = os.path.abspath(path)
        root = self._root_of(path)
        if root is None or path == str(root):
            return None
        if not is_dir and path in self._index_files:
            return self._index_reason
        parent = os.path.dirname(path)
        if parent != str(root):
            inherited = self._dir_reason(parent)
            if inherited is not None:
                return inherited
        return self._own_reason(path, root, is_dir)

    def _dir_reason(self, folder: str) -> IgnoreReason | None:
        if folder not in self._dirs:
            self._dirs[folder] = self.reason(folder, is_dir=True)
        return self._dirs[folder]

    def _own_reason(self, path: str, root: Path, is_dir: bool) -> IgnoreReason | None:
        """The rules for `path` itself, its parent folders being known not to be ignored."""
        suffix = "/" if is_dir else ""
        relative = os.path.relpath(path, root).replace(os.sep, "/") + suffix
        spec, origin = self._exclude.get(root, (None, ""))
        decided = _decide(spec, relative)
        if decided and decided[0]:
            return IgnoreReason(decided[1], origin)
        folder = os.path.dirname(path)
        top = str(self._top[root])
        while True:  # the deepest ignore file with a matching line decides
            for file_path, file_spec in self._ignore_files(folder):
                decided = _decide(file_spec, os.path.relpath(path, folder).replace(os.sep, "/") + suffix)
                if decided is not None:
                    if decided[0]:
                        return IgnoreReason(decided[1], file_path)
                    folder = top  # re-included: shallower files are not asked
                    break
            if folder == top or os.path.dirname(folder) == folder:
                break
            folder = os.path.dirname(folder)
        if not is_dir and root in self._include:
            spec, origin = self._include[root]
            decided = _decide(spec, relative)
            if not (decided and decided[0]):
                patterns = " ".join(str(p) for p in spec.patterns)
                return IgnoreReason(f"matches no include glob ({patterns})", origin)
        return None
