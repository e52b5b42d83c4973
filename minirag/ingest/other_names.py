"""The other names of a file the index holds under several: a symbolic link inside the roots to a
file also inside them (indexed under the link's own path), or a hard link (the same file under two
names). An edit raises an event for the name it was made through only, so a watcher that syncs just
that path left every other name serving the old text, and a link whose target was deleted serving
the deleted text, until the next pass over every root.

Learnt from every indexed file after a pass over every root (one `lstat` each), and from each
changed path as it comes (a link made since), so a batch also looks at the other names of what it
changed.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable


class OtherNames:
    def __init__(self) -> None:
        self._by_target: dict[str, set[str]] = {}  # a link's target (its real path) -> the links
        self._by_file: dict[tuple[int, int], set[str]] = {}  # (device, inode) of a linked-to file -> its names

    def learn_all(self, sources: Iterable[str]) -> None:
        """Start again from the indexed files."""
        self._by_target, self._by_file = {}, {}
        for source in sources:
            self.learn(source)

    def learn(self, path: str) -> None:
        """Note `path` if it is a link to a file, or a name of a file with several."""
        try:
            st = os.lstat(path)
            if stat.S_ISLNK(st.st_mode):
                self._by_target.setdefault(os.path.realpath(path), set()).add(path)
            elif stat.S_ISREG(st.st_mode) and st.st_nlink > 1:
                self._by_file.setdefault((st.st_dev, st.st_ino), set()).add(path)
        except (OSError, ValueError):  # gone meanwhile, or a name the OS refuses: nothing to note
            return

    def of_all(self, paths: Iterable[str]) -> set[str]:
        """The names known for the files at `paths` (which may be gone: their links still name them),
        together, the paths themselves among them where known.
        Each file's names are taken once: a batch that made N links to one file, asking for each
        link's others, built N² names."""
        names: set[str] = set()
        targets: set[str] = set()
        files: set[tuple[int, int]] = set()
        for path in paths:
            target = os.path.realpath(path)
            if target not in targets:
                targets.add(target)
                names |= self._by_target.get(target, set())
            try:
                st = os.stat(path)
            except (OSError, ValueError):
                continue
            if st.st_nlink > 1 and (key := (st.st_dev, st.st_ino)) not in files:
                files.add(key)
                names |= self._by_file.get(key, set())
        return names
