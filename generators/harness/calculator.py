"""Safe arithmetic: parsed into an AST and walked over a whitelist. Nothing is ever evaluated by Python."""
from __future__ import annotations

import ast
import math
import operator
import re
from typing import Callable

MAX_CHARS = 300
MAX_NODES = 120
MAX_ABS = 1e15
MAX_EXPONENT = 64


class CalcError(ValueError):
    """An expression the calculator refuses, with a reason a user can hear."""


_BIN: dict[type, Callable[[float, float], float]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow,
}
_UNARY: dict[type, Callable[[float], float]] = {ast.UAdd: operator.pos, ast.USub: operator.neg}
_FUNCS: dict[str, Callable[..., float]] = {"sqrt": math.sqrt, "abs": abs, "round": round, "min": min, "max": max}
_CONSTS = {"pi": math.pi, "e": math.e}
_WORDS = ((r"\bdivided by\b", "/"), (r"\bmultiplied by\b", "*"), (r"\btimes\b", "*"), (r"\bplus\b", "+"),
          (r"\bminus\b", "-"), (r"\bto the power of\b", "**"), (r"\bx\b", "*"), ("×", "*"), ("÷", "/"))
_PERCENT_OF = re.compile(r"(\d+(?:\.\d+)?)\s*(?:%|percent)\s*of\s*")
_PERCENT = re.compile(r"(\d+(?:\.\d+)?)\s*%")


def normalise(expression: str) -> str:
    """Spoken-style arithmetic to operator syntax: '15% of 84.5' -> '(15/100)*84.5'."""
    e = expression.strip().lower().replace(",", "").replace("^", "**")
    e = _PERCENT_OF.sub(r"(\1/100)*", e)
    e = _PERCENT.sub(r"(\1/100)", e)
    for pat, rep in _WORDS:
        e = re.sub(pat, rep, e)
    return e


def evaluate(expression: str) -> float:
    """Value of an arithmetic expression, or CalcError. Bounded in size, depth and magnitude."""
    if not isinstance(expression, str) or not expression.strip():
        raise CalcError("the expression is empty")
    if len(expression) > MAX_CHARS:
        raise CalcError(f"the expression is longer than {MAX_CHARS} characters")
    try:
        tree = ast.parse(normalise(expression), mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        raise CalcError("the expression is not valid arithmetic") from None
    if sum(1 for _ in ast.walk(tree)) > MAX_NODES:
        raise CalcError("the expression is too long")
    return _check(_eval(tree.body))


def _check(x: float) -> float:
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        raise CalcError("only numbers are allowed")
    if isinstance(x, float) and not math.isfinite(x):
        raise CalcError("the result is not a finite number")
    if abs(x) > MAX_ABS:
        raise CalcError("the result is too large")
    return x


def _eval(node: ast.AST) -> float:
    if isinstance(node, ast.Constant):
        if isinstance(node.value, bool) or not isinstance(node.value, (int, float)):
            raise CalcError("only numbers are allowed")
        return _check(node.value)
    if isinstance(node, ast.BinOp) and type(node.op) in _BIN:
        left, right = _eval(node.left), _eval(node.right)
        if isinstance(node.op, ast.Pow) and (abs(right) > MAX_EXPONENT or abs(left) > 1e6):
            raise CalcError("the power is too large")
        try:
            return _check(_BIN[type(node.op)](left, right))
        except ZeroDivisionError:
            raise CalcError("it divides by zero") from None
        except (OverflowError, ValueError):
            raise CalcError("the result is too large") from None
    if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
        return _check(_UNARY[type(node.op)](_eval(node.operand)))
    if isinstance(node, ast.Name) and node.id in _CONSTS:
        return _CONSTS[node.id]
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _FUNCS
            and not node.keywords and 1 <= len(node.args) <= 4):
        args = [_eval(a) for a in node.args]
        try:
            return _check(_FUNCS[node.func.id](*args))
        except (ValueError, TypeError):
            raise CalcError(f"{node.func.id} cannot take those values") from None
    raise CalcError("only numbers, + - * / ** %, parentheses and sqrt, abs, round, min, max are allowed")


def format_number(x: float) -> str:
    """Plain, speakable number: integers without decimals, others to at most 4 significant decimals."""
    if float(x).is_integer():
        return str(int(x))
    return f"{x:.4f}".rstrip("0").rstrip(".")
