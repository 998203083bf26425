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
_FUNCS: dict[str, Callable[..., float]] = {"sqrt": math.sqrt, "abs": abs, "round": round,
                                           "min": lambda *a: min(a), "max": lambda *a: max(a)}
# (fewest, most) arguments; None: any number (the node budget bounds it)
_ARITY: dict[str, tuple[int, int | None]] = {"sqrt": (1, 1), "abs": (1, 1), "round": (1, 2), "min": (1, None),
                                             "max": (1, None)}
_CONSTS = {"pi": math.pi, "e": math.e}
_WORDS = ((r"\bdivided by\b", "/"), (r"\bmultiplied by\b", "*"), (r"\btimes\b", "*"), (r"\bplus\b", "+"),
          (r"\bminus\b", "-"), (r"\bto the power of\b", "**"), (r"\bx\b", "*"), ("×", "*"), ("÷", "/"),
          # Mandarin operator words, longest first: 17.3加2.3, 12除以4, 3乘以5, 10减去2
          ("除以", "/"), ("乘以", "*"), ("加上", "+"), ("减去", "-"), ("乘", "*"), ("加", "+"), ("减", "-"))
_PERCENT_OF = re.compile(r"(\d+(?:\.\d+)?)\s*(?:%|percent)\s*of\s*")
_PERCENT = re.compile(r"(\d+(?:\.\d+)?)\s*%")
_THOUSANDS = re.compile(r"(?<![\d.,])\d{1,3}(?:,\d{3})+(?!\d)")       # 1,250 and 1,000,000 (not 2.5,100)
_CALL_OPEN = re.compile(r"\b(?:" + "|".join(_FUNCS) + r")\s*$")


def _commas(e: str) -> str:
    """Commas inside a function call separate its arguments; others are thousands separators.

    A digit group like `1,250` is always one number (write `max(10, 250)` with a space for two);
    any other comma outside a call's parentheses is dropped, as spoken-style text uses them loosely.
    """
    e = _THOUSANDS.sub(lambda m: m.group(0).replace(",", ""), e)
    out: list[str] = []
    calls: list[bool] = []          # per open parenthesis: is it a function call's?
    for i, ch in enumerate(e):
        if ch == "(":
            calls.append(bool(_CALL_OPEN.search(e, 0, i)))
        elif ch == ")" and calls:
            calls.pop()
        elif ch == "," and not (calls and calls[-1]):
            continue
        out.append(ch)
    return "".join(out)


def normalise(expression: str) -> str:
    """Spoken-style arithmetic to operator syntax: '15% of 84.5' -> '(15/100)*84.5'."""
    e = _commas(expression.strip().lower()).replace("^", "**")
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
            and not node.keywords and not any(isinstance(a, ast.Starred) for a in node.args)):
        name = node.func.id
        _check_arity(name, len(node.args))
        args = [_eval(a) for a in node.args]
        try:
            return _check(_FUNCS[name](*args))
        except (ValueError, TypeError, OverflowError):
            raise CalcError(f"{name} cannot take those values") from None
    raise CalcError("only numbers, + - * / ** %, parentheses and sqrt, abs, round, min, max are allowed")


def _check_arity(name: str, n: int) -> None:
    least, most = _ARITY[name]
    if least <= n and (most is None or n <= most):
        return
    if most == 1:
        raise CalcError(f"{name} takes one number, not {n}")
    if most is None:
        raise CalcError(f"{name} takes at least {least} number{'s' if least > 1 else ''}")
    raise CalcError(f"{name} takes {least} to {most} numbers, not {n}")


def format_number(x: float) -> str:
    """Plain, speakable number: integers without decimals, others to at most 4 significant decimals."""
    if float(x).is_integer():
        return str(int(x))
    return f"{x:.4f}".rstrip("0").rstrip(".")
