"""Multiplayer ratings of the arena's entrants: openskill's Plackett–Luce model.

Why Plackett–Luce rather than pairwise Elo: a 3–5-seat game has one finishing order, not a set
of independent duels; Plackett–Luce models that order directly (the winner is picked from all
seats in proportion to strength, then second place from the rest, ...), so one game updates
every entrant once, with ties allowed. openskill fits it online (Weng & Lin's Bayesian
approximation): each entrant's skill is a Gaussian belief ``mu ± sigma``.

The games are rated one by one in game-index order, so the ratings are the same for any worker
count, backend or completion order. The model's ``tau`` (extra uncertainty added before each
game so that ratings can follow a player whose skill changes) is 0: a bot does not learn
during an arena, so its rating should settle, and ``sigma`` then says how well the games so far
pin it down.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from openskill.models import PlackettLuce

from panda_core.arena.model import ArenaSettings, MatchResult
from panda_core.arena.stats import Z95, Interval, best_places, in_order

__all__ = ["Rating", "model", "rate", "rating_ranks"]


@dataclass(frozen=True)
class Rating:
    """An entrant's rating: skill ``mu`` with uncertainty ``sigma`` (openskill's scale, prior
    25 ± 8.33), ``interval`` = ``mu ± 1.96 sigma`` (95% of the belief), and openskill's
    ``ordinal`` = ``mu - 3 sigma`` (a conservative single number: the skill is very likely
    above it)."""

    label: str
    mu: float
    sigma: float
    interval: Interval
    ordinal: float


def model() -> PlackettLuce:
    """The rating model of every arena: openskill's defaults but ``tau = 0`` (module doc)."""
    return PlackettLuce(tau=0.0)


def rating_ranks(result: MatchResult) -> dict[int, int] | None:
    """The places one game gives the ratings, one per distinct entrant (its best seat), or
    ``None`` when the game rates nothing (void, or a single entrant in every seat).

    A forfeit puts the forfeiter last and ties everyone else first, whatever seats they held."""
    forfeit = result.forfeit
    present = sorted(set(result.lineup))
    if len(present) < 2:
        return None
    if forfeit is not None:
        if forfeit.entrant is None:
            return None
        return {e: int(e == forfeit.entrant) for e in present}
    return best_places(result)


def rate(settings: ArenaSettings, results: Sequence[MatchResult]) -> list[Rating]:
    """Each entrant's :class:`Rating` after the games of ``results`` (any order), in entrant
    order. An entrant with no rated game keeps the prior."""
    pl = model()
    current = [pl.rating(name=label) for label in settings.labels]
    for result in in_order(results):
        ranks = rating_ranks(result)
        if ranks is None:
            continue
        entrants = list(ranks)
        teams = [[current[e]] for e in entrants]
        rated = pl.rate(teams, ranks=[float(ranks[e]) for e in entrants])
        for e, team in zip(entrants, rated, strict=True):
            current[e] = team[0]
    return [
        Rating(
            label=label,
            mu=r.mu,
            sigma=r.sigma,
            interval=Interval(r.mu - Z95 * r.sigma, r.mu + Z95 * r.sigma),
            ordinal=r.ordinal(),
        )
        for label, r in zip(settings.labels, current, strict=True)
    ]
