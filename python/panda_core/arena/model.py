"""What an arena is made of: its entrants, its games (one :class:`Match` each), what came of each
game (:class:`MatchResult`, a forfeit included) and the settings that decide all of them.

Everything here is plain data: it pickles (worker processes, Ray tasks) and has a JSON form
(``to_json`` / ``from_json``), the one the results folder keeps (``games.jsonl``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias

from panda_core._registry import AnyRules, GameName, spec

__all__ = [
    "ArenaSettings",
    "Entrant",
    "Forfeit",
    "ForfeitKind",
    "Match",
    "MatchResult",
    "Permutations",
]

Permutations: TypeAlias = Literal["rotations", "all"]
"""How each deal is replayed: ``"rotations"`` moves every entrant of a line-up one seat on for
each replay (each entrant sits in each seat once per deal); ``"all"`` plays every ordering of the
line-up (each entrant also follows each other one equally often; ``players!`` games per deal)."""

ForfeitKind: TypeAlias = Literal["exception", "illegal", "timeout", "dead_worker"]
"""Why a game was forfeited: the bot raised, answered an illegal move (or no move at all), took
longer than the move time, or its worker process died (or hung past the game's time)."""


@dataclass(frozen=True)
class Entrant:
    """One bot in the arena, under its label (unique in the arena).

    ``spec`` is a built-in bot name (``"heuristic"``, ``"ismcts:200"``: anything the engine's
    bot parser accepts), a protocol bot ``"exec:COMMAND"``, a language model ``"llm:MODEL"`` or
    a Python bot's import path ``"package.module:attr"`` (a class, instantiated afresh for each
    game, or a callable). ``bot`` is a Python bot object given directly from Python instead of a
    path (it must pickle to run in worker processes)."""

    label: str
    spec: str
    builtin: bool
    bot: Any = field(default=None, compare=False, repr=False)
    policy: str | None = None
    """For a ``neural`` entrant, the SHA-256 of the weights it plays (the shipped policy of the
    arena's game, or the file's): part of the arena's identity, so a results folder never mixes
    the games of two policies under one name."""
    contained: bool = True
    """Whether the entrant can reach nothing but its seat's information: a Python bot by import
    path run in a process of its own through the protocol's adapter (the arena's default), an
    ``exec:`` bot (a process of its own), an ``llm:`` bot (the model is sent its seat's prompt
    only), a built-in bot (the engine's code, deciding from its seat's information). ``False``:
    a Python bot that runs in the arena's own processes, next to the real game (``--in-process``,
    or a bot object, which cannot be contained)."""

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"label": self.label, "spec": self.spec, "builtin": self.builtin}
        if self.policy is not None:
            out["policy"] = self.policy
        out["contained"] = self.contained
        return out


@dataclass(frozen=True)
class Match:
    """One game of the arena: deal ``deal`` (dealt from ``seed``) with entrant ``lineup[s]`` at
    seat ``s``. ``index`` numbers the games of the arena in schedule order."""

    index: int
    deal: int
    seed: int
    lineup: tuple[int, ...]


@dataclass(frozen=True)
class Forfeit:
    """A game stopped by a misbehaving bot: ``seat`` (``None`` when a dead worker cannot be
    pinned on one seat), the ``entrant`` sitting there, why, and the game's record up to the
    refused move (``game.to_json()``; for a dead worker, the deal with no moves)."""

    seat: int | None
    entrant: int | None
    kind: ForfeitKind
    message: str
    record: str

    def to_json(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "entrant": self.entrant,
            "kind": self.kind,
            "message": self.message,
            "record": self.record,
        }

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> Forfeit:
        return Forfeit(
            seat=data["seat"],
            entrant=data["entrant"],
            kind=data["kind"],
            message=data["message"],
            record=data["record"],
        )


@dataclass(frozen=True)
class MatchResult:
    """What came of one :class:`Match`.

    ``ranks[s]`` is seat ``s``'s place (0 = first, equal places tie; the registry's
    ``placements``, from the winner, the scores and ``left``: the round, from 1, at whose end
    seat ``s`` left the game, 0 if it stayed: Panda Head's Pooped Pandas, in elimination
    order). A forfeited game has ``winner=None``, the forfeiting entrant's seats at the
    worst place a game can give (``stats.worst_place``) and every other seat tied first; the
    statistics count it as a loss for the forfeiting entrant only (``panda_core.arena.stats``).
    No field that decides a result holds a time: results are the same on any machine, backend
    or worker count. ``telemetry`` (an LLM entrant's tokens, latencies, retries, illegal and
    unparsable answers, per seat: ``{"1": {...}}``) is a measurement, kept beside the result and
    left out of comparisons.
    """

    index: int
    deal: int
    seed: int
    lineup: tuple[int, ...]
    winner: int | None
    scores: tuple[int, ...]
    ranks: tuple[int, ...]
    left: tuple[int, ...]
    rounds: int
    decisions: int
    forfeit: Forfeit | None = None
    telemetry: dict[str, Any] | None = field(default=None, compare=False)

    def to_json(self) -> dict[str, Any]:
        out = {
            "game": self.index,
            "deal": self.deal,
            "seed": self.seed,
            "lineup": list(self.lineup),
            "winner": self.winner,
            "scores": list(self.scores),
            "ranks": list(self.ranks),
            "left": list(self.left),
            "rounds": self.rounds,
            "decisions": self.decisions,
            "forfeit": None if self.forfeit is None else self.forfeit.to_json(),
        }
        if self.telemetry is not None:
            out["telemetry"] = self.telemetry
        return out

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> MatchResult:
        forfeit = data.get("forfeit")
        return MatchResult(
            index=int(data["game"]),
            deal=int(data["deal"]),
            seed=int(data["seed"]),
            lineup=tuple(int(x) for x in data["lineup"]),
            winner=None if data["winner"] is None else int(data["winner"]),
            scores=tuple(int(x) for x in data["scores"]),
            ranks=tuple(int(x) for x in data["ranks"]),
            left=tuple(int(x) for x in data["left"]),
            rounds=int(data["rounds"]),
            decisions=int(data["decisions"]),
            forfeit=None if forfeit is None else Forfeit.from_json(forfeit),
            telemetry=data.get("telemetry"),
        )


@dataclass(frozen=True)
class ArenaSettings:
    """Everything that decides an arena's games and their results (not how they are run: the
    backend and the worker count change nothing)."""

    game: GameName
    players: int
    entrants: tuple[Entrant, ...]
    deals: int
    seed: int
    permutations: Permutations
    rules: AnyRules
    move_time: float
    """Seconds a Python bot may take for one move before it forfeits."""
    game_time: float
    """Seconds one game may take before its worker is stopped (a bot stuck where the move
    timer cannot reach it, in C code): a ``dead_worker`` forfeit."""
    full_information: bool = False
    """The research opt-in: the Python bots that run in the arena's processes are handed the
    whole game (every hand, the draw pile) rather than their seat. True only when such a bot
    plays (contained bots get their seat's messages whatever this says)."""

    @property
    def labels(self) -> tuple[str, ...]:
        return tuple(e.label for e in self.entrants)

    def identity(self) -> dict[str, Any]:
        """What makes two arenas the same one (a results folder resumes only its own arena):
        every setting but ``deals``, which may grow between runs (the schedule's first games do
        not depend on it)."""
        return {
            "game": self.game,
            "players": self.players,
            "entrants": [e.to_json() for e in self.entrants],
            "seed": self.seed,
            "permutations": self.permutations,
            "rules": spec(self.game).rules_dict(self.rules),
            "move_time": self.move_time,
            "game_time": self.game_time,
            "full_information": self.full_information,
        }

    @property
    def contained(self) -> bool:
        """Whether every entrant is contained (:attr:`Entrant.contained`)."""
        return all(e.contained for e in self.entrants)
