"""The arena's results folder: what makes an arena resumable after Ctrl-C, a crash or a killed
machine.

* ``arena.json`` — which arena the folder holds (its settings' identity and deals), written once
  at the start (atomically).
* ``games.jsonl`` — one finished game per line (``MatchResult.to_json()``), appended as results
  arrive, flushed and synced to disk after each batch, so at most the games in flight are lost.

Opening a folder that holds the same arena reads its games back, and the arena plays only the
others; a folder holding another arena is refused. A torn last line (the machine died while
writing it) is dropped; any other unreadable line means the file was edited, and is refused.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import IO, Any

from panda_core._args import cut
from panda_core.arena.errors import ArenaError
from panda_core.arena.model import ArenaSettings, MatchResult

__all__ = ["ResultsStore"]

FORMAT = "panda-core/arena"
VERSION = 1


class ResultsStore:
    """The results folder of one arena (see the module docs)."""

    def __init__(self, folder: Path, results: dict[int, MatchResult], log: IO[str]) -> None:
        self.folder = folder
        self.results = results
        """The games finished so far, by game index."""
        self._log = log

    @classmethod
    def open(cls, folder: str | os.PathLike[str], settings: ArenaSettings) -> ResultsStore:
        """The folder for ``settings``: created, or reopened with its games if it holds the same
        arena (:class:`ArenaError` if it holds another)."""
        path = Path(folder)
        try:
            path.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            raise ArenaError(
                f"cannot create the results folder {cut(str(path))!r}: {err}"
            ) from None
        header = path / "arena.json"
        wanted = {"format": FORMAT, "version": VERSION, "arena": settings.identity()}
        if header.exists():
            _check_same_arena(header, wanted)
        _write_atomic(header, json.dumps({**wanted, "deals": settings.deals}, indent=2) + "\n")
        games = path / "games.jsonl"
        results = _read_games(games) if games.exists() else {}
        return cls(path, results, games.open("a", encoding="utf-8"))

    def append(self, results: Iterable[MatchResult]) -> None:
        """Add finished games, on disk before this returns."""
        lines = []
        for result in results:
            self.results[result.index] = result
            lines.append(json.dumps(result.to_json(), separators=(",", ":")) + "\n")
        if lines:
            self._log.write("".join(lines))
            self._log.flush()
            os.fsync(self._log.fileno())

    def close(self) -> None:
        self._log.close()

    def __enter__(self) -> ResultsStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _check_same_arena(header: Path, wanted: dict[str, Any]) -> None:
    try:
        found = json.loads(header.read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise ArenaError(f"{header} is not an arena's header: {err}") from None
    if not isinstance(found, dict) or found.get("format") != FORMAT:
        raise ArenaError(f"{header.parent} holds no panda-core arena; choose another folder")
    if found.get("arena") != wanted["arena"]:
        ours, theirs = wanted["arena"], found.get("arena") or {}
        differ = sorted(k for k in ours if ours.get(k) != theirs.get(k))
        raise ArenaError(
            f"{header.parent} holds another arena (it differs in {', '.join(differ)}); resume "
            "it with the same settings, or choose another folder (more --deals is fine)"
        )


def _read_games(path: Path) -> dict[int, MatchResult]:
    data = path.read_bytes()
    complete = data[: data.rfind(b"\n") + 1]
    if len(complete) < len(data):
        # The last line has no end: the machine died while writing it. That game is played again.
        with path.open("r+b") as f:
            f.truncate(len(complete))
    results: dict[int, MatchResult] = {}
    for number, line in enumerate(complete.decode("utf-8", errors="replace").splitlines(), 1):
        if not line.strip():
            continue
        try:
            result = MatchResult.from_json(json.loads(line))
        except (ValueError, KeyError, TypeError) as err:
            raise ArenaError(
                f"{path}, line {number}, is not a game result ({err}); the file was edited or "
                "damaged: remove that line or start a new folder"
            ) from None
        results.setdefault(result.index, result)
    return results


def _write_atomic(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)
