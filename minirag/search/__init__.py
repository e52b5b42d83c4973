"""Hybrid search over the index: plan.py runs it; keyword.py, vector.py, fusion.py and filters.py are its steps.

Only the vocabulary other modules share (a Hit, a Scope) is named here: plan.py and its steps load numpy,
the ONNX helpers and the Snowball stemmers, which a command that never searches (status, list, read) should
not pay for at every start. Import `search`, `SearchOptions`, `clamp_top_k` from minirag.search.plan."""

from minirag.search.fusion import Hit
from minirag.search.scope import Scope, Scopes

__all__ = ["Hit", "Scope", "Scopes"]
