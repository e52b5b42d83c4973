"""Every private API of a dependency that minirag uses, one module per dependency.

A private name (an underscored attribute, a module-level name patched in place, an
internal class subclassed) can move in any release. Each module here states the
version range it was written against (`SUPPORTED`, lowest included, bound excluded,
the same range pyproject.toml allows), and `tests/test_compat.py` fails naming the
dependency and its installed version when that version leaves the range or no longer
has what the module reaches for. Callers import from here, never the private name.
"""
