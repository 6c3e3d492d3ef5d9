"""The arena's numbers: per-entrant standings with 95% intervals, and the head-to-head table.

Everything here is a pure function of the settings and the results (in any order: they are
sorted by game index first, so float sums come out bit-identical), never of the backend, the
worker count or the timing.

Why intervals need care: on duplicate deals every entrant plays the same cards in several seats,
so the games of one deal are correlated (a deal can favour or hurt an entrant in all its seats,
or cancel out across them) while different deals are independent. Treating every game as an
independent coin toss would misstate the uncertainty, so each interval here treats the *deal*
as the unit of sampling (a cluster): see :func:`win_interval` and :func:`mean_interval`, and
``docs/arena_statistics.md`` for users.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from statistics import NormalDist

from panda_core._registry import spec
from panda_core.arena.model import ArenaSettings, MatchResult

__all__ = [
    "Z95",
    "HeadToHead",
    "Interval",
    "PairRecord",
    "Standing",
    "best_places",
    "counted_seats",
    "design_effect",
    "head_to_head",
    "in_order",
    "is_void",
    "mean_interval",
    "standings",
    "wilson",
    "win_interval",
    "worst_place",
]

Z95 = NormalDist().inv_cdf(0.975)
"""The normal quantile of a two-sided 95% interval (1.959963...)."""


@dataclass(frozen=True)
class Interval:
    """A confidence interval ``[low, high]``."""

    low: float
    high: float

    def __contains__(self, value: float) -> bool:
        return self.low <= value <= self.high

    @property
    def width(self) -> float:
        return self.high - self.low


@dataclass(frozen=True)
class Standing:
    """One entrant's record over the games played so far.

    ``games`` counts the (non-void) games it sat in; ``seat_games`` the seats it filled in the
    games that count towards its win rate (an entrant in two seats of a game counts twice; a game
    another entrant forfeited does not count: it did not finish). ``win_rate`` and ``mean_score``
    are ``None`` (with no interval) while there is nothing to average."""

    label: str
    games: int
    seat_games: int
    wins: int
    forfeits: int
    win_rate: float | None
    win_interval: Interval | None
    mean_score: float | None
    score_interval: Interval | None
    mean_place: float | None


@dataclass(frozen=True)
class PairRecord:
    """Entrant ``entrant`` against ``opponent`` over the games both sat in: wins, ties and losses
    compare the best place each held in a game; ``score`` is ``(wins + ties / 2) / games``."""

    entrant: str
    opponent: str
    games: int
    wins: int
    ties: int
    losses: int

    @property
    def score(self) -> float:
        return (self.wins + self.ties / 2) / self.games


@dataclass(frozen=True)
class HeadToHead:
    """Every ordered pair of entrants that met, in entrant order (``pairs``), by index pair."""

    labels: tuple[str, ...]
    records: Mapping[tuple[int, int], PairRecord]

    @property
    def pairs(self) -> tuple[PairRecord, ...]:
        return tuple(self.records[k] for k in sorted(self.records))

    def get(self, entrant: int, opponent: int) -> PairRecord | None:
        """``entrant``'s record against ``opponent`` (entrant indices), ``None`` if they never
        met."""
        return self.records.get((entrant, opponent))


# ---- intervals --------------------------------------------------------------------------------


def wilson(rate: float, n: float, z: float = Z95) -> Interval:
    """The Wilson score interval of a proportion ``rate`` observed over ``n`` (possibly
    effective, fractional) trials. Unlike ``rate ± z·se`` it stays inside [0, 1] and is not
    zero-width at 0% or 100%."""
    if n <= 0:
        return Interval(0.0, 1.0)
    z2n = z * z / n
    centre = (rate + z2n / 2) / (1 + z2n)
    half = z / (1 + z2n) * math.sqrt(rate * (1 - rate) / n + z2n / (4 * n))
    # At 0% (100%) the low (high) end is exactly 0 (1); clamp the float rounding there too.
    low = 0.0 if rate <= 0.0 else max(0.0, centre - half)
    high = 1.0 if rate >= 1.0 else min(1.0, centre + half)
    return Interval(low, high)


def _cluster_variance(totals: Sequence[float], sizes: Sequence[float], mean: float) -> float:
    """The variance of the ratio estimator ``sum(totals) / sum(sizes)`` with one cluster per
    entry (the standard linearised, "sandwich" estimate): the spread of each deal's total around
    what the overall mean predicts for its size. Needs two clusters or more."""
    k = len(totals)
    n = sum(sizes)
    spread = sum((t - mean * m) ** 2 for t, m in zip(totals, sizes, strict=True))
    return k / (k - 1) * spread / (n * n)


def design_effect(wins: Sequence[float], sizes: Sequence[float]) -> float:
    """How much the deal clustering changes a win rate's variance against independent games
    (``> 1``: games of one deal agree; ``< 1``: they cancel out, duplicate's gain).

    The estimate from the between-deal spread is pooled with the independent-games value 1 as if
    that were one more deal's worth of evidence: with one deal (or a rate of exactly 0 or 1,
    where the spread says nothing) it is 1, and it can never reach 0, which would make a
    zero-width interval out of a handful of deals that happened to agree."""
    k = len(wins)
    n = sum(sizes)
    rate = sum(wins) / n
    if k < 2 or rate in (0.0, 1.0):
        return 1.0
    estimate = _cluster_variance(wins, sizes, rate) / (rate * (1 - rate) / n)
    return ((k - 1) * estimate + 1) / k


def win_interval(wins: Sequence[float], sizes: Sequence[float]) -> Interval:
    """A 95% interval for a win rate observed as ``wins[d]`` out of ``sizes[d]`` seat-games on
    each deal ``d``: Wilson's interval over the effective number of games ``n / design effect``
    (the deal as the cluster). It shrinks like ``1 / sqrt(deals)``."""
    n = sum(sizes)
    if n == 0:
        return Interval(0.0, 1.0)
    return wilson(sum(wins) / n, n / design_effect(wins, sizes))


def mean_interval(totals: Sequence[float], sizes: Sequence[float]) -> Interval | None:
    """A 95% normal interval for a mean observed as ``totals[d]`` over ``sizes[d]`` values on
    each deal ``d`` (the deal as the cluster); ``None`` with fewer than two deals, where the
    spread between deals cannot be estimated."""
    kept = [(t, m) for t, m in zip(totals, sizes, strict=True) if m > 0]
    if len(kept) < 2:
        return None
    tots = [t for t, _ in kept]
    ms = [m for _, m in kept]
    mean = sum(tots) / sum(ms)
    half = Z95 * math.sqrt(_cluster_variance(tots, ms, mean))
    return Interval(mean - half, mean + half)


# ---- standings --------------------------------------------------------------------------------


def in_order(results: Iterable[MatchResult]) -> list[MatchResult]:
    """``results`` by game index: every sum below runs in this one order, so shuffled input
    gives bit-identical floats."""
    return sorted(results, key=lambda r: r.index)


def is_void(result: MatchResult) -> bool:
    """A game forfeited by nobody in particular (a dead worker not pinned on a seat)."""
    return result.forfeit is not None and result.forfeit.entrant is None


def worst_place(settings: ArenaSettings) -> int:
    """The last place a finished game of the arena's game can give (``players - 1``: by score
    in the climbing games, by elimination order in Panda Head): the place a forfeit counts, so a
    forfeit weighs like the worst loss, no more.

    Asked of the game's own placement rule (the registry's ``placements``) with the scores
    falling, then rising, seat by seat, and the seats leaving one per round in either order, so
    no game is named here."""
    placements = spec(settings.game).placements
    falling = list(range(settings.players, 0, -1))
    later = [0, *range(1, settings.players)]  # the winner (seat 0) stays; seat 1 leaves first
    earlier = [0, *range(settings.players - 1, 0, -1)]
    return max(
        max(placements(0, scores, left))
        for scores in (falling, falling[::-1])
        for left in (later, earlier)
    )


def counted_seats(result: MatchResult, last: int = 1) -> list[tuple[int, bool, int]]:
    """The seat-games ``result`` counts: ``(entrant, won, place)`` per seat that counts.

    A finished game counts every seat. A forfeited game counts only the forfeiting entrant's
    seats, each a loss at place ``last`` (:func:`worst_place`); for every other entrant it did
    not finish. A void game counts nothing."""
    forfeit = result.forfeit
    if forfeit is None:
        return [(e, s == result.winner, result.ranks[s]) for s, e in enumerate(result.lineup)]
    if forfeit.entrant is None:
        return []
    return [(e, False, last) for e in result.lineup if e == forfeit.entrant]


def _per_deal() -> defaultdict[int, int]:
    return defaultdict(int)


@dataclass
class _Tally:
    """One entrant's running sums, per deal where the intervals need them (deal → sum)."""

    games: int = 0
    forfeits: int = 0
    place_sum: int = 0
    wins: defaultdict[int, int] = field(default_factory=_per_deal)
    seats: defaultdict[int, int] = field(default_factory=_per_deal)
    score_sum: defaultdict[int, int] = field(default_factory=_per_deal)
    score_n: defaultdict[int, int] = field(default_factory=_per_deal)


def standings(settings: ArenaSettings, results: Sequence[MatchResult]) -> list[Standing]:
    """Each entrant's :class:`Standing`, in entrant order."""
    tallies = [_Tally() for _ in settings.entrants]
    last = worst_place(settings)
    for result in in_order(results):
        if is_void(result):
            continue
        for e in set(result.lineup):
            tallies[e].games += 1
        if result.forfeit is not None and result.forfeit.entrant is not None:
            tallies[result.forfeit.entrant].forfeits += 1
        for e, won, place in counted_seats(result, last):
            t = tallies[e]
            t.seats[result.deal] += 1
            t.wins[result.deal] += int(won)
            t.place_sum += place
        if result.forfeit is None:
            for s, e in enumerate(result.lineup):
                tallies[e].score_sum[result.deal] += result.scores[s]
                tallies[e].score_n[result.deal] += 1
    return [_standing(label, t) for label, t in zip(settings.labels, tallies, strict=True)]


def _standing(label: str, t: _Tally) -> Standing:
    deals = sorted(t.seats)
    seats = [t.seats[d] for d in deals]
    wins = [t.wins[d] for d in deals]
    n = sum(seats)
    score_deals = sorted(t.score_n)
    score_n = [t.score_n[d] for d in score_deals]
    score_sum = [t.score_sum[d] for d in score_deals]
    scored = sum(score_n)
    return Standing(
        label=label,
        games=t.games,
        seat_games=n,
        wins=sum(wins),
        forfeits=t.forfeits,
        win_rate=sum(wins) / n if n else None,
        win_interval=win_interval(wins, seats) if n else None,
        mean_score=sum(score_sum) / scored if scored else None,
        score_interval=mean_interval(score_sum, score_n),
        mean_place=t.place_sum / n if n else None,
    )


# ---- head to head -----------------------------------------------------------------------------


def best_places(result: MatchResult) -> dict[int, int]:
    """Each entrant's best place in a finished game (entrant → place; an entrant may fill
    several seats), in entrant order."""
    best: dict[int, int] = {}
    for e, place in sorted(zip(result.lineup, result.ranks, strict=True)):
        best.setdefault(e, place)
    return best


def _meetings(result: MatchResult) -> list[tuple[int, int, int]]:
    """The ordered pairs of entrants ``result`` counts for the head-to-head table, each with the
    first's outcome against the second (``0`` win, ``1`` tie, ``2`` loss).

    A finished game compares each entrant's best place (an entrant may fill several seats). A
    forfeited game counts only the forfeiter's pairs: it lost to everyone else there; between
    the others it did not finish, so it says nothing. A void game counts nothing."""
    forfeit = result.forfeit
    present = sorted(set(result.lineup))
    if forfeit is None:
        best = best_places(result)
        return [
            (a, b, 0 if best[a] < best[b] else 1 if best[a] == best[b] else 2)
            for a in present
            for b in present
            if a != b
        ]
    loser = forfeit.entrant
    if loser is None:
        return []
    others = [e for e in present if e != loser]
    return [(loser, e, 2) for e in others] + [(e, loser, 0) for e in others]


def head_to_head(settings: ArenaSettings, results: Sequence[MatchResult]) -> HeadToHead:
    """The :class:`HeadToHead` table: for each ordered pair of entrants that met in a game that
    counts, how the first fared against the second (see :class:`PairRecord`)."""
    counts: dict[tuple[int, int], list[int]] = {}
    for result in in_order(results):
        for a, b, outcome in _meetings(result):
            counts.setdefault((a, b), [0, 0, 0])[outcome] += 1
    labels = settings.labels
    records = {
        (a, b): PairRecord(labels[a], labels[b], sum(w), w[0], w[1], w[2])
        for (a, b), w in counts.items()
    }
    return HeadToHead(labels=labels, records=records)
