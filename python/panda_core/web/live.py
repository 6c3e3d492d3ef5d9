"""What a server keeps per live table and per replay: the table, its tokens, pages and cached
states, and the presence of its people (who is here, away, invited, or played by the stand-in).
:class:`panda_core.web.tables.Registry` holds them and does everything that changes them."""

from __future__ import annotations

import asyncio
import json
import secrets
from dataclasses import dataclass, field
from typing import Any

from panda_core.table import Replay, Table
from panda_core.web.bot_hub import BotGame
from panda_core.web.sockets import Connection

__all__ = ["SPECTATOR", "LiveReplay", "LiveTable"]

SPECTATOR = -1
"""The key of the spectators' state in :attr:`LiveTable.states`."""


@dataclass(eq=False)
class LiveTable:
    id: str
    table: Table
    tokens: dict[int, str]
    last_used: float
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    connections: set[Connection] = field(default_factory=set)
    bots: asyncio.Task[None] | None = None
    """The task moving the bots, while one is running (set and cleared under :attr:`lock`)."""
    closed: bool = False
    version: int = 0
    """Moves played at this table so far (a cached state is good for one version)."""
    finished_at: float | None = None
    """When the game ended (the table then no longer counts against the table limit)."""
    states: dict[int, tuple[int, str]] = field(default_factory=dict)
    """Each seat's state as JSON, with the version it was built at."""
    replay_id: str | None = None
    """The replay of the finished game, once one was asked for (it is built once)."""
    remote: dict[int, BotGame] = field(default_factory=dict)
    """The seats connected bots play (``bot:NAME``), with their games."""
    forfeits: list[dict[str, Any]] = field(default_factory=list)
    """The forfeits of its connected bots: ``{"seat", "bot", "kind", "reason"}``."""
    spectator_token: str = field(default_factory=lambda: secrets.token_urlsafe(18))
    """The token of the table's spectators (they see the public state only)."""
    stand_in: str | None = None
    """The built-in bot that plays an absent person's seat (``None``: the seat waits)."""
    hold: float = 60.0
    """Seconds an absent person's seat is held before :attr:`stand_in` plays it."""
    seen: dict[int, float] = field(default_factory=dict)
    """Each person's seat: when it last had a page open or sent a request."""
    joined: set[int] = field(default_factory=set)
    """The persons' seats that ever connected (the others are still invited)."""
    standing_in: set[int] = field(default_factory=set)
    """The persons' seats the stand-in plays now."""
    watchers: dict[int, asyncio.Task[None]] = field(default_factory=dict)
    """The tasks waiting for an absent person's hold to run out."""

    def pages(self, seat: int | None) -> int:
        """Pages open for ``seat`` (``None``: spectators)."""
        return sum(1 for c in self.connections if c.seat == seat)

    @property
    def people(self) -> list[int]:
        return sorted(self.tokens)

    def attended(self) -> bool:
        """Whether a person of the table has a page of it open (the stand-in plays only then:
        with nobody at the table, it waits instead of playing the game out alone)."""
        return any(c.seat in self.tokens for c in self.connections)

    def name(self, seat: int) -> str:
        """The seat's name as others see it (the one-person form's "you" is "person")."""
        name = self.table.seats[seat].name
        return "person" if name == "you" else name

    def presence(self) -> list[dict[str, Any]]:
        """Each seat's presence (``state["presence"]``, docs/web_api.md)."""
        out: list[dict[str, Any]] = []
        for s in range(self.table.players):
            name = self.name(s)
            if s not in self.tokens:
                kind = "connected bot" if s in self.remote else "bot"
                out.append(
                    {
                        "seat": s,
                        "kind": "bot",
                        "name": name,
                        "status": "bot",
                        "pages": 0,
                        "stand_in": None,
                        "text": f"{name} ({kind})",
                    }
                )
                continue
            pages = self.pages(s)
            after = (
                "the seat waits for them"
                if self.stand_in is None
                else f"the {self.stand_in} bot plays for {name} after {self.hold:g} s away"
            )
            if s in self.standing_in:
                status = "stand_in"
                text = f"{name} is away: the {self.stand_in} bot plays for {name} until they return"
            elif pages:
                status, text = "here", f"{name} is here"
            elif s not in self.joined:
                status, text = "invited", f"{name} has not joined yet; {after}"
            else:
                status, text = "away", f"{name} is away; {after}"
            out.append(
                {
                    "seat": s,
                    "kind": "person",
                    "name": name,
                    "status": status,
                    "pages": pages,
                    "stand_in": self.stand_in if s in self.standing_in else None,
                    "text": text,
                }
            )
        return out

    def with_presence(self, state_json: str) -> str:
        """A state's JSON with ``presence`` added (it changes without a move, so it is not part
        of the cached state)."""
        extra = {"presence": self.presence(), "spectators": self.pages(None)}
        return state_json[:-1] + ", " + json.dumps(extra)[1:]


@dataclass(eq=False)
class LiveReplay:
    id: str
    full: Replay
    """The replay with full information; a seat's view shares its positions."""
    game: str
    players: int
    frames: int
    last_used: float
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    """One frame at a time: the positions are shared by every seat's view."""

    def summary(self) -> dict[str, Any]:
        return {
            "replay": self.id,
            "frames": self.frames,
            "players": self.players,
            "game": self.game,
        }
