"""The arena's statistics and ratings (panda_core.arena.stats, panda_core.arena.ratings).

Exact small cases worked by hand, the forfeit rules, and simulations of many synthetic arenas
from a known win probability (seeded numpy RNG, games correlated within a deal) checking that
the 95% intervals cover the truth about 95% of the time.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

import numpy as np
import pytest

from panda_core.arena.model import ArenaSettings, Entrant, Forfeit, MatchResult
from panda_core.arena.ratings import rate, rating_ranks
from panda_core.arena.stats import (
    Interval,
    counted_seats,
    design_effect,
    head_to_head,
    mean_interval,
    standings,
    wilson,
    win_interval,
    worst_place,
)


def settings_for(entrants: int, players: int, deals: int = 1, game: str = "year") -> ArenaSettings:
    return ArenaSettings(
        game=game,  # type: ignore[arg-type]
        players=players,
        entrants=tuple(Entrant(chr(ord("a") + i), "random", True) for i in range(entrants)),
        deals=deals,
        seed=0,
        permutations="rotations",
        rules=None,  # type: ignore[arg-type]
        move_time=10.0,
        game_time=600.0,
    )


def result(
    index: int,
    deal: int,
    lineup: Sequence[int],
    winner: int | None,
    scores: Sequence[int],
    ranks: Sequence[int] | None = None,
    forfeit: Forfeit | None = None,
) -> MatchResult:
    """A synthetic game; ``ranks`` default to winner first, the rest tied second."""
    if ranks is None:
        ranks = [0 if s == winner else 1 for s in range(len(lineup))]
    return MatchResult(
        index=index,
        deal=deal,
        seed=1000 + deal,
        lineup=tuple(lineup),
        winner=winner,
        scores=tuple(scores),
        ranks=tuple(ranks),
        left=(0,) * len(lineup),
        rounds=1,
        decisions=10,
        forfeit=forfeit,
    )


def forfeited(
    index: int, deal: int, lineup: Sequence[int], seat: int | None, kind: str = "exception"
) -> MatchResult:
    """A forfeited game as the runner records it: the forfeiting seat last, the others tied."""
    n = len(lineup)
    entrant = None if seat is None else lineup[seat]
    ranks = [1 if s == seat else 0 for s in range(n)]
    f = Forfeit(seat=seat, entrant=entrant, kind=kind, message="boom\nline two", record="{}")  # type: ignore[arg-type]
    return result(index, deal, lineup, None, [0] * n, ranks, f)


def rotations(lineup: Sequence[int]) -> list[tuple[int, ...]]:
    n = len(lineup)
    return [tuple(lineup[(s - r) % n] for s in range(n)) for r in range(n)]


# ---- the interval formulas by hand ------------------------------------------------------------


def test_wilson_matches_hand_values() -> None:
    # 50 of 100: centre 0.5, half-width 1.96/(1+0.0384)·sqrt(0.0025+0.0000096) = 0.09617.
    w = wilson(0.5, 100)
    assert w.low == pytest.approx(0.40383, abs=1e-5)
    assert w.high == pytest.approx(0.59617, abs=1e-5)
    # 0 of 10: [0, z²/(n+z²)] = [0, 3.8415/13.8415].
    zero = wilson(0.0, 10)
    assert zero.low == 0.0
    assert zero.high == pytest.approx(0.27753, abs=1e-5)
    full = wilson(1.0, 10)
    assert full.high == 1.0 and full.low == pytest.approx(1 - 0.27753, abs=1e-5)
    assert wilson(0.3, 0) == Interval(0.0, 1.0)


def test_design_effect_by_hand() -> None:
    # Three deals of 2 seat-games: 2, 0, 1 wins. p = 1/2, n = 6.
    # Ratio variance: 3/2 · ((2-1)² + (0-1)² + 0²) / 36 = 1/12; binomial 0.25/6 = 1/24: deff 2.
    # Pooled with one deal's worth of deff 1: (2·2 + 1) / 3 = 5/3.
    assert design_effect([2, 0, 1], [2, 2, 2]) == pytest.approx(5 / 3)
    got = win_interval([2, 0, 1], [2, 2, 2])
    assert got == wilson(0.5, 6 / (5 / 3))
    # Deals that each split 1 of 2 exactly: no spread, deff (0·2 + 1)/3: never a zero width.
    assert design_effect([1, 1, 1], [2, 2, 2]) == pytest.approx(1 / 3)
    assert win_interval([1, 1, 1], [2, 2, 2]).width > 0
    # One deal, or a rate of exactly 0 or 1: the spread says nothing, deff is 1.
    assert design_effect([1], [4]) == 1.0
    assert design_effect([0, 0], [2, 2]) == 1.0
    assert design_effect([2, 2], [2, 2]) == 1.0


def test_mean_interval_by_hand() -> None:
    # Deals with totals 10, 20 over 2 values each: mean 7.5, each total 5 off the 15 that mean
    # predicts; variance 2/1 · (5² + 5²) / 4² = 6.25.
    got = mean_interval([10, 20], [2, 2])
    assert got is not None
    half = 1.959964 * math.sqrt(6.25)
    assert got.low == pytest.approx(7.5 - half, rel=1e-6)
    assert got.high == pytest.approx(7.5 + half, rel=1e-6)
    assert mean_interval([10], [2]) is None
    assert mean_interval([10, 0], [2, 0]) is None  # a deal with no values is no deal


# ---- standings on small arenas by hand --------------------------------------------------------


def test_standings_two_deals_by_hand() -> None:
    s = settings_for(entrants=2, players=2, deals=2)
    results = [
        result(0, 0, (0, 1), 0, (30, 10), (0, 1)),
        result(1, 0, (1, 0), 0, (25, 5), (0, 1)),  # b wins from seat 0
        result(2, 1, (0, 1), 0, (40, 0), (0, 1)),
        result(3, 1, (1, 0), 1, (20, 20), (1, 0)),  # a wins from seat 1
    ]
    a, b = standings(s, results)
    assert (a.label, a.games, a.seat_games, a.wins, a.forfeits) == ("a", 4, 4, 3, 0)
    assert (b.games, b.seat_games, b.wins) == (4, 4, 1)
    assert a.win_rate == 0.75 and b.win_rate == 0.25
    assert a.mean_score == (30 + 5 + 40 + 20) / 4
    assert b.mean_score == (10 + 25 + 0 + 20) / 4
    assert a.mean_place == 0.25 and b.mean_place == 0.75
    # Per deal a won 1 of 2 and 2 of 2: the interval is the clustered one, not 4 coin tosses.
    assert a.win_interval == win_interval([1, 2], [2, 2])
    assert a.score_interval == mean_interval([35, 60], [2, 2])
    assert a.win_interval is not None and 0.0 <= a.win_interval.low < 0.75 < a.win_interval.high


def test_entrant_in_two_seats_counts_twice() -> None:
    s = settings_for(entrants=2, players=3)
    r = result(0, 0, (0, 1, 0), 2, (5, 6, 9), (1, 2, 0))
    a, b = standings(s, [r])
    assert (a.games, a.seat_games, a.wins) == (1, 2, 1)
    assert a.mean_score == 7.0 and a.mean_place == 0.5
    assert (b.games, b.seat_games, b.wins, b.mean_place) == (1, 1, 0, 2.0)


def test_forfeit_is_a_loss_for_the_forfeiter_only() -> None:
    s = settings_for(entrants=3, players=3)
    games = [
        result(0, 0, (0, 1, 2), 0, (10, 5, 5), (0, 1, 1)),
        forfeited(1, 0, (2, 0, 1), seat=1),  # a forfeits from seat 1
    ]
    a, b, c = standings(s, games)
    assert (a.games, a.seat_games, a.wins, a.forfeits) == (2, 2, 1, 1)
    assert a.win_rate == 0.5
    assert a.mean_score == 10.0  # the forfeited game has no final score
    assert a.mean_place == 1.0  # first, then last: place 2 of a 3-player climbing game
    for other in (b, c):  # the game did not finish for them: counted as sat in, nothing else
        assert (other.games, other.seat_games, other.wins, other.forfeits) == (2, 1, 0, 0)
        assert other.mean_score == 5.0 and other.mean_place == 1.0


@pytest.mark.parametrize(("game", "last"), [("head", [1, 2, 3, 4]), ("year", [1, 2, 3, 4])])
def test_a_forfeit_takes_the_worst_place_of_the_game(game: str, last: list[int]) -> None:
    # Panda Head orders the losers by elimination, the climbing games by score: the last place
    # is players - 1 in both.
    assert [worst_place(settings_for(2, p, game=game)) for p in (2, 3, 4, 5)] == last
    s = settings_for(entrants=2, players=4, game=game)
    a, _ = standings(s, [forfeited(0, 0, (0, 1, 1, 1), seat=0)])
    assert a.mean_place == last[2]


def test_forfeiter_in_two_seats_loses_both() -> None:
    s = settings_for(entrants=2, players=4)
    r = forfeited(0, 0, (0, 1, 0, 1), seat=2)
    assert counted_seats(r) == [(0, False, 1), (0, False, 1)]
    a, b = standings(s, [r])
    assert (a.seat_games, a.wins, a.forfeits, a.win_rate) == (2, 0, 1, 0.0)
    assert (b.games, b.seat_games, b.win_rate, b.win_interval) == (1, 0, None, None)


def test_void_forfeit_counts_nowhere() -> None:
    s = settings_for(entrants=2, players=2)
    void = forfeited(0, 0, (0, 1), seat=None, kind="dead_worker")
    assert counted_seats(void) == []
    for st in standings(s, [void]):
        assert (st.games, st.seat_games, st.wins, st.forfeits) == (0, 0, 0, 0)
        assert st.win_rate is None and st.mean_score is None and st.mean_place is None
    assert head_to_head(s, [void]).pairs == ()
    assert rating_ranks(void) is None


def test_standings_ignore_input_order() -> None:
    s = settings_for(entrants=3, players=3, deals=20)
    rng = random.Random(5)
    games = []
    for d in range(20):
        for k, lineup in enumerate(rotations((0, 1, 2))):
            scores = [rng.randrange(40) for _ in range(3)]
            games.append(result(3 * d + k, d, lineup, rng.randrange(3), scores))
    shuffled = games[:]
    rng.shuffle(shuffled)
    assert standings(s, shuffled) == standings(s, games)
    assert head_to_head(s, shuffled) == head_to_head(s, games)


# ---- the intervals' honesty -------------------------------------------------------------------


def two_entrant_arena(
    rng: np.random.Generator, deals: int, p_deal: np.ndarray, games_per_deal: int = 4
) -> list[MatchResult]:
    """Deals of ``games_per_deal`` two-seat games between a and b (seats alternating), a
    winning each game of deal ``d`` with probability ``p_deal[d]``."""
    out = []
    for d in range(deals):
        wins = rng.random(games_per_deal) < p_deal[d]
        for k in range(games_per_deal):
            lineup = (0, 1) if k % 2 == 0 else (1, 0)
            a_seat = lineup.index(0)
            winner = a_seat if wins[k] else 1 - a_seat
            out.append(result(d * games_per_deal + k, d, lineup, winner, (1, 0)))
    return out


def coverage(truth: float, arenas: list[list[MatchResult]]) -> float:
    s = settings_for(entrants=2, players=2)
    hits = 0
    for games in arenas:
        interval = standings(s, games)[0].win_interval
        assert interval is not None and 0.0 <= interval.low <= interval.high <= 1.0
        hits += truth in interval
    return hits / len(arenas)


@pytest.mark.parametrize("p", [0.5, 0.2])
@pytest.mark.slow
def test_win_interval_covers_with_deal_correlation(p: float) -> None:
    """Deals that favour one entrant in all their games (a Beta-distributed deal effect, strong
    correlation): naive per-game intervals would cover far less than 95%."""
    rng = np.random.default_rng(11)
    arenas = [two_entrant_arena(rng, 40, rng.beta(2 * p, 2 * (1 - p), size=40)) for _ in range(400)]
    assert 0.91 <= coverage(p, arenas) <= 0.99
    # The same arenas with every game taken as independent: the test can tell the difference.
    naive = sum(
        p in wilson(st.wins / st.seat_games, st.seat_games)
        for st in (standings(settings_for(2, 2), g)[0] for g in arenas)
    ) / len(arenas)
    assert naive < 0.88


def test_win_interval_covers_with_seat_luck() -> None:
    """Duplicate's own structure: a deal's cards favour one seat, and the entrants swap seats,
    so the luck cancels within a deal (negative correlation: tighter intervals, still honest).
    The true rate is the mean over deals, computed by a large Monte Carlo sample."""
    rng = np.random.default_rng(12)
    skill = 0.4  # a's log-odds edge
    luck = rng.normal(0.0, 2.0, size=1_000_000)
    truth = float(np.mean((_sigmoid(skill + luck) + _sigmoid(skill - luck)) / 2))
    arenas = []
    for _ in range(300):
        deal_luck = rng.normal(0.0, 2.0, size=40)
        games = []
        for d in range(40):
            for k, lineup in enumerate([(0, 1), (1, 0)]):
                # seat 0 holds the lucky cards: a wins with skill + luck in seat 0.
                edge = skill + deal_luck[d] if lineup[0] == 0 else skill - deal_luck[d]
                a_wins = rng.random() < _sigmoid(edge)
                a_seat = lineup.index(0)
                games.append(result(2 * d + k, d, lineup, a_seat if a_wins else 1 - a_seat, (1, 0)))
        arenas.append(games)
    assert 0.91 <= coverage(truth, arenas) <= 0.99


def _sigmoid(x: float | np.ndarray) -> np.ndarray:
    out: np.ndarray = 1.0 / (1.0 + np.exp(-np.asarray(x)))
    return out


def test_score_interval_covers() -> None:
    """Mean score with a deal effect on the scores of all games of a deal."""
    rng = np.random.default_rng(13)
    s = settings_for(entrants=2, players=2)
    hits = 0
    for _ in range(300):
        games = []
        deal_shift = rng.normal(0.0, 5.0, size=30)
        for d in range(30):
            for k, lineup in enumerate([(0, 1), (1, 0)]):
                a = round(float(20 + deal_shift[d] + rng.normal(0.0, 3.0)))
                scores = (a, 0) if lineup[0] == 0 else (0, a)
                games.append(result(2 * d + k, d, lineup, lineup.index(0), scores))
        interval = standings(s, games)[0].score_interval
        assert interval is not None
        hits += 20.0 in interval
    assert 0.91 <= hits / 300 <= 0.99


def test_win_interval_shrinks_like_one_over_root_deals() -> None:
    pattern = [3, 1, 2, 2, 4, 0, 2, 3]  # wins of 4 per deal
    widths = [win_interval(pattern * k, [4] * (8 * k)).width for k in (4, 16, 64)]
    assert widths[1] / widths[0] == pytest.approx(0.5, abs=0.03)
    assert widths[2] / widths[1] == pytest.approx(0.5, abs=0.03)


def test_win_interval_never_zero_width_at_the_edges() -> None:
    for wins in ([0] * 10, [4] * 10):
        w = win_interval(wins, [4] * 10)
        assert 0.0 <= w.low <= w.high <= 1.0
        assert w.width > 0.02


# ---- head to head -----------------------------------------------------------------------------


def test_head_to_head_by_hand() -> None:
    s = settings_for(entrants=3, players=3)
    games = [
        result(0, 0, (0, 1, 2), 0, (9, 5, 5), (0, 1, 1)),  # a > b = c
        result(1, 0, (1, 2, 0), 1, (9, 5, 1), (0, 1, 2)),  # b > c > a
        forfeited(2, 0, (2, 0, 1), seat=0),  # c forfeits: loses to a and b; a, b not compared
    ]
    h = head_to_head(s, games)
    ab, ba = h.get(0, 1), h.get(1, 0)
    assert ab is not None and ba is not None
    assert (ab.games, ab.wins, ab.ties, ab.losses, ab.score) == (2, 1, 0, 1, 0.5)
    assert (ba.wins, ba.losses) == (1, 1)
    bc = h.get(1, 2)
    assert bc is not None and (bc.games, bc.wins, bc.ties, bc.losses) == (3, 2, 1, 0)
    assert bc.score == pytest.approx(2.5 / 3)
    ca = h.get(2, 0)
    assert ca is not None and (ca.games, ca.wins, ca.ties, ca.losses) == (3, 1, 0, 2)
    assert h.get(0, 0) is None
    assert [(p.entrant, p.opponent) for p in h.pairs] == [
        ("a", "b"),
        ("a", "c"),
        ("b", "a"),
        ("b", "c"),
        ("c", "a"),
        ("c", "b"),
    ]


def test_head_to_head_uses_best_place_of_a_repeated_entrant() -> None:
    s = settings_for(entrants=2, players=4)
    h = head_to_head(s, [result(0, 0, (0, 1, 0, 1), 3, (1, 2, 3, 9), (3, 2, 1, 0))])
    ab, ba = h.get(0, 1), h.get(1, 0)
    assert ab is not None and (ab.games, ab.losses) == (1, 1)
    assert ba is not None and (ba.games, ba.wins) == (1, 1)


def test_entrants_that_never_met() -> None:
    s = settings_for(entrants=3, players=2)
    h = head_to_head(s, [result(0, 0, (0, 1), 0, (1, 0))])
    assert h.get(0, 2) is None and h.get(2, 1) is None
    assert len(h.pairs) == 2


# ---- ratings ----------------------------------------------------------------------------------


def plackett_luce_arena(
    rng: np.random.Generator, strengths: Sequence[float], players: int, deals: int
) -> list[MatchResult]:
    """Rotated line-ups of the first ``players`` entrants (more entrants: a sliding window), each
    game's finishing order drawn from Plackett–Luce with the given strengths."""
    n = len(strengths)
    out: list[MatchResult] = []
    for d in range(deals):
        base = tuple((d + i) % n for i in range(players))
        for lineup in rotations(base):
            left = list(range(players))
            ranks = [0] * players
            for place in range(players):
                w = np.array([strengths[lineup[s]] for s in left])
                pick = left[int(rng.choice(len(left), p=w / w.sum()))]
                ranks[pick] = place
                left.remove(pick)
            scores = [players - r for r in ranks]
            out.append(result(len(out), d, lineup, ranks.index(0), scores, ranks))
    return out


@pytest.mark.parametrize("players", [2, 3, 5])
def test_stronger_entrant_rates_higher(players: int) -> None:
    rng = np.random.default_rng(players)
    entrants = max(players, 3)
    strengths = [6.0] + [1.0] * (entrants - 1)
    games = plackett_luce_arena(rng, strengths, players, deals=300 // players)
    ratings = rate(settings_for(entrants, players), games)
    best, others = ratings[0], ratings[1:]
    for r in others:
        assert best.mu > r.mu
        assert best.interval.low > r.interval.high  # non-overlapping
    for r in ratings:
        assert r.interval.low == pytest.approx(r.mu - 1.959964 * r.sigma)
        assert r.ordinal == pytest.approx(r.mu - 3 * r.sigma)
        assert r.sigma < 25 / 3  # the games taught it something


def test_ratings_are_order_independent_and_deterministic() -> None:
    rng = np.random.default_rng(7)
    games = plackett_luce_arena(rng, [2.0, 1.0, 1.0, 0.5], players=4, deals=10)
    s = settings_for(4, 4)
    shuffled = games[:]
    random.Random(1).shuffle(shuffled)
    assert rate(s, shuffled) == rate(s, games) == rate(s, list(reversed(games)))


def test_rating_ranks_and_forfeits() -> None:
    finished = result(0, 0, (0, 1, 0), 1, (5, 9, 7), (2, 0, 1))
    assert rating_ranks(finished) == {0: 1, 1: 0}  # each entrant once, at its best place
    f = forfeited(1, 0, (0, 1, 2, 1), seat=3)
    assert rating_ranks(f) == {0: 0, 1: 1, 2: 0}  # the forfeiter last, the others tied
    assert rating_ranks(result(2, 0, (1, 1), 0, (1, 0), (0, 1))) is None  # alone: nothing
    s = settings_for(3, 4)
    r = rate(s, [f] * 1)
    assert r[1].mu < r[0].mu == r[2].mu
    # An entrant that never played keeps the prior.
    r2 = rate(settings_for(4, 2), [result(0, 0, (0, 1), 0, (1, 0))])
    assert (r2[3].mu, r2[3].sigma) == (25.0, 25 / 3)
