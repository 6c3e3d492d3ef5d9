"""The arena's schedule: which entrants sit where, on which deal, in which game.

Duplicate deals: every deal is played several times, with the same cards, under seatings that
put every entrant of the deal's line-up in every seat once (``"rotations"``), or in every order
(``"all"``). Luck of the deal then falls on every entrant alike and cancels out of the
comparison; what is left is skill (docs/arena_statistics.md).

* The line-up of deal ``d``: a seeded shuffle of the entrants (so who sits after whom varies from
  deal to deal); with more entrants than seats, the first ``players`` of it; with fewer, the
  entrants repeated round the table.
* Its seatings: the line-up rotated one seat at a time, as many times as it has distinct
  entrants; with ``"all"``, every distinct ordering of every rotation.
* Game numbering: deal ``d``'s ``j``-th seating is game ``d * per_deal + j``, so the schedule's
  first games do not depend on the number of deals (an arena resumed with more deals extends its
  schedule), and deal ``d`` is dealt from ``nth_output(seed, d)`` (R-1) like game ``d`` of a batch.

Everything is a function of ``(entrants, players, permutations, seed, deal)``: the same schedule
on any machine, backend or worker count. Nothing here holds the schedule as a list: game ``i`` is
computed from ``i`` (:func:`match_at`, what the results folder checks each stored game against)
and :func:`matches` yields the games one deal at a time, so an arena of a billion deals costs no
more memory to schedule than one of ten.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from functools import lru_cache

from panda_core._core import nth_output
from panda_core.arena.model import ArenaSettings, Match, Permutations

__all__ = ["MAX_DEALS", "games_per_deal", "match_at", "matches", "seatings"]

MAX_DEALS = 10**9
"""Most deals in one arena: a bound on mistakes, not on real runs (a billion deals of four
seatings are weeks of play on a core even for the engine's batch path). The schedule costs the
same memory whatever the deals: nothing of it is held as a list."""

_ORDER_STREAM = 0x5EA7_5EA7_5EA7_5EA7
"""Separates the line-up shuffles' stream from the deals' (both SplitMix64 of the seed)."""


def seatings(
    entrants: int, players: int, permutations: Permutations, seed: int, deal: int
) -> list[tuple[int, ...]]:
    """The seatings of deal ``deal``: for each game of the deal, the entrant index per seat."""
    return list(_seatings(entrants, players, permutations, seed, deal))


@lru_cache(maxsize=256)
def _seatings(
    entrants: int, players: int, permutations: Permutations, seed: int, deal: int
) -> tuple[tuple[int, ...], ...]:
    # Cached: checking a results folder asks for the seatings of each stored game, and the games
    # of one deal (up to 120 of them) sit next to each other.
    order = _shuffled(entrants, nth_output(seed ^ _ORDER_STREAM, deal))
    period = min(entrants, players)
    lineup = order[:period]
    rotations = [tuple(lineup[(s + r) % period] for s in range(players)) for r in range(period)]
    if permutations == "rotations":
        return tuple(rotations)
    # Every distinct ordering of every rotation (a rotation of a line-up with repeats changes
    # how many seats each entrant fills, so all of them are needed for balance), first seen first.
    seen: dict[tuple[int, ...], None] = {}
    for rotation in rotations:
        for perm in itertools.permutations(rotation):
            seen.setdefault(perm, None)
    return tuple(seen)


def games_per_deal(entrants: int, players: int, permutations: Permutations) -> int:
    """How many games each deal is played (the same for every deal)."""
    return len(_seatings(entrants, players, permutations, 0, 0))


def match_at(settings: ArenaSettings, index: int) -> Match:
    """Game ``index`` of the arena (any index >= 0: the schedule has no end of its own; the
    arena's ``deals`` decide how much of it is played)."""
    k = len(settings.entrants)
    per_deal = games_per_deal(k, settings.players, settings.permutations)
    deal, j = divmod(index, per_deal)
    lineup = _seatings(k, settings.players, settings.permutations, settings.seed, deal)[j]
    return Match(index=index, deal=deal, seed=nth_output(settings.seed, deal), lineup=lineup)


def matches(settings: ArenaSettings, deals: Sequence[int] | range | None = None) -> Iterator[Match]:
    """The games of ``deals`` (default: all of the arena's), in game order, made as they are
    asked for (a generator: nothing is held but the current deal)."""
    k = len(settings.entrants)
    per_deal = games_per_deal(k, settings.players, settings.permutations)
    for deal in range(settings.deals) if deals is None else deals:
        seed = nth_output(settings.seed, deal)
        for j, lineup in enumerate(
            _seatings(k, settings.players, settings.permutations, settings.seed, deal)
        ):
            yield Match(index=deal * per_deal + j, deal=deal, seed=seed, lineup=lineup)


def _shuffled(n: int, stream: int) -> list[int]:
    """``0..n`` in a seeded order (Fisher–Yates over SplitMix64 outputs of ``stream``; the modulo
    bias is below 2**-58 for these sizes)."""
    out = list(range(n))
    for i in range(n - 1, 0, -1):
        j = nth_output(stream, i) % (i + 1)
        out[i], out[j] = out[j], out[i]
    return out
