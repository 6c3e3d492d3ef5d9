"""HTML text of the views: a fragment for a notebook output, a whole document for a file.

A view is one element ``<div class="pc-html" id=ID>`` holding the page's scoped style, a plain-text
fallback (``<pre>``, for viewers that run no script: the hand, the table, the scores), its data
as JSON in ``<script type="application/json">`` and the bundled script that draws it. The JSON is
embedded so that no string in it can end the script element or open a comment: every ``<``,
``>`` and ``&`` in it is written as a JSON escape (``\\u003c``), which ``JSON.parse`` reads back
unchanged.
"""

from __future__ import annotations

import html
import json
import uuid
from collections.abc import Mapping, Sequence
from typing import Any

from panda_core.html.bundle import SCOPE, scoped_css, script_and_key

__all__ = ["document", "embed_json", "fragment", "new_id", "plain_text"]

_RESET_CSS = f"""
.{SCOPE} :is(h1, h2, h3, h4, h5, h6, p, ol, ul, li, dl, dt, dd, button, select, option, input,
  label, pre, code, table, thead, tbody, tr, td, th, strong, em, b, i, a, section, header,
  footer, nav, form, fieldset, legend, blockquote, hr) {{ all: revert; box-sizing: border-box; }}
"""
"""Put before the page's style: the elements a notebook's own style sheet commonly styles (its
headings, paragraphs, lists, tables, buttons) go back to the browser's defaults inside a view,
then the page's rules apply to them as on the page. The reset's selector weighs as much as a
notebook's ``.jp-RenderedHTMLCommon h3`` and comes later, so it wins; the page's rules weigh as
much or more and come later still. (SVG drawings are left alone: ``all`` would drop their
attributes.)"""

_EXTRA_CSS = f"""
.{SCOPE} {{ text-align: left; line-height: 1.35; padding: 0.4rem; border-radius: 8px; }}
.{SCOPE} [hidden] {{ display: none !important; }}
.{SCOPE}:focus {{ outline: 2px solid var(--accent); outline-offset: 2px; }}
.{SCOPE} .pc-html__text {{ white-space: pre-wrap; font-size: 0.85rem; margin: 0; background: none;
  border: 0; color: var(--ink); }}
.{SCOPE} .pc-html__note {{ margin: 0 0 0.5rem; font-size: 0.9rem; color: var(--muted); }}
.{SCOPE} .pc-html__title {{ margin: 0 0 0.4rem; font-weight: 600; }}
.{SCOPE} .pc-html__slider {{ flex: 1 1 12rem; min-width: 8rem; }}
"""


def new_id() -> str:
    """A fresh element id: two views in one notebook never share one."""
    return f"{SCOPE}-{uuid.uuid4().hex[:16]}"


def embed_json(value: Any) -> str:
    """``value`` as compact JSON safe inside ``<script type="application/json">``: no ``<``,
    ``>`` or ``&`` (escaped as ``\\u003c`` …), no line or paragraph separator; NaN refused."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    for raw, escaped in (
        ("<", "\\u003c"),
        (">", "\\u003e"),
        ("&", "\\u0026"),
        ("\u2028", "\\u2028"),
        ("\u2029", "\\u2029"),
    ):
        text = text.replace(raw, escaped)
    return text


def style() -> str:
    return _RESET_CSS + scoped_css() + _EXTRA_CSS


def fragment(
    data: Mapping[str, Any],
    call: str,
    fallback: str,
    *,
    kind: str,
    options: Mapping[str, Any] | None = None,
    with_script: bool = True,
) -> str:
    """One view's element: ``call`` is the driver's function (``"show"``, ``"replay"``)."""
    view_id = new_id()
    args = json.dumps(view_id) + ("" if options is None else ", " + embed_json(dict(options)))
    parts = [
        f'<div class="{SCOPE}" id="{view_id}" data-kind="{html.escape(kind)}">',
        f"<style>{style()}</style>",
        f'<pre class="pc-html__text" data-testid="html-text">{html.escape(fallback)}</pre>',
        f'<script type="application/json" id="{view_id}-data">{embed_json(dict(data))}</script>',
    ]
    code, key = script_and_key()
    if with_script:
        parts.append(f"<script>{code}</script>")
    views = f'(window.PandaCoreHtml || {{}})["{key}"]'
    parts.append(f"<script>{views} && {views}.{call}({args});</script>")
    parts.append("</div>")
    return "\n".join(parts)


def document(title: str, body: str) -> str:
    """A whole HTML file around ``body``: nothing in it is loaded from anywhere."""
    return (
        "<!doctype html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        # a policy that forbids every load: the file works offline and stays self-contained
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
        "script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:\">\n"
        f'<link rel="icon" href="data:,">\n<title>{html.escape(title)}</title>\n'
        f"<style>body {{ margin: 0; background: #f4f1ea; }}</style>\n</head>\n<body>\n"
        f"{body}\n</body>\n</html>\n"
    )


# ---- the plain-text fallback -------------------------------------------------------------


def _card(card: Mapping[str, Any]) -> str:
    text = str(card.get("label", card.get("token", "?")))
    face, shown = card.get("face"), card.get("face_label")
    if face == "blue" and shown:
        text += f" (blue face: {shown})"
    return text


def _cards(cards: Sequence[Mapping[str, Any]]) -> str:
    return ", ".join(_card(c) for c in cards) or "no cards"


def _seat(state: Mapping[str, Any], s: int) -> str:
    seats = state.get("seats") or []
    name = seats[s].get("name") if s < len(seats) and isinstance(seats[s], Mapping) else None
    label = f"seat {s}" if not name or name == f"seat {s}" else f"seat {s} ({name})"
    return label + (" (you)" if s == state.get("seat") else "")


def plain_text(state: Mapping[str, Any]) -> str:
    """The state in a few lines (what a viewer that runs no script shows): whose turn, the
    scores, the hand(s), the table and the last move; only what the state holds."""
    lines = []
    title = state.get("title") or state.get("game") or "game"
    round_word = state.get("round_word") or "round"
    head = f"{title} · {round_word} {int(state.get('round') or 0) + 1}"
    if state.get("is_over"):
        winner = state.get("winner")
        head += " · game over: " + (
            "no winner" if winner is None else f"{_seat(state, winner)} wins"
        )
    elif state.get("to_move") is not None:
        head += f" · {_seat(state, state['to_move'])} to move"
    lines.append(head)
    places = [p for p in state.get("places") or [] if isinstance(p, Mapping) and p.get("text")]
    if places:
        lines.append("Places: " + "; ".join(str(p["text"]) for p in places))
    scores = state.get("scores") or []
    sizes = state.get("hand_sizes") or []
    for s in range(int(state.get("players") or len(scores))):
        score = scores[s] if s < len(scores) else "?"
        size = sizes[s] if s < len(sizes) else "?"
        status = (state.get("seat_status") or [])[s : s + 1]
        words = [
            str(x.get("word")) for x in (status[0] if status else []) if isinstance(x, Mapping)
        ]
        more = f" ({', '.join(words)})" if words else ""
        lines.append(f"  {_seat(state, s)}: score {score}, {size} in hand{more}")
    if state.get("hands"):
        lines.append("Every hand:")
        for s, cards in enumerate(state["hands"]):
            lines.append(f"  {_seat(state, s)}: {_cards(cards)}")
    elif state.get("seat") is not None:
        lines.append(f"Your hand: {_cards(state.get('hand') or [])}")
    table = state.get("table") or {}
    plays = table.get("plays") or []
    lines.append(
        f"{table.get('title') or 'table'}: "
        + ("; ".join(f"{p.get('text', '')}" for p in plays) if plays else "nothing yet")
    )
    if table.get("to_beat"):
        lines.append(f"  to beat: {table['to_beat']}")
    last = state.get("last_move")
    if last and last.get("text"):
        lines.append(f"Last move: {last['text']}")
    legal = state.get("legal") or []
    if legal:
        shown = ", ".join(str(m.get("text") or m.get("notation")) for m in legal[:12])
        more = f" … ({len(legal)} in all)" if len(legal) > 12 else ""
        lines.append(f"Legal moves: {shown}{more}")
    return "\n".join(lines)
