"""A notebook's JSON is checked for the shape markitdown's converter reads, before it runs.

markitdown reads `cells`, each an object whose `source` is text or a list of lines, and
`metadata`; anything else in their place made it fail with a Python type's complaint
(`'str' object has no attribute 'get'`), which tells a user nothing about the file.
"""

from __future__ import annotations

import json

from minirag.errors import ConversionFailed


def check_notebook(text: str, name: str) -> None:
    """ConversionFailed, saying what is wrong, when `text` is no notebook markitdown can read."""
    problem = _problem(text)
    if problem is not None:
        raise ConversionFailed(f"{name}: not a Jupyter notebook: {problem}")


def _problem(text: str) -> str | None:
    try:
        notebook = json.loads(text.lstrip("\ufeff"))
    except RecursionError:
        return "cannot read its JSON (nested too deeply)"
    except ValueError as exc:
        return f"cannot read its JSON ({str(exc)[:200]})"
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
