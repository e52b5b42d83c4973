"""Hybrid search over the index: plan.py runs it; keyword.py, vector.py, fusion.py and filters.py are its steps."""

from minirag.search.fusion import Hit
from minirag.search.plan import MAX_TOP_K, SearchOptions, clamp_top_k, search
from minirag.search.scope import Scope, Scopes

__all__ = ["MAX_TOP_K", "Hit", "Scope", "Scopes", "SearchOptions", "clamp_top_k", "search"]
