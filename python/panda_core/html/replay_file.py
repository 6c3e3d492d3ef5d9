"""A replay as one self-contained HTML file (or a notebook output), as one seat saw the game.

The frames are the replay's own (:meth:`panda_core.table.Replay.frame`), so a seat's file holds
only what that seat knew at each moment. They are stored compactly: a frame's events are always
the first ``n`` of the last frame's events (a log only grows), so the events are stored once and
each frame keeps ``events_n``; every frame after the first is stored as the changes from the one
before (``[path, value]`` to set, ``[path]`` to delete, ``[path, rest, n]`` to keep a list's
first ``n`` items and put ``rest`` after them), which the page applies when it opens.
The whole is stored gzipped (base64), unpacked by the browser's own ``DecompressionStream``: a
1,079-move climbing game seen by one seat is a file of about 240 KB.
"""

from __future__ import annotations

import base64
import gzip
import json
import os
from pathlib import Path
from typing import Any

from panda_core.html.bundle import HtmlError
from panda_core.html.page import document, fragment, plain_text

__all__ = [
    "MAX_HTML_BYTES",
    "MAX_HTML_FRAMES",
    "packed",
    "replay_data",
    "replay_fragment",
    "unpacked",
    "write_replay_file",
]

MAX_HTML_BYTES = 16 * 1024 * 1024
"""The largest replay file written. The longest records a replay reads hold 20,000 moves; a
1,079-move climbing game makes a file of 240 KB (290 KB with every hand; docs/notebooks.md)."""

MAX_HTML_FRAMES = 2_501
"""The most frames (moves + 1) an HTML replay holds. The frames are built in time linear in the
moves (:meth:`Replay.frames`), but each holds its table, log groups and legal moves, so a file
grows with the moves: 1,079 moves make about 240 KB. The longest games of 20,000 of each kind
with the default rules had 1,214 moves (``MAX_RECORD_MOVES``)."""

SPEEDS = [[2000, "slow (2 s)"], [800, "normal (0.8 s)"], [300, "fast (0.3 s)"], [80, "fastest"]]

Patch = list[Any]


def _patches(old: dict[str, Any], new: dict[str, Any], path: list[Any], out: list[Patch]) -> None:
    for key, value in new.items():
        if key not in old:
            out.append([[*path, key], value])
            continue
        before = old[key]
        if before == value:
            continue
        if isinstance(before, dict) and isinstance(value, dict):
            _patches(before, value, [*path, key], out)
        elif isinstance(before, list) and isinstance(value, list):
            same = _common_start(before, value)
            if same:  # the list keeps its first `same` items: [path, the rest, same]
                out.append([[*path, key], value[same:], same])
            else:
                out.append([[*path, key], value])
        else:
            out.append([[*path, key], value])
    for key in old:
        if key not in new:
            out.append([[*path, key]])


def _common_start(a: list[Any], b: list[Any]) -> int:
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i] == b[i]:
        i += 1
    return i


def replay_data(replay: Any, seat: int | None, title: str | None = None) -> dict[str, Any]:
    """What the page needs to step through ``replay`` as ``seat`` saw it (``None``: every
    hand)."""
    view = replay.for_seat(seat)
    count = len(view)
    if count > MAX_HTML_FRAMES:
        raise HtmlError(
            f"an HTML replay holds at most {MAX_HTML_FRAMES} frames (moves + 1), this game has "
            f"{count}: replay it in the terminal or the browser (panda-core replay / serve)"
        )
    first: dict[str, Any] = {}
    before: dict[str, Any] = {}
    patches: list[list[Patch]] = []
    events: list[Any] = []
    last: dict[str, Any] = {}
    for k, frame in enumerate(view.frames()):  # one at a time: memory linear in the moves
        own = frame.pop("events")
        if own[: len(events)] != events:  # a log only grows: never seen
            raise HtmlError(f"frame {k}'s events do not continue the frames before it")
        events = own
        frame["events_n"] = len(own)
        if k == 0:
            first = frame
        else:
            out: list[Patch] = []
            _patches(before, frame, [], out)
            patches.append(out)
        before = last = frame
    who = "every hand (full information)" if seat is None else f"as seat {seat} saw it"
    heading = title or f"{last.get('title') or replay.game_name}: replay, {who}"
    return {
        "version": 1,
        "seat": seat,
        "title": heading,
        "first": first,
        "patches": patches,
        "events": events,
        "speeds": SPEEDS,
        "speed": 800,
        "start": 0,
        "keys_text": "keys: ← → step, Home/End, space plays or pauses",
    }


def packed(data: dict[str, Any]) -> dict[str, str]:
    """``data`` as ``{"gzip": base64}``: the page unpacks it with the browser's own
    ``DecompressionStream`` (a 1,079-move game's frames: 1.6 MB of JSON, 180 KB of gzip)."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    raw = gzip.compress(text.encode("utf-8"), compresslevel=9, mtime=0)
    return {"gzip": base64.b64encode(raw).decode("ascii")}


def unpacked(data: dict[str, Any]) -> dict[str, Any]:
    """What :func:`packed` packed (for tests and tools)."""
    text = gzip.decompress(base64.b64decode(data["gzip"], validate=True)).decode("utf-8")
    value: dict[str, Any] = json.loads(text)
    return value


def replay_fragment(
    replay: Any, seat: int | None, *, document_keys: bool = False, autoplay: bool = False
) -> tuple[str, str]:
    """The replay's element and its title."""
    data = replay_data(replay, seat)
    first = dict(data["first"])
    first["events"] = data["events"][: first.pop("events_n")]
    fallback = (
        f"{data['title']} ({len(data['patches']) + 1} frames; open this with scripts on to step "
        "through it)\nFirst frame:\n" + plain_text(first)
    )
    body = fragment(
        packed(data),
        "replay",
        fallback,
        kind="replay",
        options={"documentKeys": document_keys, "autoplay": autoplay},
    )
    return body, str(data["title"])


def write_replay_file(
    replay: Any, path: str | os.PathLike[str], seat: int | None, *, autoplay: bool = False
) -> Path:
    """Write the replay's HTML file at ``path`` (replaced if it exists); returns the path."""
    body, title = replay_fragment(replay, seat, document_keys=True, autoplay=autoplay)
    text = document(title, body)
    size = len(text.encode("utf-8"))
    if size > MAX_HTML_BYTES:
        raise HtmlError(
            f"the replay's HTML would be {size} bytes, over the {MAX_HTML_BYTES} a file may be"
        )
    target = Path(os.fspath(path))
    if target.is_dir():
        raise HtmlError(f"{target} is a folder: to_html writes a file")
    tmp = target.with_name(target.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, target)
    return target
