"""A notebook's JSON is checked for a notebook's shape before it is read.

A notebook holds `cells`, each an object whose `source` is text or a list of lines, and
`metadata`; a file with anything else in their place is refused saying which, rather than
read in part (markitdown's converter failed on them with a Python type's complaint, `'str'
object has no attribute 'get'`, which told a user nothing about the file).
"""

from __future__ import annotations


def shape_problem(notebook: object) -> str | None:
    """What makes a parsed notebook's JSON no notebook, or None."""
    if not isinstance(notebook, dict):
        return "its JSON is no object"
    if not isinstance(notebook.get("metadata", {}), dict):
        return "its metadata is no object"
    cells = notebook.get("cells", [])
    if not isinstance(cells, list):
        return "its cells are no list"
    for number, cell in enumerate(cells, 1):
        if not isinstance(cell, dict):
            return f"cell {number} is no object"
        source = cell.get("source", [])
        if not isinstance(source, str) and not (isinstance(source, list) and all(isinstance(s, str) for s in source)):
            return f"cell {number}'s source is no text"
    return None
