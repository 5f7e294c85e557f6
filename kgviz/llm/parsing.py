"""Tolerant, bounded JSON extraction from model text (never `eval`) and a tiny schema check."""

from __future__ import annotations

import json
import re
from typing import Any

MAX_CHARS = 100_000  # longer replies are refused, not scanned
MAX_CANDIDATES = 8  # fenced blocks and bracketed spans tried per reply
MAX_STARTS = 16  # opening brackets scanned from; bounds the work to MAX_STARTS * MAX_CHARS
_FENCE = re.compile(r"```[a-zA-Z]*[ \t]*\n?(.*?)```", re.DOTALL)
_TRAILING_COMMA = re.compile(r",\s*[}\]]")
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_LITERALS = {"True": "true", "False": "false", "None": "null"}
_JSON_TYPES: dict[str, tuple[type, ...]] = {
    "object": (dict,),
    "array": (list,),
    "string": (str,),
    "number": (int, float),
    "integer": (int,),
    "boolean": (bool,),
    "null": (type(None),),
}


def _balanced_span(text: str, start: int) -> str | None:
    """The bracketed block opening at `start`, matching brackets outside quoted strings."""
    closing = {"{": "}", "[": "]"}
    stack: list[str] = []
    quote = ""
    i = start
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == "\\":
                i += 1
            elif ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch in closing:
            stack.append(closing[ch])
        elif ch in "}]":
            if not stack or stack.pop() != ch:
                return None
            if not stack:
                return text[start : i + 1]
        i += 1
    return None


def _candidates(text: str) -> list[str]:
    """Plausible JSON snippets: the whole text, fenced blocks, then bracketed spans."""
    found = [text.strip()] + [m.group(1).strip() for m in _FENCE.finditer(text)]
    for tried, match in enumerate(re.finditer(r"[{\[]", text)):
        if tried == MAX_STARTS or len(found) > MAX_CANDIDATES:
            break
        span = _balanced_span(text, match.start())
        if span and span not in found:
            found.append(span)
    return found[: MAX_CANDIDATES + 1]


def _read_string(text: str, i: int) -> tuple[str, int]:
    """Re-emit the quoted string starting at `text[i]` as a JSON string; return it and its end."""
    quote = text[i]
    chars: list[str] = []
    i += 1
    while i < len(text) and text[i] != quote:
        if text[i] == "\\" and i + 1 < len(text):
            escaped = text[i + 1]
            chars.append("'" if escaped == "'" else "\\" + escaped)
            i += 2
            continue
        chars.append('\\"' if text[i] == '"' else text[i])
        i += 1
    return '"' + "".join(chars) + '"', i + 1


def repair(text: str) -> str:
    """Fix common near-JSON: single-quoted strings, trailing commas, Python literals.

    Works token by token outside strings, so apostrophes and commas inside strings are kept.
    """
    out: list[str] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch in "\"'":
            string, i = _read_string(text, i)
            out.append(string)
            continue
        if ch == "," and _TRAILING_COMMA.match(text, i):
            i += 1
            continue
        word = _WORD.match(text, i)
        if word:
            out.append(_LITERALS.get(word.group(0), word.group(0)))
            i = word.end()
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def extract_json(text: str) -> Any:
    """The first JSON value found in `text` (raw, fenced, or embedded in prose, repaired if needed).

    Raises ValueError saying why nothing usable was found.
    """
    if len(text) > MAX_CHARS:
        raise ValueError(f"reply is {len(text):,} characters, over the {MAX_CHARS:,} limit")
    for candidate in _candidates(text):
        for attempt in (candidate, repair(candidate)):
            try:
                return json.loads(attempt)
            except ValueError:
                continue
    raise ValueError("no JSON object or array found in the reply")


def validate(value: Any, schema: dict, where: str = "$") -> str | None:
    """First way `value` breaks `schema` (type, enum, required, properties, items, lengths)."""
    types = schema.get("type")
    if types is not None:
        names = [types] if isinstance(types, str) else list(types)
        allowed = tuple(t for name in names for t in _JSON_TYPES.get(name, (object,)))
        is_bool = isinstance(value, bool)
        if not isinstance(value, allowed) or (is_bool and "boolean" not in names):
            return f"{where} should be {' or '.join(names)}, got {type(value).__name__}"
    if "enum" in schema and value not in schema["enum"]:
        return f"{where} should be one of {schema['enum']}"
    if isinstance(value, dict):
        for key in schema.get("required", []):
            if key not in value:
                return f"{where} is missing required key {key!r}"
        properties = schema.get("properties", {})
        if schema.get("additionalProperties") is False:
            extra = sorted(set(value) - set(properties))
            if extra:
                return f"{where} has unexpected keys {extra}"
        for key, sub in properties.items():
            if key in value and (problem := validate(value[key], sub, f"{where}.{key}")):
                return problem
    if isinstance(value, list):
        if len(value) < schema.get("minItems", 0):
            return f"{where} needs at least {schema['minItems']} items"
        if "maxItems" in schema and len(value) > schema["maxItems"]:
            return f"{where} allows at most {schema['maxItems']} items"
        for i, item in enumerate(value):
            if "items" in schema and (problem := validate(item, schema["items"], f"{where}[{i}]")):
                return problem
    return None


def parse_reply(text: str, schema: dict | None) -> tuple[Any, str | None]:
    """(value, None) when `text` holds JSON matching `schema`, else (None, the problem)."""
    try:
        value = extract_json(text)
    except ValueError as exc:
        return None, str(exc)
    problem = validate(value, schema) if schema else None
    return (None, problem) if problem else (value, None)
