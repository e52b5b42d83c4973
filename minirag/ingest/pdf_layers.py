"""A PDF's optional content (its layers), as a viewer opening it shows them.

Content marked with an optional content group (`/OC` on marked content, a form, an annotation) is
drawn only while the group is on. The document's default configuration (`/OCProperties /D`) says
which are: all on, but those its /OFF lists, or all off (`/BaseState /OFF`) but those its /ON lists.
A membership dictionary (OCMD) is on by its policy `/P` over the groups it names (AnyOn unless it
says otherwise); its visibility expression (`/VE`) is not read.
"""

from __future__ import annotations

from pdfminer.pdftypes import resolve1
from pdfminer.psparser import literal_name

# An OCMD's policy: whether it is on, from whether each of its groups is.
_POLICIES = {"AllOn": all, "AnyOn": any, "AnyOff": lambda on: not all(on), "AllOff": lambda on: not any(on)}


def groups_off(document) -> frozenset[int]:
    """The object numbers of the groups the document's default configuration shows off."""
    try:
        properties = resolve1(document.catalog.get("OCProperties"))
        default = resolve1(properties.get("D")) if isinstance(properties, dict) else None
        if not isinstance(default, dict):
            return frozenset()
        base = resolve1(default.get("BaseState"))
        if base is not None and literal_name(base) == "OFF":
            return frozenset(_numbers(properties.get("OCGs")) - _numbers(default.get("ON")))
        return frozenset(_numbers(default.get("OFF")))
    except Exception:  # noqa: BLE001 - a damaged catalog hides nothing
        return frozenset()


def _numbers(references) -> set[int]:
    listed = resolve1(references)
    return {reference.objid for reference in listed if hasattr(reference, "objid")} if isinstance(listed, list) else set()


def shown_off(reference, hidden: frozenset[int]) -> bool:
    """Whether content marked with `reference` (a group or a membership dictionary, as the PDF names
    it: an indirect object keeps the number /OFF lists) is off, `hidden` being groups_off's answer."""
    if getattr(reference, "objid", None) in hidden:
        return True
    try:
        group = resolve1(reference)
        if not isinstance(group, dict) or group.get("Type") is None or literal_name(group.get("Type")) != "OCMD":
            return False
        members = resolve1(group.get("OCGs"))
        members = members if isinstance(members, list) else [members]
        states = [getattr(member, "objid", None) not in hidden for member in members if member is not None]
        policy = _POLICIES.get(literal_name(group.get("P")) if group.get("P") is not None else "AnyOn", any)
        return bool(states) and not policy(states)
    except Exception:  # noqa: BLE001 - a damaged group hides nothing
        return False
