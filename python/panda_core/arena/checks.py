"""What the arena trusts of a game's result: each result, whether read back from a results folder
or sent back by a worker, is checked against the schedule it claims to belong to before it
counts.

A result is accepted only if it is exactly the shape :meth:`MatchResult.to_json` writes (every
key, no other, each of its type), if it is a game of the schedule (its index within the arena's
games, its deal, the deal's seed and the line-up the schedule seats for that index), and if its
outcome is one a game can have: a finished game has a winner in range and the places the game's
own rule gives (the registry's ``placements``) from the winner and the scores; a forfeited one
has no winner, the forfeiting seat's entrant, and the places a forfeit gives. What cannot be
checked from the result alone (that the scores are the ones the bots reached) is protected by
the results folder's per-line checksum (:mod:`panda_core.arena.store`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, get_args

from panda_core._args import cut
from panda_core._registry import spec
from panda_core.arena.model import ArenaSettings, Forfeit, ForfeitKind, Match, MatchResult
from panda_core.arena.schedule import games_per_deal, match_at
from panda_core.arena.stats import worst_place

__all__ = [
    "MAX_MESSAGE_CHARS",
    "MAX_RECORD_CHARS",
    "BadResult",
    "checked_result",
    "result_from_json",
]

RESULT_KEYS = frozenset(
    "game deal seed lineup winner scores ranks left rounds decisions forfeit".split()
)
FORFEIT_KEYS = frozenset(("seat", "entrant", "kind", "message", "record"))
FORFEIT_KINDS: frozenset[str] = frozenset(get_args(ForfeitKind))

MAX_MESSAGE_CHARS = 2000
"""Longest forfeit message kept (the runner cuts a bot's exception text to 500 characters)."""
MAX_TELEMETRY_CHARS = 64 << 10
"""Longest telemetry of one seat kept in a line (an LLM entrant's: panda_core.llm.telemetry)."""
MAX_RECORD_CHARS = 4 * 2**20
"""Longest forfeit record kept, as JSON text inside the result's JSON (escapes counted): a longer
one is replaced by the deal's start when the forfeit is made (``runner``), so no stored line ever
needs more than this and a few kB."""

_INT64 = 2**63


class BadResult(Exception):
    """A result that is not one of the arena's games, with what is wrong in words."""


def result_from_json(data: object, settings: ArenaSettings, deals: int) -> MatchResult:
    """The result ``data`` (a parsed JSON object) stands for, if it is a game of ``settings``'
    schedule of ``deals`` deals with an outcome a game can have; :class:`BadResult` otherwise."""
    if not isinstance(data, Mapping):
        raise BadResult(f"it is a JSON {_json_kind(data)}, not an object")
    _exact_keys(data, RESULT_KEYS | ({"telemetry"} & set(data)), "")
    index = _int(data["game"], "game", 0, _INT64)
    scheduled = deals * _per_deal(settings)
    if index >= scheduled:
        raise BadResult(
            f"game {index} is beyond the arena's schedule ({scheduled} games: 0..{scheduled - 1})"
        )
    match = match_at(settings, index)
    players = settings.players
    deal = _int(data["deal"], "deal", 0, _INT64)
    seed = _int(data["seed"], "seed", 0, 2**64)
    lineup = _ints(data["lineup"], "lineup", players, 0, len(settings.entrants))
    if (deal, seed, lineup) != (match.deal, match.seed, match.lineup):
        raise BadResult(
            f"game {index} is deal {match.deal} (seed {match.seed}) with the line-up "
            f"{list(match.lineup)} in the schedule, but this line says deal {deal} (seed {seed}) "
            f"with {list(lineup)}"
        )
    winner = data["winner"]
    if winner is not None:
        winner = _int(winner, "winner", 0, players)
    rounds = _int(data["rounds"], "rounds", 0, _INT64)
    result = MatchResult(
        index=index,
        deal=deal,
        seed=seed,
        lineup=lineup,
        winner=winner,
        scores=_ints(data["scores"], "scores", players, -_INT64, _INT64),
        ranks=_ints(data["ranks"], "ranks", players, 0, players),
        left=_ints(data["left"], "left", players, 0, rounds + 1),
        rounds=rounds,
        decisions=_int(data["decisions"], "decisions", 0, _INT64),
        forfeit=None if data["forfeit"] is None else _forfeit(data["forfeit"], match),
        telemetry=_telemetry(data.get("telemetry"), players),
    )
    _check_outcome(settings, result)
    return result


def _telemetry(data: object, players: int) -> dict[str, Any] | None:
    """A line's ``telemetry``: an object whose keys are seats (``"0"`` …) and whose values are
    objects, at most ``MAX_TELEMETRY_CHARS`` of JSON a seat; copied through JSON."""
    if data is None:
        return None
    if not isinstance(data, Mapping):
        raise BadResult(f"telemetry is a JSON {_json_kind(data)}, not an object of seats")
    seats = {str(s) for s in range(players)}
    for key, value in data.items():
        if key not in seats or not isinstance(value, Mapping):
            raise BadResult(
                f"telemetry maps seats ({sorted(seats)}) to objects; got {cut(str(key))!r}"
            )
    text = json.dumps(data)
    if len(text) > players * MAX_TELEMETRY_CHARS:
        raise BadResult(
            f"telemetry of {len(text)} characters; at most {MAX_TELEMETRY_CHARS} a seat"
        )
    return dict(json.loads(text))


def checked_result(settings: ArenaSettings, match: Match, result: object) -> MatchResult:
    """``result`` as a worker sent it back for ``match``, if it is that game's result in the
    shape the arena makes (:class:`BadResult` otherwise): a task's answer is bot-run code's
    output, so it is checked like a stored line before it counts."""
    if not isinstance(result, MatchResult):
        raise BadResult(f"a task answered a {type(result).__name__} for game {match.index}")
    try:
        data = result.to_json()
    except Exception as err:
        raise BadResult(f"the result of game {match.index} does not serialise ({err})") from None
    checked = result_from_json(data, settings, settings.deals)
    if checked.index != match.index:
        raise BadResult(f"a task answered game {checked.index} for game {match.index}")
    return checked


def _check_outcome(settings: ArenaSettings, result: MatchResult) -> None:
    forfeit = result.forfeit
    if forfeit is None:
        if result.winner is None:
            raise BadResult("a finished game has a winner; this one has none and no forfeit")
        if result.left[result.winner]:
            raise BadResult(
                f"the winner {result.winner} left the game (left: {list(result.left)}); the "
                "winner is the seat still in at the end"
            )
        places = spec(settings.game).placements(result.winner, result.scores, result.left)
        if result.ranks != places:
            raise BadResult(
                f"the places {list(result.ranks)} do not follow from the winner "
                f"{result.winner}, the scores {list(result.scores)} and the rounds the seats "
                f"left in {list(result.left)} (they give {list(places)})"
            )
        if result.rounds < 1:
            raise BadResult("a finished game has at least one round")
        return
    if result.winner is not None:
        raise BadResult("a forfeited game has no winner (winner: null)")
    last = worst_place(settings)
    places = tuple(
        last if forfeit.entrant is not None and e == forfeit.entrant else 0 for e in result.lineup
    )
    if result.ranks != places:
        raise BadResult(
            f"the places {list(result.ranks)} are not a forfeit's ({list(places)}: the "
            "forfeiting entrant last, every other seat first)"
        )


def _forfeit(data: object, match: Match) -> Forfeit:
    if not isinstance(data, Mapping):
        raise BadResult(f"forfeit is a JSON {_json_kind(data)}, not an object or null")
    _exact_keys(data, FORFEIT_KEYS, "forfeit.")
    seat, entrant = data["seat"], data["entrant"]
    if seat is None:
        if entrant is not None:
            raise BadResult("a void forfeit (seat: null) names no entrant (entrant: null)")
    else:
        seat = _int(seat, "forfeit.seat", 0, len(match.lineup))
        entrant = _int(entrant, "forfeit.entrant", 0, _INT64)
        if entrant != match.lineup[seat]:
            raise BadResult(
                f"forfeit.entrant is {entrant}, but seat {seat} holds entrant "
                f"{match.lineup[seat]} in this game"
            )
    kind = data["kind"]
    if kind not in FORFEIT_KINDS:
        raise BadResult(f"forfeit.kind is one of {sorted(FORFEIT_KINDS)}, got {_shown(kind)}")
    return Forfeit(
        seat=seat,
        entrant=entrant,
        kind=kind,
        message=_str(data["message"], "forfeit.message", MAX_MESSAGE_CHARS),
        record=_record(data["record"]),
    )


def _record(value: object) -> str:
    record = _str(value, "forfeit.record", MAX_RECORD_CHARS)
    # Bounded as stored (JSON-escaped), the form the runner bounds too: a record that passes
    # here always fits in a line of the results folder.
    if len(json.dumps(record)) > MAX_RECORD_CHARS:
        raise BadResult(f"forfeit.record is longer than {MAX_RECORD_CHARS} characters as JSON")
    return record


def _per_deal(settings: ArenaSettings) -> int:
    return games_per_deal(len(settings.entrants), settings.players, settings.permutations)


def _exact_keys(data: Mapping[Any, Any], wanted: frozenset[str], prefix: str) -> None:
    keys = set(data)
    if keys != wanted:
        missing = sorted(wanted - keys)
        extra = sorted(str(k) for k in keys - wanted)
        parts = []
        if missing:
            parts.append("no " + ", ".join(prefix + k for k in missing))
        if extra:
            parts.append("unknown " + ", ".join(prefix + k[:40] for k in extra[:5]))
        raise BadResult("it has " + " and ".join(parts))


def _int(value: object, name: str, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise BadResult(f"{name} is an integer, got {_shown(value)}")
    if not lo <= value < hi:
        raise BadResult(f"{name} must be in {lo}..{hi - 1}, got {value}")
    return value


def _ints(value: object, name: str, length: int, lo: int, hi: int) -> tuple[int, ...]:
    if not isinstance(value, list):
        raise BadResult(f"{name} is a list of {length} integers, got {_shown(value)}")
    if len(value) != length:
        raise BadResult(f"{name} has one entry per seat ({length}), got {len(value)}")
    return tuple(_int(v, f"{name}[{s}]", lo, hi) for s, v in enumerate(value))


def _str(value: object, name: str, most: int) -> str:
    if not isinstance(value, str):
        raise BadResult(f"{name} is a string, got {_shown(value)}")
    if len(value) > most:
        raise BadResult(f"{name} is longer than {most} characters ({len(value)})")
    return value


def _json_kind(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, Mapping):
        return "object"
    return type(value).__name__


def _shown(value: object) -> str:
    text = repr(value) if not isinstance(value, list | dict) else _json_kind(value)
    return text if len(text) <= 40 else text[:39] + "…"
