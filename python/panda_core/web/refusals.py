"""Wording pydantic's validation errors as the API's refusals: one message naming each field that
was wrong and what it allows, with the status the API documents (``docs/web_api.md``):

- **400** (:class:`Malformed`): not JSON, not an object, a missing field, an unknown field, a
  value of the wrong type or form (``"2"`` for a number, a token with a space);
- **422** (:class:`Unprocessable`): only values of the right type out of their bounds (a move
  notation over 200 characters), as for the values the engine refuses.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from panda_core.web.errors import Malformed, Unprocessable, WebError

__all__ = ["cut", "refusal"]

OUT_OF_BOUNDS = frozenset(
    {
        "string_too_long",
        "string_too_short",
        "too_long",
        "too_short",
        "greater_than",
        "greater_than_equal",
        "less_than",
        "less_than_equal",
    }
)
"""pydantic's errors for a value of the right type outside its bounds (422, not 400)."""
SOURCES = {"body": "the body", "query": "the query", "path": "the address"}
"""What FastAPI's first location element names, as a message says it."""
MAX_LISTED = 3
"""Errors a message names (a body of a thousand wrong values gets a short answer)."""


def cut(value: object, limit: int = 60) -> str:
    """``repr(value)``, cut to about ``limit`` characters (a message quotes what was sent)."""
    text = repr(value)
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text)} characters)"


def _place(loc: Sequence[str | int]) -> str:
    """Where in a request an error is: the field, then list positions (``bots[2]``). A later
    name is the tag of a union's member (the kind of a move), not a place, so it is left out:
    no request nests objects."""
    if not loc:
        return ""
    head, *rest = loc
    return str(head) + "".join(f"[{p}]" for p in rest if isinstance(p, int))


_JSON_KINDS = ((bool, "a boolean"), (int, "a number"), (float, "a number"), (str, "a string"),
               (list, "an array"))  # fmt: skip
"""What a decoded JSON value is called (bool first: a bool is an int to Python)."""


def _kind_of(value: object) -> str:
    """The JSON kind of ``value`` (what a body or message that is no object was)."""
    if value is None:
        return "null"
    return next((name for kind, name in _JSON_KINDS if isinstance(value, kind)), cut(value))


def _describe(error: Mapping[str, Any], what: str, place: str) -> str:
    """One wrong value (not a missing or unknown field): where, what it allows, what it was."""
    kind = error["type"]
    if kind == "json_invalid":
        return f"{what} is not valid JSON: {error.get('ctx', {}).get('error', error['msg'])}"
    if not place:  # the whole body or message
        got = "nothing" if kind == "missing" else _kind_of(error.get("input"))
        return f"{what} must be a JSON object, got {got}"
    message = str(error["msg"])
    return f"{place}: {message[:1].lower()}{message[1:]}, got {cut(error.get('input'))}"


def _some(items: list[str], between: str = ", ") -> str:
    """The first :data:`MAX_LISTED` of ``items``, and how many more there are."""
    more = f"{between}and {len(items) - MAX_LISTED} more" if len(items) > MAX_LISTED else ""
    return between.join(items[:MAX_LISTED]) + more


def refusal(
    errors: Sequence[Mapping[str, Any]], what: str | None = None, fields: Sequence[str] = ()
) -> WebError:
    """The refusal for pydantic's (or FastAPI's) ``errors``: 422 if every one is a value out of
    its bounds, 400 otherwise. ``what`` names what was validated (``"the message"``); without
    it, each error's location starts with FastAPI's source (``body``, ``query``, ``path``).
    ``fields``: the fields of the body or message, listed after a missing or unknown one."""
    needs: dict[str, list[str]] = {}
    unknown: list[str] = []
    faults: list[str] = []
    list_fields = False
    for error in errors:
        loc = list(error.get("loc", ()))
        if what is None:
            source = str(loc.pop(0)) if loc else "body"
            said = SOURCES.get(source, f"the {source}")
        else:
            source, said = "message", what
        place, kind = _place(loc), error["type"]
        if kind == "missing" and place:
            needs.setdefault(said, []).append(place)
        elif kind == "extra_forbidden" and place:
            unknown.append(place)
        else:
            faults.append(_describe(error, said, place))
            continue
        list_fields = list_fields or source in ("body", "message")
    parts = [f"{said} needs {', '.join(places)}" for said, places in needs.items()]
    if unknown:  # as many as a body holds: a few are named, each cut short
        parts.append(f"unknown field(s) {_some(list(map(cut, unknown)))}")
    if list_fields and fields:
        parts.append(f"the fields are {list(fields)}")
    if faults:
        parts.append(_some(list(dict.fromkeys(faults)), "; "))
    text = "; ".join(parts)
    if errors and all(e.get("type") in OUT_OF_BOUNDS for e in errors):
        return Unprocessable(text)
    return Malformed(text)
