"""A tool call's arguments held to the JSON types (and enums) its input schema declares.

The SDK validates arguments with pydantic in lax mode, which converts: `topK: true` ran as 1,
`topK: "5"` as 5 and `ignored: "yes"` as true, so a client's mistake ran as some other call.
Here each argument must already be of a type its schema allows, the one rule for every tool.
A float with no fractional part counts as a whole number, as JSON Schema's `integer` says,
up to 2**53, the largest a JSON number carries exactly.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

from minirag.display import shown

MAX_EXACT_FLOAT = 2.0 ** 53

_WANTED = {"integer": "a whole number", "number": "a number", "boolean": "true or false", "string": "a string",
           "array": "an array", "object": "an object"}


def json_type(value: Any) -> str:
    """The JSON Schema type `value` has (a float with no fraction within 2**53 is an `integer`)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "integer" if value.is_integer() and abs(value) <= MAX_EXACT_FLOAT else "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, Mapping):
        return "object"
    if isinstance(value, (list, tuple)):
        return "array"
    return type(value).__name__


def allowed_types(schema: Mapping[str, Any]) -> set[str]:
    """The JSON types one property's schema allows (`type`, or the arms of its `anyOf`); empty: any."""
    declared = schema.get("type")
    if isinstance(declared, str):
        return {declared}
    if isinstance(declared, list):
        return set(declared)
    return {t for arm in schema.get("anyOf", ()) if isinstance(arm, Mapping) for t in allowed_types(arm)}


def described(value: Any) -> str:
    """`value` as a client wrote it in JSON, for an error line."""
    kind = json_type(value)
    if kind == "null":
        return "null"
    if kind == "boolean":
        return "true" if value else "false"
    if kind == "string":
        return f"the string {shown(repr(value), 60)}"
    if kind in ("object", "array"):
        return _WANTED[kind]
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    return shown(repr(value), 60)


def type_error(tool: str, parameters: Mapping[str, Any], arguments: Mapping[str, Any]) -> str | None:
    """One line naming the first argument whose JSON type its schema does not allow, or None."""
    properties = parameters.get("properties", {})
    for name, value in arguments.items():
        schema = properties.get(name, {})
        allowed = allowed_types(schema)
        kind = json_type(value)
        if not allowed or kind in allowed or (kind == "integer" and "number" in allowed):
            choices = schema.get("enum")
            if isinstance(choices, list) and value not in choices:
                return f"{tool}: {name} must be one of {', '.join(map(repr, choices))}, got {described(value)}"
            if kind == "array" and (error := _item_error(tool, name, schema, value)) is not None:
                return error
            continue
        wanted = " or ".join(_WANTED.get(t, t) for t in sorted(allowed - {"null"}))
        if "null" in allowed:
            wanted += " or null"
        return f"{tool}: {name} must be {wanted}, got {described(value)}"
    return None


def _item_error(tool: str, name: str, schema: Mapping[str, Any], value: list) -> str | None:
    """One line naming the first item of an array argument whose JSON type its schema's `items` does
    not allow (`scope[1] must be a string, got 5`), or None."""
    arms = [schema, *(arm for arm in schema.get("anyOf", ()) if isinstance(arm, Mapping))]
    items = next((arm["items"] for arm in arms if arm.get("type") == "array" and isinstance(arm.get("items"), Mapping)),
                 None)
    allowed = allowed_types(items) if items is not None else set()
    for i, item in enumerate(value):
        kind = json_type(item)
        if allowed and kind not in allowed and not (kind == "integer" and "number" in allowed):
            wanted = " or ".join(_WANTED.get(t, t) for t in sorted(allowed))
            return f"{tool}: {name}[{i}] must be {wanted}, got {described(item)}"
    return None


def call_shape_error(params: Any) -> str | None:
    """One line saying what is wrong with a `tools/call` request's params beyond its arguments' values
    (a tool name that is no string, arguments that are no JSON object), or None. The SDK answers
    those with a bare 'Invalid request parameters'."""
    if not isinstance(params, Mapping):
        return 'tools/call: params are required: {"name": tool, "arguments": {...}}'
    name = params.get("name")
    if "name" not in params:
        return "tools/call: name is required (the tool to call)"
    if not isinstance(name, str):
        return f"tools/call: name must be a tool's name (a string), got {described(name)}"
    arguments = params.get("arguments")
    if arguments is not None and not isinstance(arguments, Mapping):
        return ('tools/call: arguments must be a JSON object of named arguments ({"name": value, ...}), '
                f"got {described(arguments)}")
    return meta_error("tools/call", params)


def meta_error(method: str, params: Any) -> str | None:
    """One line saying what is wrong with a request's `_meta`, which any request may carry (where a
    client asks for progress: the protocol's ProgressToken is a string or an integer), or None."""
    if not isinstance(params, Mapping) or "_meta" not in params:
        return None
    meta = params["_meta"]
    if meta is not None and not isinstance(meta, Mapping):
        return f"{method}: _meta must be a JSON object, got {described(meta)}"
    if meta is not None and "progressToken" in meta and not _is_progress_token(meta["progressToken"]):
        return f"{method}: _meta.progressToken must be a string or an integer, got {described(meta['progressToken'])}"
    return None


def _is_progress_token(token: Any) -> bool:
    """A string or an integer, as the protocol's ProgressToken is (JSON's true and false are neither,
    though Python's bool is an int; the SDK would take `true` for the token 1)."""
    return isinstance(token, str) or (isinstance(token, int) and not isinstance(token, bool))


# What a request's params validation (the SDK's pydantic models) wanted, in JSON's words.
_WANTED_BY_ERROR = {"string_type": "a string", "int_type": "a whole number", "int_parsing": "a whole number",
                    "int_from_float": "a whole number", "float_type": "a number", "float_parsing": "a number",
                    "bool_type": "true or false", "bool_parsing": "true or false", "dict_type": "a JSON object",
                    "model_type": "a JSON object", "model_attributes_type": "a JSON object",
                    "list_type": "an array"}
# A step of a validation error's location that names a model's union arm or validator, not a field.
_NOT_A_FIELD = re.compile(r"^(str|int|float|bool|none|[a-z-]+\[.*\]|function-[a-z-]+)$")


def params_error(method: str, error: Mapping[str, Any]) -> str:
    """One line for the first complaint of a request's params validation, in the protocol's words:
    the field as the client wrote it (`cursor`), what it must be and what came, as JSON."""
    where = ".".join(str(step) for step in error.get("loc", ()) if not _NOT_A_FIELD.match(str(step))) or "params"
    if error.get("type") == "missing":
        return f"{method}: {where} is required"
    wanted = _WANTED_BY_ERROR.get(str(error.get("type")))
    said = f"must be {wanted}" if wanted else f"is not valid ({error.get('msg', 'refused')})"
    return f"{method}: {where} {said}, got {described(error.get('input'))}"
