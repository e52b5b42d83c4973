"""An OpenDocument condition (`text:condition="ooow:1==1"`) whose value its text alone tells.

A section with `text:display="condition"` is hidden while its condition holds. A condition of
numbers and constants (`ooow:1==1`, `ooow:TRUE`, `ooow:2 > 1 AND NOT 0`) is evaluated here; one
naming a variable or a field depends on the document's state, which is not read, and stays
untold (the section's text is kept: nothing is lost on a guess).
"""

from __future__ import annotations

import ast
import operator
import re

MAX_CONDITION_CHARS = 200  # a longer one is untold (its parse tree would grow with it)
_NAMESPACE = re.compile(r"^[a-z]+:")  # `ooow:`, the formula language's prefix
# LibreOffice's operator words and symbols, as Python spells them.
_WORDS = {"EQ": "==", "NEQ": "!=", "LT": "<", "GT": ">", "LEQ": "<=", "GEQ": ">=", "AND": "and", "OR": "or",
          "NOT": "not", "XOR": "!=", "TRUE": "True", "FALSE": "False"}
_TOKEN = re.compile(r"&&|\|\||!=|<>|==|<=|>=|!|[A-Za-z_]\w*|\d+(?:\.\d+)?|[<>()+\-*/%]|\s+|.")
_COMPARE = {ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.Gt: operator.gt,
            ast.LtE: operator.le, ast.GtE: operator.ge}


def condition_holds(condition: str) -> bool | None:
    """True or False where the condition's text tells; None where it names anything else."""
    text = _NAMESPACE.sub("", condition.strip())
    if not text or len(text) > MAX_CONDITION_CHARS:
        return None
    pieces = []
    for token in _TOKEN.findall(text):
        upper = token.upper()
        if upper in _WORDS:
            pieces.append(f" {_WORDS[upper]} ")
        elif token in ("&&", "||", "!", "<>"):
            pieces.append({"&&": " and ", "||": " or ", "!": " not ", "<>": "!="}[token])
        else:
            pieces.append(token)
    try:
        tree = ast.parse("".join(pieces).strip(), mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    value = _value(tree.body)
    return None if value is None else bool(value)


def _value(node: ast.AST) -> float | bool | None:
    """A node's value, for numbers, truth values, comparisons and logic only; None for anything else."""
    if isinstance(node, ast.Constant) and isinstance(node.value, (bool, int, float)):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.Not, ast.USub)):
        operand = _value(node.operand)
        if operand is None:
            return None
        return (not operand) if isinstance(node.op, ast.Not) else -operand
    if isinstance(node, ast.BoolOp):
        values = [_value(part) for part in node.values]
        if any(value is None for value in values):
            return None
        return all(values) if isinstance(node.op, ast.And) else any(values)
    if isinstance(node, ast.Compare) and all(type(op) in _COMPARE for op in node.ops):
        values = [_value(part) for part in (node.left, *node.comparators)]
        numbers = [float(value) for value in values if value is not None]
        if len(numbers) != len(values):
            return None
        return all(_COMPARE[type(op)](numbers[n], numbers[n + 1]) for n, op in enumerate(node.ops))
    return None
