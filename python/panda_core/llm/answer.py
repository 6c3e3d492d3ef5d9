"""The strict reader of a model's answer (docs/llm_agents.md, "The parser's rules").

An answer gives a move only in one way: exactly one line ``MOVE: <value>``, whose value is one
of the legal moves' notations exactly as listed, or ``#N`` with ``N`` a number of the list. The
reader never guesses: it does not pick the closest notation, it does not read a move out of the
prose, and it never replaces one move by another. What it may forgive is said here, all of it:

* text inside ``<think>…</think>`` is left out (reasoning models' own notes; an unclosed
  ``<think>`` leaves out the rest of the answer);
* the key ``MOVE`` may be written in any case and wrapped in ``**`` or ``__`` (markdown bold),
  and may be indented;
* around the value, the characters no notation holds are dropped: ``*``, ``_``, backticks,
  straight quotes and a final ``.`` (``MOVE: **`7+B`**.`` reads ``7+B``); runs of spaces in it
  count as one.

Then the answer is:

* ``move`` — the value is a legal notation or a listed number;
* ``illegal`` — the value names something that is not on the list (a notation that is not legal
  now, a number out of range): the retry names it and lists the legal moves again;
* ``unparsable`` — no ``MOVE:`` line, more than one, an empty value, or an answer too long to
  read: the retry restates the format.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from panda_core._args import cut

__all__ = ["MAX_ANSWER_CHARS", "Answer", "read_answer"]

MAX_ANSWER_CHARS = 100_000
"""Longest answer read (an answer longer than this is unparsable)."""

_THINK = re.compile(r"<think>.*?(?:</think>|\Z)", re.DOTALL | re.IGNORECASE)
_LINE = re.compile(r"^[ \t]*(?:\*\*|__)?MOVE(?:\*\*|__)?[ \t]*:(?:\*\*|__)?(.*)$", re.IGNORECASE)
_NUMBER = re.compile(r"#([0-9]{1,6})")
_AROUND = "*_`\"' \t"


@dataclass(frozen=True)
class Answer:
    """What an answer gave: ``kind``, the listed move's index (``move`` only) and the value as
    read (``illegal``) or why it could not be read (``unparsable``)."""

    kind: Literal["move", "illegal", "unparsable"]
    index: int | None = None
    detail: str = ""


def _value(raw: str) -> str:
    value = raw.strip(_AROUND)
    if value.endswith("."):
        value = value[:-1].strip(_AROUND)
    return " ".join(value.split())


def read_answer(text: str, notations: Sequence[str]) -> Answer:
    """The move ``text`` gives among ``notations`` (the legal moves, in listed order), or why it
    gives none (see the module docs)."""
    if len(text) > MAX_ANSWER_CHARS:
        return Answer("unparsable", detail=f"the answer is over {MAX_ANSWER_CHARS:,} characters")
    visible = _THINK.sub("", text)
    values = [m.group(1) for line in visible.splitlines() if (m := _LINE.match(line))]
    if not values:
        return Answer("unparsable", detail="it has no line starting with 'MOVE:'")
    if len(values) > 1:
        return Answer(
            "unparsable", detail=f"it has {len(values)} lines starting with 'MOVE:'; give one"
        )
    value = _value(values[0])
    if not value:
        return Answer("unparsable", detail="the MOVE line names no move")
    number = _NUMBER.fullmatch(value)
    if number is not None:
        k = int(number.group(1))
        if 1 <= k <= len(notations):
            return Answer("move", k - 1)
        return Answer("illegal", detail=f"#{k} (the list has #1 to #{len(notations)})")
    for i, notation in enumerate(notations):
        if value == notation:
            return Answer("move", i)
    return Answer("illegal", detail=repr(cut(value)))
