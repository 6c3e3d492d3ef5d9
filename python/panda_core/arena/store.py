"""The arena's results folder: what makes an arena resumable after Ctrl-C, a crash or a killed
machine, and what keeps one arena's games from ever being read as another's.

* ``arena.json`` — the folder's identity, written atomically: the format and its version, the
  arena's identity (entrants with their specs and policy hashes, game, players, rules, seed,
  permutations, move and game times), its SHA-256, the most deals any run in this folder
  scheduled, and a random key of this folder.
* ``games.jsonl`` — one finished game per line, appended as results arrive, flushed and synced
  to disk after each batch, so at most the games in flight are lost. Each line is
  ``MatchResult.to_json()`` (game index, deal, the deal's seed, line-up of entrant indices,
  winner, scores, places, forfeit) plus ``check``: an HMAC-SHA256 of the line's canonical JSON
  keyed by the folder's key and the arena's identity.

Reading a folder trusts nothing in it. ``arena.json`` must be a regular file of at most
:data:`MAX_HEADER_BYTES` holding this arena; game lines without it are refused (nothing would
say whose games they are). ``games.jsonl`` must be a regular file no larger than the schedule
could fill; each line at most :data:`MAX_LINE_BYTES`, read one at a time. Every line must be a
JSON object of exactly the written shape, a game of the schedule (:mod:`panda_core.arena.checks`:
index in range, deal, seed and line-up as scheduled, outcome consistent), not a game already
read, with a matching ``check``: an edited score, winner or place, a line of another folder or
another arena fails it. A bad line is an :class:`ArenaError` naming the file and the line; the
folder is left as it was. Only a torn last line (no newline: the arena was stopped while writing
it) is dropped, and its game played again; :attr:`ResultsStore.repaired` says so.

The checksum detects damage, edits by hand and mixed-up files; it is no signature: whoever can
run this code can forge a line (docs/rate_your_bot.md, "What the arena does not protect").
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import io
import json
import os
import secrets
import stat
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from panda_core._args import cut
from panda_core._strict_json import strict_loads
from panda_core.arena.checks import MAX_RECORD_CHARS, BadResult, result_from_json
from panda_core.arena.errors import ArenaError
from panda_core.arena.model import ArenaSettings, MatchResult
from panda_core.arena.schedule import MAX_DEALS, games_per_deal

__all__ = [
    "FORMAT",
    "MAX_HEADER_BYTES",
    "MAX_LINE_BYTES",
    "VERSION",
    "ResultsStore",
    "identity_sha256",
    "line_check",
]

FORMAT = "panda-core/arena"
VERSION = 3
"""Version 3: lines carry ``left``, the round each seat left the game in, and Panda Head's
places follow that order (version 2 tied every loser second). Version 2: lines carry their
checksum and the header the folder's key (version 1 had neither). Older folders are refused:
their places are not this version's, or their games cannot be checked."""

MAX_HEADER_BYTES = 2**20
"""Largest ``arena.json`` read (64 entrants with long specs take a few hundred kB)."""
MAX_LINE_BYTES = MAX_RECORD_CHARS + 2**16
"""Longest line of ``games.jsonl``: a forfeit's record is kept to :data:`MAX_RECORD_CHARS`,
and the rest of a line takes a few kB."""

_HEADER_KEYS = frozenset(("format", "version", "arena", "identity", "deals", "folder"))
_LINE_START = b'{"game":'
"""How every line begins (``MatchResult.to_json`` puts the game first): a torn last line is
dropped only if it is the start of one."""

_WAY_OUT = "use another results folder (--out), or delete this one to play the arena afresh"


def identity_sha256(settings: ArenaSettings) -> str:
    """The SHA-256 (hex) of the arena's identity (``settings.identity()``, keys sorted): the
    same arena, whatever its deals, has the same one."""
    text = json.dumps(settings.identity(), sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


def line_check(data: dict[str, Any], key: bytes) -> str:
    """The ``check`` of a line whose other keys are ``data``: HMAC-SHA256 of their canonical JSON
    (sorted keys, no spaces, ASCII) under ``key``."""
    canonical = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hmac.new(key, canonical.encode("ascii"), hashlib.sha256).hexdigest()


class ResultsStore:
    """The results folder of one arena (see the module docs)."""

    def __init__(
        self,
        folder: Path,
        results: dict[int, MatchResult],
        log: io.FileIO,
        key: bytes,
        repaired: str | None = None,
    ) -> None:
        self.folder = folder
        self.results = results
        """The games finished so far, by game index."""
        self.repaired = repaired
        """What was repaired on opening (a torn last line dropped), in words; ``None``: nothing."""
        self._log = log
        self._key = key

    @classmethod
    def open(cls, folder: str | os.PathLike[str], settings: ArenaSettings) -> ResultsStore:
        """The folder for ``settings``: created, or reopened with its games if it holds the same
        arena (:class:`ArenaError` if it holds another, or anything it cannot vouch for)."""
        path = Path(folder)
        try:
            path.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            raise ArenaError(
                f"cannot create the results folder {cut(str(path))!r}: {err.strerror or err}"
            ) from None
        header_path, games_path = path / "arena.json", path / "games.jsonl"
        digest = identity_sha256(settings)
        header = _read_header(header_path, settings, digest)
        log = _open_games(games_path, create=False)
        try:
            if header is None:
                if log is not None and os.fstat(log.fileno()).st_size > 0:
                    raise ArenaError(
                        f"{path} holds games ({games_path.name}) but no arena.json, so nothing "
                        "says which arena they belong to (they are never read under this "
                        f"arena's names); {_WAY_OUT}"
                    )
                folder_key, stored_deals = secrets.token_hex(16), settings.deals
            else:
                folder_key, stored_deals = header
            key = bytes.fromhex(folder_key) + bytes.fromhex(digest)
            results: dict[int, MatchResult] = {}
            repaired = None
            if log is not None:
                results, keep = _read_games(log, games_path, settings, stored_deals, key)
                if keep is not None:
                    # Every line before it passed: only now is the folder changed.
                    os.ftruncate(log.fileno(), keep)
                    repaired = (
                        f"{games_path}: the last line was cut short (the arena was stopped while "
                        "writing it); it was dropped and its game is played again"
                    )
            header_text = {
                "format": FORMAT,
                "version": VERSION,
                "arena": settings.identity(),
                "identity": digest,
                # The most deals scheduled here: stored games are checked against this schedule
                # (a run with fewer deals leaves the games beyond its own in place).
                "deals": max(stored_deals, settings.deals),
                "folder": folder_key,
            }
            _write_atomic(header_path, json.dumps(header_text, indent=2) + "\n")
            if log is None:
                log = _open_games(games_path, create=True)
                assert log is not None
        except BaseException:
            if log is not None:
                log.close()
            raise
        return cls(path, results, log, key, repaired)

    def append(self, results: Iterable[MatchResult]) -> None:
        """Add finished games, on disk before this returns."""
        lines = []
        for result in results:
            data = result.to_json()
            data["check"] = line_check(result.to_json(), self._key)
            line = json.dumps(data, separators=(",", ":"), ensure_ascii=True) + "\n"
            if len(line) > MAX_LINE_BYTES:  # the runner keeps records shorter: never seen
                raise ArenaError(f"the result of game {result.index} is too long to store")
            self.results[result.index] = result
            lines.append(line)
        if lines:
            view = memoryview("".join(lines).encode("ascii"))
            while view:
                view = view[self._log.write(view) or 0 :]
            os.fsync(self._log.fileno())

    def close(self) -> None:
        self._log.close()

    def __enter__(self) -> ResultsStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _open_regular(path: Path, flags: int) -> int | None:
    """A descriptor of ``path`` if it is a regular file (``None`` if it does not exist). Opened
    without blocking and checked on the descriptor itself, so a FIFO or a device put in its
    place is refused, never read (and cannot be swapped in between the check and the read)."""
    flags |= os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags, 0o666)
    except FileNotFoundError:
        return None
    except OSError as err:
        raise ArenaError(f"cannot open {path}: {err.strerror or err}; {_WAY_OUT}") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise ArenaError(f"{path} is not a regular file; {_WAY_OUT}")
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def _open_games(path: Path, *, create: bool) -> io.FileIO | None:
    flags = os.O_RDWR | os.O_APPEND | (os.O_CREAT if create else 0)
    fd = _open_regular(path, flags)
    return None if fd is None else io.FileIO(fd, "r+", closefd=True)


def _parse(text: bytes) -> Any:
    """JSON text, strictly: UTF-8, no repeated keys (:class:`ValueError` otherwise; a nesting
    deep enough to exhaust the parser is a ``ValueError`` too)."""
    return strict_loads(text)


def _read_header(path: Path, settings: ArenaSettings, digest: str) -> tuple[str, int] | None:
    """The folder's key and stored deals from ``arena.json``, if it holds this arena (``None``:
    no header); :class:`ArenaError` if it holds another or cannot be read."""
    fd = _open_regular(path, os.O_RDONLY)
    if fd is None:
        return None
    with io.FileIO(fd, "r", closefd=True) as f:
        raw = f.read(MAX_HEADER_BYTES + 1)
    if len(raw) > MAX_HEADER_BYTES:
        raise ArenaError(
            f"{path} is larger than an arena's header can be ({MAX_HEADER_BYTES} bytes); {_WAY_OUT}"
        )
    try:
        found = _parse(raw)
    except ValueError as err:
        raise ArenaError(f"{path} is not an arena's header ({err}); {_WAY_OUT}") from None
    if not isinstance(found, dict) or found.get("format") != FORMAT:
        raise ArenaError(f"{path} is not the header of a panda-core arena; {_WAY_OUT}")
    version = found.get("version")
    if version != VERSION:
        raise ArenaError(
            f"{path} is of results format {cut(str(version))}, this panda-core reads format "
            f"{VERSION} (whose games carry checksums and the order seats left the game in); "
            f"{_WAY_OUT}"
        )
    if set(found) != _HEADER_KEYS:
        keys = ", ".join(sorted(_HEADER_KEYS))
        raise ArenaError(f"{path} is damaged: a header holds exactly {keys}; {_WAY_OUT}")
    ours, theirs = settings.identity(), found["arena"]
    if theirs != ours:
        theirs = theirs if isinstance(theirs, dict) else {}
        differ = sorted(k for k in ours if ours.get(k) != theirs.get(k)) or ["its keys"]
        raise ArenaError(
            f"{path.parent} holds another arena (it differs in {', '.join(differ)}); resume "
            "it with the same settings, or choose another folder (more --deals is fine)"
        )
    if found["identity"] != digest:
        raise ArenaError(f"{path} is damaged: its identity is not its arena's hash; {_WAY_OUT}")
    deals, folder_key = found["deals"], found["folder"]
    if isinstance(deals, bool) or not isinstance(deals, int) or not 1 <= deals <= MAX_DEALS:
        raise ArenaError(f"{path} is damaged: deals must be in 1..={MAX_DEALS}; {_WAY_OUT}")
    if not isinstance(folder_key, str) or len(folder_key) != 32 or not _is_hex(folder_key):
        raise ArenaError(
            f"{path} is damaged: folder is 32 hexadecimal digits, got {cut(str(folder_key))!r}; "
            f"{_WAY_OUT}"
        )
    return folder_key, deals


def _is_hex(text: str) -> bool:
    return all(c in "0123456789abcdef" for c in text)


def _read_games(
    log: io.FileIO, path: Path, settings: ArenaSettings, deals: int, key: bytes
) -> tuple[dict[int, MatchResult], int | None]:
    """Every game of ``games.jsonl``, checked (see the module docs), and where to cut the file
    if its last line is torn (``None``: it is whole). Nothing is changed here."""
    per_deal = games_per_deal(len(settings.entrants), settings.players, settings.permutations)
    scheduled = deals * per_deal
    size = os.fstat(log.fileno()).st_size
    if size > scheduled * MAX_LINE_BYTES:
        raise ArenaError(
            f"{path} ({size} bytes) is larger than this arena's {scheduled} games could fill; "
            f"{_WAY_OUT}"
        )
    reader = io.BufferedReader(log, buffer_size=2**16)
    try:
        return _read_lines(reader, path, settings, deals, key, scheduled)
    finally:
        reader.detach()  # the descriptor stays open: the store appends through it


def _read_lines(
    reader: io.BufferedReader[io.FileIO],
    path: Path,
    settings: ArenaSettings,
    deals: int,
    key: bytes,
    scheduled: int,
) -> tuple[dict[int, MatchResult], int | None]:
    results: dict[int, MatchResult] = {}
    offset = 0
    number = 0
    while raw := reader.readline(MAX_LINE_BYTES + 1):
        number += 1
        where = f"{path}, line {number},"
        if len(raw) > MAX_LINE_BYTES:
            raise ArenaError(
                f"{where} is longer than a game result can be ({MAX_LINE_BYTES} bytes); "
                f"the file was edited or damaged: {_WAY_OUT}"
            )
        if not raw.endswith(b"\n"):
            # The last line has no end: the machine died or the arena was stopped while writing
            # it. Dropped only if it is the start of a line as written (or the zeros a crashed
            # file system can leave): anything else there is not a torn write.
            if _LINE_START.startswith(raw[: len(_LINE_START)]) or not raw.strip(b"\0"):
                return results, offset
            raise ArenaError(
                f"{where} is not a game result (it does not start as one, and has no end); the "
                f"file was edited or damaged: {_WAY_OUT}"
            )
        if number > scheduled:
            raise ArenaError(
                f"{where} is one line more than this arena's {scheduled} games; the file was "
                f"edited or damaged: {_WAY_OUT}"
            )
        offset += len(raw)
        result = _read_line(raw, where, settings, deals, key)
        if result.index in results:
            raise ArenaError(
                f"{where} holds game {result.index} again (an earlier line holds it); the file "
                f"was edited or damaged: {_WAY_OUT}"
            )
        results[result.index] = result
    return results, None


def _read_line(
    raw: bytes, where: str, settings: ArenaSettings, deals: int, key: bytes
) -> MatchResult:
    try:
        data = _parse(raw)
    except ValueError as err:
        raise ArenaError(
            f"{where} is not a game result (not JSON: {err}); the file was edited or damaged: "
            f"{_WAY_OUT}"
        ) from None
    check = data.pop("check", None) if isinstance(data, dict) else None
    try:
        result = result_from_json(data, settings, deals)
    except BadResult as err:
        raise ArenaError(
            f"{where} is not a game of this arena ({err}); the file was edited or damaged: "
            f"{_WAY_OUT}"
        ) from None
    if (
        not isinstance(check, str)
        or not check.isascii()
        or not hmac.compare_digest(check, line_check(data, key))
    ):
        what = "has no checksum" if check is None else "does not match its checksum"
        raise ArenaError(
            f"{where} {what}: it was edited, or written for another folder or arena; {_WAY_OUT}"
        )
    return result


def _write_atomic(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    try:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()  # a stale one (a FIFO put there included) is never written through
        with open(tmp, "x", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except OSError as err:
        raise ArenaError(f"cannot write {path}: {err.strerror or err}") from None
