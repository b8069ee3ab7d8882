"""Lambda event filtering (``FilterCriteria``) for the local runtime.

Lambda drops the records no filter matches before it builds a batch, so handlers of a
filtered event source never see them. The syntax is EventBridge's event-pattern
language; this module implements the part Lambda documents:

* a pattern is an object whose keys are ANDed; nested objects descend into the event;
* a leaf is a non-empty list of matchers, ORed; a matcher is an exact value (string,
  number, boolean, null) or one of ``{"prefix": ...}``, ``{"suffix": ...}``,
  ``{"equals-ignore-case": ...}``, ``{"wildcard": ...}``, ``{"anything-but": ...}``,
  ``{"exists": bool}``, ``{"numeric": [op, n, ...]}``, ``{"cidr": ...}``;
* ``"$or": [pattern, ...]`` matches when any sub-pattern does;
* an event array matches a leaf when any element does; a missing field matches only
  ``{"exists": false}``; values compare by JSON type (the string ``"5"`` is not ``5``).

Patterns are validated when compiled, so a typo fails at start-up, not silently.
"""

from __future__ import annotations

import ipaddress
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ops.runtime.errors import FilterPatternError

_NUMERIC_OPS = {
    "=": lambda a, b: a == b,
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
}
_STRING_OPS = ("prefix", "suffix", "equals-ignore-case", "wildcard")
_MISSING = object()


@dataclass(frozen=True)
class FilterPattern:
    """One compiled filter pattern."""

    pattern: Mapping[str, Any]

    @classmethod
    def parse(cls, pattern: str | Mapping[str, Any]) -> FilterPattern:
        """Compile ``pattern`` (a dict, or the JSON string Lambda's ``FilterCriteria`` holds)."""
        if isinstance(pattern, str):
            try:
                pattern = json.loads(pattern)
            except json.JSONDecodeError as exc:
                raise FilterPatternError(f"filter pattern is not JSON: {exc}") from exc
        if not isinstance(pattern, Mapping):
            raise FilterPatternError("a filter pattern must be a JSON object")
        _validate_object(pattern, "$")
        return cls(pattern)

    def matches(self, event: Mapping[str, Any]) -> bool:
        return _match_object(self.pattern, event)


@dataclass(frozen=True)
class FilterCriteria:
    """Several patterns, ORed, as in Lambda's ``FilterCriteria.Filters``; empty accepts all."""

    patterns: tuple[FilterPattern, ...] = ()

    @classmethod
    def parse(cls, patterns: Iterable[str | Mapping[str, Any]]) -> FilterCriteria:
        return cls(tuple(FilterPattern.parse(p) for p in patterns))

    def accepts(self, event: Mapping[str, Any]) -> bool:
        return not self.patterns or any(p.matches(event) for p in self.patterns)


# --- matching -------------------------------------------------------------------------


def _match_object(pattern: Mapping[str, Any], event: Any) -> bool:
    for key, rule in pattern.items():
        if key == "$or":
            if not any(_match_object(sub, event) for sub in rule):
                return False
            continue
        value = event.get(key, _MISSING) if isinstance(event, Mapping) else _MISSING
        if isinstance(rule, Mapping):
            if not _match_nested(rule, value):
                return False
        elif not _match_leaf(rule, value):
            return False
    return True


def _match_nested(rule: Mapping[str, Any], value: Any) -> bool:
    if value is _MISSING:
        return _match_object(rule, {})  # only {"exists": false} below can still match
    if isinstance(value, Mapping):
        return _match_object(rule, value)
    if isinstance(value, list):
        return any(_match_object(rule, element) for element in value if isinstance(element, Mapping))
    return False


def _match_leaf(matchers: Sequence[Any], value: Any) -> bool:
    present = value is not _MISSING
    is_leaf = present and not isinstance(value, Mapping)
    candidates = value if isinstance(value, list) else [value]
    for matcher in matchers:
        if isinstance(matcher, Mapping) and "exists" in matcher:
            if matcher["exists"] == is_leaf and (is_leaf or not present):
                return True
            continue
        if is_leaf and any(_match_value(matcher, candidate) for candidate in candidates):
            return True
    return False


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _match_value(matcher: Any, value: Any) -> bool:
    if not isinstance(matcher, Mapping):
        return _equal(matcher, value)
    (op, operand), *_ = matcher.items()
    if op == "anything-but":
        return not _anything_but_excludes(operand, value)
    if op == "numeric":
        return _is_number(value) and _numeric(operand, float(value))
    if op == "cidr":
        return isinstance(value, str) and _in_cidr(operand, value)
    return isinstance(value, str) and _match_string(op, operand, value)


def _equal(expected: Any, value: Any) -> bool:
    if expected is None or isinstance(expected, bool):
        return value is expected
    if _is_number(expected):
        return _is_number(value) and float(expected) == float(value)
    return isinstance(value, str) and value == expected


def _match_string(op: str, operand: Any, value: str) -> bool:
    if op == "equals-ignore-case":
        return value.casefold() == str(operand).casefold()
    if op == "wildcard":
        return _wildcard(str(operand)).fullmatch(value) is not None
    ignore_case = isinstance(operand, Mapping)
    text = str(operand["equals-ignore-case"]) if ignore_case else str(operand)
    subject = value.casefold() if ignore_case else value
    text = text.casefold() if ignore_case else text
    return subject.startswith(text) if op == "prefix" else subject.endswith(text)


def _anything_but_excludes(operand: Any, value: Any) -> bool:
    if isinstance(operand, Mapping):
        (op, inner), *_ = operand.items()
        options = inner if isinstance(inner, list) else [inner]
        return isinstance(value, str) and any(_match_string(op, option, value) for option in options)
    options = operand if isinstance(operand, list) else [operand]
    return any(_equal(option, value) for option in options)


def _numeric(spec: Sequence[Any], value: float) -> bool:
    return all(_NUMERIC_OPS[spec[i]](value, float(spec[i + 1])) for i in range(0, len(spec), 2))


def _in_cidr(block: str, value: str) -> bool:
    try:
        return ipaddress.ip_address(value) in ipaddress.ip_network(block, strict=False)
    except ValueError:
        return False


def _wildcard(text: str) -> re.Pattern[str]:
    return re.compile(".*".join(re.escape(part) for part in text.split("*")), re.DOTALL)


# --- validation -----------------------------------------------------------------------


def _validate_object(pattern: Mapping[str, Any], path: str) -> None:
    if not pattern:
        raise FilterPatternError(f"{path}: empty object")
    for key, rule in pattern.items():
        where = f"{path}.{key}"
        if key == "$or":
            if not isinstance(rule, list) or len(rule) < 2 or not all(isinstance(r, Mapping) for r in rule):
                raise FilterPatternError(f"{where}: $or needs a list of at least two objects")
            for i, sub in enumerate(rule):
                _validate_object(sub, f"{where}[{i}]")
        elif isinstance(rule, Mapping):
            _validate_object(rule, where)
        elif isinstance(rule, list) and rule:
            for matcher in rule:
                _validate_matcher(matcher, where)
        else:
            raise FilterPatternError(f"{where}: a leaf must be a non-empty list of matchers, got {rule!r}")


def _validate_matcher(matcher: Any, where: str) -> None:
    if matcher is None or isinstance(matcher, str | bool) or _is_number(matcher):
        return
    if not isinstance(matcher, Mapping) or len(matcher) != 1:
        raise FilterPatternError(f"{where}: a matcher is a value or a one-key object, got {matcher!r}")
    (op, operand), *_ = matcher.items()
    if op == "exists":
        _require(isinstance(operand, bool), where, "exists takes true or false")
    elif op in _STRING_OPS:
        _validate_string_operand(op, operand, where)
    elif op == "anything-but":
        _validate_anything_but(operand, where)
    elif op == "numeric":
        _validate_numeric(operand, where)
    elif op == "cidr":
        try:
            ipaddress.ip_network(operand, strict=False)
        except (TypeError, ValueError) as exc:
            raise FilterPatternError(f"{where}: bad cidr {operand!r}") from exc
    else:
        raise FilterPatternError(f"{where}: unsupported matcher {op!r}")


def _validate_string_operand(op: str, operand: Any, where: str) -> None:
    if op in ("prefix", "suffix") and isinstance(operand, Mapping):
        keys = list(operand)
        _require(keys == ["equals-ignore-case"], where, f"{op} takes a string or {{'equals-ignore-case': ...}}")
        operand = operand["equals-ignore-case"]
    _require(isinstance(operand, str), where, f"{op} takes a string")


def _validate_anything_but(operand: Any, where: str) -> None:
    if isinstance(operand, Mapping):
        _require(len(operand) == 1, where, "anything-but takes one operator")
        (op, inner), *_ = operand.items()
        _require(op in _STRING_OPS, where, f"anything-but does not take {op!r}")
        for option in inner if isinstance(inner, list) else [inner]:
            _require(isinstance(option, str), where, f"anything-but {op} takes strings")
        return
    options = operand if isinstance(operand, list) else [operand]
    _require(bool(options), where, "anything-but needs at least one value")
    for option in options:
        _require(isinstance(option, str) or _is_number(option), where, "anything-but takes strings or numbers")


def _validate_numeric(operand: Any, where: str) -> None:
    ok = isinstance(operand, list) and len(operand) in (2, 4)
    ok = ok and all(operand[i] in _NUMERIC_OPS and _is_number(operand[i + 1]) for i in range(0, len(operand), 2))
    _require(ok, where, f"numeric takes [op, n] or [op, n, op, n], got {operand!r}")


def _require(condition: bool, where: str, message: str) -> None:
    if not condition:
        raise FilterPatternError(f"{where}: {message}")
