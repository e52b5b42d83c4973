"""The programs minirag starts by name (`git`, `tesseract`): found on PATH's absolute folders only,
and run by their full path.

A relative PATH entry (`.`, an empty one, `bin`) names a folder under the working directory, and
minirag is run inside the folder it indexes (the current directory is the default root; git status
runs inside each root): whoever wrote the documents could plant an executable of that name there.
`shutil.which` and a bare name given to subprocess follow such entries (and on Windows look in the
working directory first whatever PATH says).
"""

from __future__ import annotations

import os


def on_path(name: str) -> str | None:
    """The full path of the first executable `name` in PATH's absolute folders, or None."""
    names = [name]
    if os.name == "nt":
        names = [f"{name}{ext.lower()}" for ext in os.environ.get("PATHEXT", ".EXE").split(os.pathsep) if ext]
    for folder in os.get_exec_path():
        if not os.path.isabs(folder):
            continue
        for candidate in names:
            path = os.path.join(folder, candidate)
            if os.path.isfile(path) and os.access(path, os.X_OK):
                return path
    return None
