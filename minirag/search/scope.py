"""A search scope: one source, or every source under a path or id prefix, as SQL bounds."""

from __future__ import annotations

import os
from dataclasses import dataclass

MAX_SCOPES = 20  # scopes in one call: each is a range in every side's SQL


@dataclass(frozen=True)
class Scope:
    """The exact source, or anything in [low, high): the same rule as security.is_under."""

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


@dataclass(frozen=True)
class Scopes:
    """One or more scopes: a source under any of them (minirag-mcp's `scope` list, a repeated --scope),
    and under none of `without` (the collections nested inside a collection's root)."""

    parts: tuple[Scope, ...]
    without: tuple[Scope, ...] = ()

    @classmethod
    def of(cls, scopes: tuple[str, ...], without: tuple[str, ...] = ()) -> Scopes:
        return cls(tuple(dict.fromkeys(Scope.of(scope) for scope in scopes)),
                   tuple(dict.fromkeys(Scope.of(scope) for scope in without)))

    @property
    def sql(self) -> str:
        """Scope.SQL for each part, joined by OR (and none of `without`); its arguments are `args`."""
        within = "(" + " OR ".join(Scope.SQL for _ in self.parts) + ")"
        return f"({within} AND NOT ({' OR '.join(Scope.SQL for _ in self.without)}))" if self.without else within

    @property
    def args(self) -> tuple[str, ...]:
        return tuple(arg for part in (*self.parts, *self.without) for arg in part.args)

    def matches(self, source: str) -> bool:
        return any(part.matches(source) for part in self.parts) and not any(
            part.matches(source) for part in self.without)
