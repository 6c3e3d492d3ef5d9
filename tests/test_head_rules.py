"""Rule tests for Panda Head (docs/rules/head.md) and randomness (Part R).

Every test names the rule ID it checks. Each scenario is an explicit position (mostly built with
``from_deal``) whose outcome was worked out by hand from the rules, and each runs against BOTH the
Rust engine (``panda_core.HeadGame``) and the pure-Python oracle (``OracleHeadGame``) through the
small adapter below (the ``impl`` fixture).

Action ids: ``0..10`` a regular Panda of value ``id + 1``; ``11..21`` a regular Panda of value
``id - 10`` with one Bamboo (value + 2); ``22`` a Big Panda; ``23`` a Bamboo alone.
Card ids: ``0..54`` regular (value ``id // 5 + 1``), ``55..58`` Big Pandas, ``59..62`` Bamboo.
"""

from __future__ import annotations

from typing import Any

import pytest

from panda_core import HeadGame, HeadRules, IllegalMoveError, InvalidStateError, RulesError
from panda_core.oracle import rng as oracle_rng
from panda_core.oracle.head import HeadRules as OracleRules
from panda_core.oracle.head import OracleHeadGame

# --- cards and actions ---------------------------------------------------------------------------

BIG = 22  # action: a Big Panda
BAM = 23  # action: a Bamboo alone
BPS = [55, 56, 57, 58]
BBS = [59, 60, 61, 62]


def c(value: int, copy: int = 0) -> int:
    """Card id of copy ``copy`` (0..4) of regular value ``value`` (H-1.3)."""
    assert 1 <= value <= 11 and 0 <= copy <= 4
    return (value - 1) * 5 + copy


def val(card: int) -> int:
    assert 0 <= card < 55
    return card // 5 + 1


def A(value: int) -> int:
    """Action id: a regular Panda of ``value`` alone."""
    return value - 1


def W(value: int) -> int:
    """Action id: a regular Panda of ``value`` with one Bamboo (effective value + 2)."""
    return value + 10


# --- independent R-1 / R-3 / R-4 / H-2.3 reference (written from the rules, not the oracle) ---

M64 = (1 << 64) - 1
GAMMA = 0x9E3779B97F4A7C15


def sm_next(state: int) -> tuple[int, int]:
    """R-1: one SplitMix64 step; returns (new state, output)."""
    state = (state + GAMMA) & M64
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return state, z ^ (z >> 31)


def ref_shuffle(items: Any, state: int) -> tuple[list[int], int]:
    """R-3: for i from len-1 down to 1: j = next() % (i + 1); swap i and j."""
    out = list(items)
    for i in range(len(out) - 1, 0, -1):
        state, r = sm_next(state)
        j = r % (i + 1)
        out[i], out[j] = out[j], out[i]
    return out, state


def ref_deal(
    players: int,
    state: int,
    dealer: int,
    pooped: list[bool] | None = None,
    special_cards: bool = True,
) -> tuple[list[list[int]], list[int], int]:
    """H-2.3 / R-3 / R-4: shuffle the deck in id order, deal 7 one at a time from the front,
    starting left of the dealer, skipping Pooped seats; the rest is the draw pile (top first)."""
    pooped = pooped or [False] * players
    deck, state = ref_shuffle(range(63 if special_cards else 55), state)
    order = [(dealer + k) % players for k in range(1, players + 1)]
    order = [seat for seat in order if not pooped[seat]]
    hands: list[list[int]] = [[] for _ in range(players)]
    dealt = 7 * len(order)
    for k in range(dealt):
        hands[order[k % len(order)]].append(deck[k])
    return [sorted(h) for h in hands], deck[dealt:], state


# --- the adapter: one small language for both implementations -----------------------------------

IMPLS = ["rust", "oracle"]


@pytest.fixture(params=IMPLS)
def impl(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def is_oracle(game: Any) -> bool:
    return isinstance(game, OracleHeadGame)


def illegal_error(impl: str) -> type[Exception]:
    return IllegalMoveError if impl == "rust" else ValueError


def state_error(impl: str) -> type[Exception]:
    return InvalidStateError if impl == "rust" else ValueError


def rules_error(impl: str) -> type[Exception]:
    return RulesError if impl == "rust" else ValueError


def make_raw(
    impl: str,
    hands: list[list[int]],
    draw_pile: list[int],
    *,
    dealer: int = 0,
    scores: list[int] | None = None,
    drowsy: list[bool] | None = None,
    pooped: list[bool] | None = None,
    rng_state: int = 0,
    hand_number: int = 0,
    rules: dict[str, Any] | None = None,
) -> Any:
    """from_deal on either implementation, with the draw pile given top first."""
    n = len(hands)
    scores = [0] * n if scores is None else scores
    drowsy = [False] * n if drowsy is None else drowsy
    pooped = [False] * n if pooped is None else pooped
    if impl == "rust":
        return HeadGame.from_deal(
            hands,
            draw_pile,
            dealer=dealer,
            scores=scores,
            drowsy=drowsy,
            pooped=pooped,
            rng_state=rng_state,
            hand_number=hand_number,
            rules=HeadRules(**rules) if rules else None,
        )
    return OracleHeadGame.from_deal(
        n,
        hands,
        draw_pile,
        dealer,
        scores,
        drowsy,
        pooped,
        rng_state,
        OracleRules(**(rules or {})),
        hand_number=hand_number,
    )


def make(
    impl: str,
    hands: list[list[int]],
    top: list[int] | tuple[int, ...] = (),
    **kw: Any,
) -> Any:
    """from_deal with the draw pile = ``top`` (top first) then every unused card, ascending."""
    rules = kw.get("rules") or {}
    deck = range(63 if rules.get("special_cards", True) else 55)
    listed = [card for hand in hands for card in hand] + list(top)
    assert len(listed) == len(set(listed)), "test bug: a card is listed twice"
    draw_pile = list(top) + [card for card in deck if card not in set(listed)]
    return make_raw(impl, hands, draw_pile, **kw)


def new(impl: str, players: int, seed: int, rules: dict[str, Any] | None = None) -> Any:
    if impl == "rust":
        return HeadGame(players, seed, HeadRules(**rules) if rules else None)
    return OracleHeadGame.new(players, seed, OracleRules(**(rules or {})))


def legal(game: Any) -> list[int]:
    return list(game.legal_actions())


def play(game: Any, *actions: int) -> None:
    for action in actions:
        game.apply(action)


def snap(game: Any) -> dict[str, Any]:
    """The snapshot with tuples turned into lists and the cards of each play sorted."""
    s = dict(game.snapshot())
    s["pile_plays"] = [[p[0], p[1], p[2], sorted(p[3])] for p in s["pile_plays"]]
    s["hands"] = [sorted(h) for h in s["hands"]]
    s["discard"] = sorted(s["discard"])
    s["hand_results"] = [
        {k: (list(v) if isinstance(v, (list, tuple)) else v) for k, v in dict(r).items()}
        for r in s["hand_results"]
    ]
    return s


def expect_illegal(impl: str, game: Any, action: int) -> None:
    """The move is refused and the state does not change."""
    before = snap(game)
    with pytest.raises(illegal_error(impl)):
        game.apply(action)
    assert snap(game) == before


def turn_order(players: int, dealer: int, pooped: list[bool]) -> list[int]:
    """Seats still in the game clockwise, starting left of the dealer (H-2.4)."""
    seats = [(dealer + k) % players for k in range(1, players + 1)]
    return [seat for seat in seats if not pooped[seat]]


def last_pile_setup(
    players: int,
    dealer: int,
    last: dict[int, int],
    *,
    pooped: list[bool] | None = None,
    reserved: tuple[int, ...] = (),
) -> tuple[list[list[int]], list[list[int]]]:
    """Hands in which piles 1-6 are a formality and pile 7 is ``last`` (seat -> its 7th card).

    The leader gets the six highest free regular cards, the other seats the lowest ones, so in
    each of piles 1-6 the leader leads a high card, every other seat plays its lowest (option B)
    and the leader wins (H-3.3) and leads again (H-2.4). Returns (hands, script of 6 piles).
    """
    pooped = pooped or [False] * players
    order = turn_order(players, dealer, pooped)
    leader = order[0]
    assert sorted(last) == sorted(order), "test bug: one 7th card per seat in the game"
    taken = set(last.values()) | set(reserved)
    free = [card for card in range(55) if card not in taken]
    high = sorted(free[-6:], reverse=True)
    low = free[: 6 * (len(order) - 1)]
    hands: list[list[int]] = [[] for _ in range(players)]
    fill = {leader: high}
    hands[leader] = [*high, last[leader]]
    for k, seat in enumerate(order[1:]):
        fill[seat] = low[6 * k : 6 * k + 6]
        hands[seat] = [*fill[seat], last[seat]]
        assert max(map(val, fill[seat])) < min(map(val, high)), "test bug: filler too high"
        if last[seat] < 55:
            assert val(last[seat]) >= max(map(val, fill[seat])), "test bug: 7th card too low"
    script = [[A(val(fill[seat][p])) for seat in order] for p in range(6)]
    return hands, script


def play_six(game: Any, script: list[list[int]], leader: int) -> None:
    """Play piles 1-6 of a ``last_pile_setup`` hand; the leader wins every one of them."""
    for pile in script:
        assert game.current_player == leader
        play(game, *pile)
    s = snap(game)
    assert s["pile_number"] == 6 and s["leader"] == leader and s["hand_results"] == []


def last_hand_result(game: Any) -> dict[str, Any]:
    results = snap(game)["hand_results"]
    assert len(results) == 1
    return results[0]


def result(
    hand: int,
    dealer: int,
    winner: int,
    deltas: list[int],
    scores: list[int],
    new_drowsy: list[int] | None = None,
    new_pooped: list[int] | None = None,
) -> dict[str, Any]:
    return {
        "hand": hand,
        "dealer": dealer,
        "last_pile_winner": winner,
        "deltas": deltas,
        "scores": scores,
        "new_drowsy": new_drowsy or [],
        "new_pooped": new_pooped or [],
    }


# Six high cards to pad the leader's hand in pile-level scenarios (3 players, dealer 0).
HIGHS = [c(11, 0), c(11, 1), c(11, 2), c(10, 0), c(10, 1), c(10, 2)]


# ==================================================================================================
# H-1 Components
# ==================================================================================================


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_h1_1_a_new_game_deals_the_63_card_deck(impl: str, players: int) -> None:
    s = snap(new(impl, players, 2024))
    cards = [card for hand in s["hands"] for card in hand] + s["draw_pile"]
    assert sorted(cards) == list(range(63))
    assert sum(1 for x in cards if x < 55) == 55
    assert sorted(x for x in cards if 55 <= x <= 58) == BPS
    assert sorted(x for x in cards if x >= 59) == BBS
    assert len(s["draw_pile"]) == 63 - 7 * players


def test_h1_1_a_deal_must_hold_each_of_the_63_cards_once(impl: str) -> None:
    hands = [list(range(0, 7)), list(range(7, 14))]
    full = list(range(14, 63))
    make_raw(impl, hands, full)  # accepted
    with pytest.raises(state_error(impl)):
        make_raw(impl, hands, full[:-1])  # card 62 missing
    with pytest.raises(state_error(impl)):
        make_raw(impl, hands, [*full[:-1], 14])  # card 14 twice, 62 missing
    with pytest.raises(state_error(impl)):
        make_raw(impl, hands, [*full, 63])  # no card 63
    with pytest.raises(state_error(impl)):
        make_raw(impl, hands, full[:-8])  # the 8 special cards missing


@pytest.mark.parametrize("value", range(1, 12))
def test_h1_2_the_five_copies_of_each_value_play_as_that_value(impl: str, value: int) -> None:
    # Seat 1 (leader, dealer 0) holds all five copies of `value` and two cards of other values.
    others = [w for w in range(1, 12) if w != value][:2]
    leader = [c(value, k) for k in range(5)] + [c(w, 0) for w in others]
    follower = [c(w, 1) for w in range(1, 12) if w != value][2:9]
    game = make(impl, [follower, leader])
    assert legal(game) == sorted([A(value)] + [A(w) for w in others])
    for k in range(5):
        assert val(c(value, k)) == value
    play(game, A(value))
    assert snap(game)["pile_plays"] == [[1, A(value), value, [c(value, 0)]]]


@pytest.mark.parametrize("card", range(63))
def test_h1_3_card_ids(impl: str, card: int) -> None:
    """Regular ids 0..54 have value id // 5 + 1; 55..58 are Big Pandas; 59..62 Bamboo."""
    if card < 55:
        v = card // 5 + 1
        others = [w for w in range(1, 12) if w != v][:6]
        leader = [card] + [c(w, 0) if c(w, 0) != card else c(w, 1) for w in others]
        top: list[int] = []
        expected_legal = sorted([v - 1] + [w - 1 for w in others])
        action, expected_play = v - 1, [1, v - 1, v, [card]]
    elif card <= 58:
        others = [1, 2, 3, 4, 5, 6]
        leader = [card] + [c(w, 0) for w in others]
        top = [c(7, 4)]
        expected_legal = [*[w - 1 for w in others], BIG]
        action, expected_play = BIG, [1, BIG, 7, sorted([card, c(7, 4)])]
    else:
        others = [1, 2, 3, 4, 5, 6]
        leader = [card] + [c(w, 0) for w in others]
        top = [c(7, 4)]
        expected_legal = [w - 1 for w in others] + [w + 10 for w in others]
        action, expected_play = W(4), [1, W(4), 6, sorted([c(4, 0), card])]
    used = set(leader) | set(top)
    follower = [x for x in range(55) if x not in used][-7:]
    game = make(impl, [follower, leader], top)
    assert legal(game) == expected_legal
    play(game, action)
    assert snap(game)["pile_plays"] == [expected_play]


def test_h1_4_the_lowest_id_of_the_kind_leaves_the_hand(impl: str) -> None:
    # Seat 1 leads; it holds copies 2 and 4 of value 3, Big Pandas 56 and 58, Bamboo 60 and 62.
    leader = [c(3, 4), c(3, 2), 58, 56, 62, 60, c(9, 0)]
    follower = [c(1, k) for k in range(5)] + [c(2, 0), c(2, 1)]
    top = [c(8, 3), c(8, 4)]
    game = make(impl, [follower, leader], top)
    play(game, A(3))
    assert snap(game)["pile_plays"] == [[1, A(3), 3, [c(3, 2)]]]
    assert snap(game)["hands"][1] == sorted([c(3, 4), 56, 58, 60, 62, c(9, 0)])

    game = make(impl, [follower, leader], top)
    play(game, BIG)  # the Big Panda 56 leaves; the top card (an 8) is turned up
    assert snap(game)["pile_plays"] == [[1, BIG, 8, sorted([56, c(8, 3)])]]
    assert 58 in snap(game)["hands"][1]

    game = make(impl, [follower, leader], top)
    play(game, W(3))  # copy 2 of the 3 and Bamboo 60 leave
    assert snap(game)["pile_plays"] == [[1, W(3), 5, [c(3, 2), 60]]]
    assert snap(game)["hands"][1] == sorted([c(3, 4), 56, 58, 62, c(9, 0), c(8, 3)])


def test_h1_4_equal_moves_give_identical_states(impl: str) -> None:
    # The same deal with the hands listed in a different order: one move name, one result.
    leader = [c(3, 4), c(3, 2), 58, 56, 62, 60, c(9, 0)]
    follower = [c(1, k) for k in range(5)] + [c(2, 0), c(2, 1)]
    g1 = make(impl, [follower, leader], [c(8, 3)])
    g2 = make(impl, [follower[::-1], leader[::-1]], [c(8, 3)])
    assert legal(g1) == legal(g2) == [A(3), A(9), W(3), W(9), BIG]  # each kind listed once
    play(g1, W(3), A(1))
    play(g2, W(3), A(1))
    assert snap(g1) == snap(g2)


# ==================================================================================================
# H-2 Players, dealer, hands
# ==================================================================================================


@pytest.mark.parametrize("players", [0, 1, 6, 7, -2])
def test_h2_1_player_counts_other_than_2_to_5_are_refused(impl: str, players: int) -> None:
    with pytest.raises(rules_error(impl)):
        new(impl, players, 1)


def test_h2_1_deals_with_one_or_six_seats_are_refused(impl: str) -> None:
    with pytest.raises((RulesError, InvalidStateError) if impl == "rust" else ValueError):
        make_raw(impl, [list(range(7))], list(range(7, 63)))
    six = [list(range(7 * k, 7 * k + 7)) for k in range(6)]
    with pytest.raises((RulesError, InvalidStateError) if impl == "rust" else ValueError):
        make_raw(impl, six, list(range(42, 63)))


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_h2_1_two_to_five_players_are_accepted(impl: str, players: int) -> None:
    s = snap(new(impl, players, 99))
    assert s["players"] == players
    assert [len(h) for h in s["hands"]] == [7] * players


def test_h2_2_first_dealer_is_a_parameter(impl: str) -> None:
    g = new(impl, 4, 5)
    assert (snap(g)["dealer"], snap(g)["leader"], g.current_player) == (0, 1, 1)
    g = new(impl, 4, 5, {"first_dealer": 2})
    assert (snap(g)["dealer"], snap(g)["leader"], g.current_player) == (2, 3, 3)
    g = new(impl, 5, 5, {"first_dealer": 4})
    assert (snap(g)["dealer"], snap(g)["leader"], g.current_player) == (4, 0, 0)
    with pytest.raises(rules_error(impl)):
        new(impl, 3, 5, {"first_dealer": 3})


def test_h2_2_the_deal_passes_clockwise_after_a_hand(impl: str) -> None:
    # 3 players, dealer 2: seat 0 leads. Pile 7: 5, 6, 8 -> seat 2 wins 19.
    hands, script = last_pile_setup(3, 2, {0: c(5, 0), 1: c(6, 0), 2: c(8, 0)})
    g = make(impl, hands, dealer=2, rng_state=777)
    play_six(g, script, 0)
    play(g, A(5), A(6), A(8))
    assert last_hand_result(g) == result(0, 2, 2, [0, 0, 19], [0, 0, 19])
    s = snap(g)
    assert (s["dealer"], s["hand_number"], s["leader"], g.current_player) == (0, 1, 1, 1)
    exp_hands, exp_draw, _ = ref_deal(3, 777, 0)
    assert (s["hands"], s["draw_pile"]) == (exp_hands, exp_draw)


def test_h2_2_the_deal_skips_pooped_seats(impl: str) -> None:
    # 4 players, seat 3 Pooped, dealer 2: seat 0 leads (order 0, 1, 2); the next dealer is 0.
    pooped = [False, False, False, True]
    hands, script = last_pile_setup(4, 2, {0: c(5, 0), 1: c(6, 0), 2: c(7, 0)}, pooped=pooped)
    g = make(
        impl,
        hands,
        dealer=2,
        pooped=pooped,
        drowsy=pooped,
        scores=[0, 0, 0, 25],
        rng_state=31337,
    )
    play_six(g, script, 0)
    play(g, A(5), A(6), A(7))
    assert last_hand_result(g) == result(0, 2, 2, [0, 0, 18, 0], [0, 0, 18, 25])
    s = snap(g)
    assert (s["dealer"], s["leader"], g.current_player) == (0, 1, 1)
    # H-2.3: dealt one card at a time from seat 1 on, skipping the Pooped seat 3.
    exp_hands, exp_draw, exp_state = ref_deal(4, 31337, 0, pooped)
    assert (s["hands"], s["draw_pile"], s["rng_state"]) == (exp_hands, exp_draw, exp_state)
    assert s["hands"][3] == []


def test_h2_2_after_the_dealer_is_pooped_counting_starts_at_the_old_dealer(impl: str) -> None:
    # 4 players; seat 2 already Pooped; dealer 1 is Drowsy on 20. Order: 3, 0, 1.
    # Pile 7: seat 3 plays 4, seat 0 plays 5, seat 1 plays 9 -> seat 1 scores 18 -> 38: Pooped.
    # The deal passes from seat 1: seat 2 is Pooped, so seat 3 deals, and seat 0 leads.
    pooped = [False, False, True, False]
    hands, script = last_pile_setup(4, 1, {3: c(4, 0), 0: c(5, 0), 1: c(9, 0)}, pooped=pooped)
    g = make(
        impl,
        hands,
        dealer=1,
        scores=[3, 20, 30, 6],
        drowsy=[False, True, True, False],
        pooped=pooped,
        rng_state=5,
    )
    play_six(g, script, 3)
    play(g, A(4), A(5), A(9))
    assert last_hand_result(g) == result(0, 1, 1, [0, 18, 0, 0], [3, 38, 30, 6], new_pooped=[1])
    s = snap(g)
    assert s["pooped"] == [False, True, True, False]
    assert (s["dealer"], s["leader"], g.current_player, s["hand_number"]) == (3, 0, 0, 1)
    assert not g.is_over
    exp_hands, exp_draw, _ = ref_deal(4, 5, 3, s["pooped"])
    assert (s["hands"], s["draw_pile"]) == (exp_hands, exp_draw)


@pytest.mark.parametrize("players", [2, 3, 4, 5])
@pytest.mark.parametrize("first_dealer", [0, 1])
@pytest.mark.parametrize("special_cards", [True, False])
def test_h2_3_new_game_deal_matches_the_reference_shuffle_and_deal(
    impl: str, players: int, first_dealer: int, special_cards: bool
) -> None:
    seed = 0xDEADBEEF + players
    g = new(impl, players, seed, {"first_dealer": first_dealer, "special_cards": special_cards})
    s = snap(g)
    exp_hands, exp_draw, exp_state = ref_deal(players, seed, first_dealer, None, special_cards)
    assert s["hands"] == exp_hands
    assert s["draw_pile"] == exp_draw
    assert s["rng_state"] == exp_state
    assert len(s["draw_pile"]) == (63 if special_cards else 55) - 7 * players


def test_h2_3_next_hand_is_a_fresh_shuffle_of_all_cards(impl: str) -> None:
    # After a hand in which cards were turned up and discarded, the next hand again shuffles
    # all 63 cards (continuing the generator from rng_state).
    hands, script = last_pile_setup(2, 0, {1: 55, 0: c(6, 0)})  # seat 1 leads a Big Panda
    g = make(impl, hands, rng_state=4242)
    play_six(g, script, 1)
    play(g, BIG)  # turns up the first card of the draw pile
    play(g, A(6))
    s = snap(g)
    assert s["hand_number"] == 1 and s["dealer"] == 1 and s["discard"] == []
    exp_hands, exp_draw, exp_state = ref_deal(2, 4242, 1)
    assert (s["hands"], s["draw_pile"], s["rng_state"]) == (exp_hands, exp_draw, exp_state)


def test_h2_4_a_hand_is_seven_piles(impl: str) -> None:
    hands, script = last_pile_setup(3, 0, {1: c(4, 0), 2: c(5, 0), 0: c(6, 0)})
    g = make(impl, hands)
    for pile in range(6):
        assert snap(g)["pile_number"] == pile
        play(g, *script[pile])
    s = snap(g)
    assert s["pile_number"] == 6 and s["hand_number"] == 0 and s["hand_results"] == []
    assert [len(h) for h in s["hands"]] == [1, 1, 1]
    play(g, A(4), A(5), A(6))  # pile 7 ends the hand: seat 0 wins with 6, scores 15
    s = snap(g)
    assert s["hand_number"] == 1 and s["pile_number"] == 0
    assert s["hand_results"] == [result(0, 0, 0, [15, 0, 0], [15, 0, 0])]


def test_h2_4_left_of_the_dealer_leads_skipping_pooped_seats(impl: str) -> None:
    pooped = [True, False, False, False]
    hands, _ = last_pile_setup(4, 3, {1: c(4, 0), 2: c(5, 0), 3: c(6, 0)}, pooped=pooped)
    g = make(impl, hands, dealer=3, pooped=pooped, drowsy=pooped, scores=[22, 0, 0, 0])
    assert snap(g)["leader"] == 1 and g.current_player == 1


def test_h2_4_the_pile_winner_leads_the_next_pile(impl: str) -> None:
    # 3 players, dealer 0. Pile 1: seat 1 leads 4, seat 2 plays 9, seat 0 plays 1: seat 2 wins.
    # Pile 2: seat 2 leads 2, seat 0 plays 8, seat 1 plays 3 (lowest): seat 0 wins.
    s1 = [c(4, 0), c(3, 0), c(3, 1), c(10, 0), c(10, 1), c(10, 2), c(11, 0)]
    s2 = [c(9, 0), c(2, 0), c(2, 1), c(5, 0), c(5, 1), c(6, 0), c(6, 1)]
    s0 = [c(1, 0), c(8, 0), c(8, 1), c(7, 0), c(7, 1), c(7, 2), c(7, 3)]
    g = make(impl, [s0, s1, s2])
    play(g, A(4), A(9), A(1))
    assert (snap(g)["leader"], g.current_player, snap(g)["pile_number"]) == (2, 2, 1)
    play(g, A(2))
    assert g.current_player == 0
    play(g, A(8))
    assert g.current_player == 1
    assert legal(g) == [A(3), A(10), A(11)]
    play(g, A(3))
    assert (snap(g)["leader"], g.current_player, snap(g)["pile_number"]) == (0, 0, 2)


# ==================================================================================================
# H-3 Playing a pile
# ==================================================================================================


@pytest.mark.parametrize("lowest_only", [False, True])
def test_h3_1_leader_may_lead_any_panda_alone_or_with_bamboo_or_a_big_panda(
    impl: str, lowest_only: bool
) -> None:
    s1 = [c(2, 0), c(5, 0), c(5, 1), c(9, 0), 55, 59, 60]
    s2 = [c(1, 0), c(1, 1), c(1, 2), c(3, 0), c(3, 1), c(4, 0), c(4, 1)]
    s0 = [c(6, 0), c(6, 1), c(7, 0), c(7, 1), c(8, 0), c(8, 1), c(10, 0)]
    g = make(impl, [s0, s1, s2], rules={"lowest_only_when_cannot_follow": lowest_only})
    assert g.current_player == 1
    assert legal(g) == [A(2), A(5), A(9), W(2), W(5), W(9), BIG]
    expect_illegal(impl, g, BAM)  # a Bamboo alone is not a lead while other cards are held
    expect_illegal(impl, g, A(3))  # not held
    play(g, A(9))  # any value, not only the lowest
    assert snap(g)["pile_plays"] == [[1, A(9), 9, [c(9, 0)]]]
    assert g.current_player == 2


# A 3-player deal (dealer 0, order 1, 2, 0) for the option A / option B tests.
H32_S1 = [c(6, 0), c(10, 0), c(10, 1), c(10, 2), c(10, 3), c(9, 0), c(1, 0)]
H32_S2 = [c(2, 0), c(3, 0), c(4, 0), c(6, 1), c(7, 0), c(8, 0), c(11, 0)]
H32_S0 = [c(1, 1), c(3, 1), c(4, 1), c(5, 0), c(9, 1), 59, 55]


def test_h3_2_follow_equal_or_higher_or_lowest_free_choice(impl: str) -> None:
    g = make(impl, [H32_S0, H32_S1, H32_S2])
    play(g, A(6))
    # Seat 2 (2, 3, 4, 6, 7, 8, 11): A = 6 (equal), 7, 8, 11; B = 2; not 3 or 4.
    assert legal(g) == [A(2), A(6), A(7), A(8), A(11)]
    play(g, A(8))
    # Seat 0 (1, 3, 4, 5, 9, Bamboo, Big Panda), highest so far 8 (not the led 6):
    # A = 9, 9+B, BP; B = 1 and 1+B. Not 5+B (7 < 8) nor 4+B (6, would do against the lead).
    assert legal(g) == [A(1), A(9), W(1), W(9), BIG]


def test_h3_2_illegal_follows_are_refused_and_change_nothing(impl: str) -> None:
    g = make(impl, [H32_S0, H32_S1, H32_S2])
    play(g, A(6))
    for bad in (A(3), A(4), A(5), A(10), W(2), BIG, BAM, 24, -1):
        expect_illegal(impl, g, bad)
    play(g, A(8))
    for bad in (A(3), A(4), A(5), W(3), W(5), BAM):
        expect_illegal(impl, g, bad)
    assert g.current_player == 0


def test_h3_2_variant_lowest_only_when_cannot_follow(impl: str) -> None:
    g = make(impl, [H32_S0, H32_S1, H32_S2], rules={"lowest_only_when_cannot_follow": True})
    play(g, A(6))
    assert legal(g) == [A(6), A(7), A(8), A(11)]  # option A exists: no lowest 2
    expect_illegal(impl, g, A(2))
    play(g, A(8))
    assert legal(g) == [A(9), W(9), BIG]


def test_h3_2_variant_lowest_allowed_when_no_option_a(impl: str) -> None:
    s1 = [c(11, 0), c(10, 0), c(10, 1), c(10, 2), c(9, 0), c(9, 1), c(9, 2)]
    s2 = [c(2, 0), c(3, 0), c(4, 0), c(5, 0), c(6, 0), c(7, 0), c(8, 0)]
    s0 = [c(1, 0), c(3, 1), c(9, 3), 59, 55, c(4, 1), c(5, 1)]
    for lowest_only, seat0_legal in ((False, [A(1), W(1), W(9), BIG]), (True, [W(9), BIG])):
        g = make(impl, [s0, s1, s2], rules={"lowest_only_when_cannot_follow": lowest_only})
        play(g, A(11))
        assert legal(g) == [A(2)]  # nothing reaches 11: only the lowest Panda
        play(g, A(2))
        assert legal(g) == seat0_legal


def test_h3_2_variant_a_play_that_is_both_a_and_b_counts_as_a(impl: str) -> None:
    s1 = [c(5, 0), c(11, 0), c(10, 0), c(10, 1), c(10, 2), c(9, 0), c(9, 1)]
    s2 = [c(1, 0), c(2, 0), c(5, 1), c(7, 0), c(8, 0), c(2, 1), c(1, 1)]
    s0 = [c(3, 0), c(4, 0), c(3, 1), c(4, 1), c(3, 2), 59, 60]
    for lowest_only, seat2, seat0 in (
        (False, [A(1), A(5), A(7), A(8)], [A(3), W(3), W(4)]),
        (True, [A(5), A(7), A(8)], [W(3), W(4)]),
    ):
        g = make(impl, [s0, s1, s2], rules={"lowest_only_when_cannot_follow": lowest_only})
        play(g, A(5))
        assert legal(g) == seat2
        play(g, A(5))
        # 3+B = 5 reaches the highest (A) and is the lowest with a Bamboo (B): allowed.
        assert legal(g) == seat0


def test_h3_2_every_other_player_plays_once_clockwise(impl: str) -> None:
    hands, script = last_pile_setup(4, 1, {2: c(4, 0), 3: c(5, 0), 0: c(6, 0), 1: c(7, 0)})
    g = make(impl, hands, dealer=1)
    seen = []
    for action in script[0]:
        seen.append(g.current_player)
        play(g, action)
    assert seen == [2, 3, 0, 1]
    assert snap(g)["pile_number"] == 1 and g.current_player == 2


def test_h3_2_pooped_seats_do_not_play(impl: str) -> None:
    pooped = [False, False, False, True, False]
    hands, script = last_pile_setup(
        5, 0, {1: c(4, 0), 2: c(5, 0), 4: c(6, 0), 0: c(7, 0)}, pooped=pooped
    )
    g = make(impl, hands, pooped=pooped, drowsy=pooped, scores=[0, 0, 0, 24, 0])
    seen = []
    for action in script[0]:
        seen.append(g.current_player)
        play(g, action)
    assert seen == [1, 2, 4, 0]
    assert snap(g)["pile_number"] == 1


def test_h3_3_the_highest_value_wins_the_pile(impl: str) -> None:
    s1 = [c(4, 0), *HIGHS]
    s2 = [c(9, 0), c(2, 0), c(2, 1), c(3, 0), c(3, 1), c(5, 0), c(5, 1)]
    s0 = [c(1, 0), c(6, 0), c(6, 1), c(7, 0), c(7, 1), c(8, 0), c(8, 1)]
    g = make(impl, [s0, s1, s2])
    play(g, A(4), A(9), A(1))
    assert (snap(g)["leader"], g.current_player) == (2, 2)


def test_h3_3_a_tie_for_highest_is_won_by_the_last_to_play_it(impl: str) -> None:
    s1 = [c(7, 0), *HIGHS]
    s2 = [c(7, 1), c(1, 0), c(2, 0), c(3, 0), c(4, 0), c(5, 0), c(6, 0)]
    s0 = [c(7, 2), c(1, 1), c(2, 1), c(3, 1), c(4, 1), c(5, 1), c(6, 1)]
    g = make(impl, [s0, s1, s2])
    play(g, A(7), A(7), A(7))
    assert (snap(g)["leader"], g.current_player) == (0, 0)

    # The tie is between seats 1 and 2; seat 0 plays lower after them: seat 2 wins.
    s1 = [c(9, 0), *HIGHS]
    s2 = [c(9, 1), c(1, 0), c(2, 0), c(3, 0), c(4, 0), c(5, 0), c(6, 0)]
    s0 = [c(2, 1), c(3, 1), c(4, 1), c(5, 1), c(6, 1), c(7, 1), c(8, 1)]
    g = make(impl, [s0, s1, s2])
    play(g, A(9), A(9), A(2))
    assert (snap(g)["leader"], g.current_player) == (2, 2)


def test_h3_4_completed_piles_are_set_aside(impl: str) -> None:
    s1 = [c(4, 0), *HIGHS]
    s2 = [c(9, 0), c(2, 0), c(2, 1), c(3, 0), c(3, 1), c(5, 0), c(5, 1)]
    s0 = [c(1, 0), c(6, 0), c(6, 1), c(7, 0), c(7, 1), c(8, 0), c(8, 1)]
    g = make(impl, [s0, s1, s2])
    draw = snap(g)["draw_pile"]
    play(g, A(4), A(9), A(1))
    s = snap(g)
    assert s["discard"] == sorted([c(4, 0), c(9, 0), c(1, 0)])
    assert s["pile_plays"] == [] and s["draw_pile"] == draw
    assert s["hands"] == [sorted(s0[1:]), sorted(s1[1:]), sorted(s2[1:])]
    play(g, A(2), A(6), A(10))  # seat 2 leads 2, seat 0 plays 6, seat 1 plays 10: seat 1 wins
    s = snap(g)
    assert s["discard"] == sorted([c(4, 0), c(9, 0), c(1, 0), c(2, 0), c(6, 0), c(10, 0)])
    assert s["leader"] == 1 and s["draw_pile"] == draw
    # The set-aside cards never come back during the hand (piles 3-6; pile 7 ends the hand).
    for pile in range(2, 6):
        for _ in range(3):
            play(g, legal(g)[0])
        held = {x for h in snap(g)["hands"] for x in h}
        assert not held & {c(4, 0), c(9, 0), c(1, 0), c(2, 0), c(6, 0), c(10, 0)}, pile


# ==================================================================================================
# H-4 Special cards
# ==================================================================================================


def test_h4_1_led_big_panda_turns_up_the_top_card(impl: str) -> None:
    s1 = [55, c(11, 0), c(10, 0), c(9, 0), c(8, 0), c(7, 0), c(6, 0)]
    s2 = [c(1, 0), c(2, 0), c(3, 0), c(4, 0), c(5, 0), c(6, 1), c(8, 1)]
    s0 = [c(1, 1), c(2, 1), c(3, 1), c(4, 1), c(5, 1), c(6, 2), c(9, 1)]
    g = make(impl, [s0, s1, s2], [c(7, 2), c(3, 4)])
    assert legal(g) == [A(6), A(7), A(8), A(9), A(10), A(11), BIG]
    play(g, BIG)
    s = snap(g)
    assert s["pile_plays"] == [[1, BIG, 7, [c(7, 2), 55]]]
    assert s["draw_pile"][0] == c(3, 4)
    assert 55 not in s["hands"][1] and len(s["hands"][1]) == 6
    assert legal(g) == [A(1), A(8)]  # highest is the turned-up 7


def test_h4_1_turned_up_specials_are_discarded_until_a_regular_panda(impl: str) -> None:
    s1 = [55, 57, c(11, 0), c(10, 0), c(9, 0), c(8, 0), c(7, 0)]
    s2 = [c(1, 0), c(2, 0), c(3, 0), c(5, 0), c(6, 0), c(11, 1), 59]
    s0 = [c(1, 1), c(2, 1), c(3, 1), c(5, 1), c(6, 1), c(11, 2), 60]
    top = [56, 61, 58, c(4, 3), c(8, 4)]
    g = make(impl, [s0, s1, s2], top)
    size = len(snap(g)["draw_pile"])
    play(g, BIG)
    s = snap(g)
    assert s["pile_plays"] == [[1, BIG, 4, sorted([55, 56, 61, 58, c(4, 3)])]]
    assert s["draw_pile"][0] == c(8, 4) and len(s["draw_pile"]) == size - 4
    assert 57 in s["hands"][1]
    # Seat 2 against a 4: A = 5, 6, 11 and (with Bamboo) 2+B .. 11+B; B = 1 and 1+B.
    assert legal(g) == [A(1), A(5), A(6), A(11), W(1), W(2), W(3), W(5), W(6), W(11)]
    play(g, A(1), A(1))
    s = snap(g)
    assert s["leader"] == 1
    assert s["discard"] == sorted([55, 56, 58, 61, c(4, 3), c(1, 0), c(1, 1)])


# A 4-player deal (dealer 0, order 1, 2, 3, 0) for the following Big Panda.
H42_HANDS = [
    [c(1, 2), c(1, 3), c(3, 2), c(4, 0), c(4, 1), c(4, 2), c(6, 1)],
    [c(5, 0), c(11, 0), c(11, 1), c(11, 2), c(10, 0), c(10, 1), c(10, 2)],
    [55, c(1, 0), c(1, 1), c(2, 0), c(2, 1), c(3, 0), c(3, 1)],
    [c(2, 2), c(5, 1), c(6, 0), c(7, 0), c(8, 0), c(9, 0), c(9, 1)],
]


def test_h4_2_following_big_panda_is_highest_plus_one(impl: str) -> None:
    g = make(impl, H42_HANDS)
    play(g, A(5))
    assert legal(g) == [A(1), BIG]
    play(g, BIG)
    assert snap(g)["pile_plays"][1] == [2, BIG, 6, [55]]
    # Seat 3 must reach 6: 6, 7, 8, 9 (not 5); or its lowest, 2.
    assert legal(g) == [A(2), A(6), A(7), A(8), A(9)]
    play(g, A(6))  # ties the Big Panda's 6
    assert legal(g) == [A(1), A(6)]
    play(g, A(1))
    assert (snap(g)["leader"], g.current_player) == (3, 3)  # tie: the last 6 wins


def test_h4_2_big_panda_value_is_fixed_when_played(impl: str) -> None:
    g = make(impl, H42_HANDS)
    play(g, A(5), BIG, A(7))
    s = snap(g)
    assert s["pile_plays"][1] == [2, BIG, 6, [55]]  # still 6 after a 7 was played
    assert s["pile_plays"][2] == [3, A(7), 7, [c(7, 0)]]
    assert legal(g) == [A(1)]
    play(g, A(1))
    assert snap(g)["leader"] == 3


def test_h4_2_big_panda_after_bamboo_and_after_big_panda(impl: str) -> None:
    hands = [
        [c(10, 1), c(1, 4), c(2, 4), c(3, 3), c(4, 3), c(5, 2), c(8, 0)],
        [c(5, 0), c(11, 0), c(11, 1), c(11, 2), c(11, 3), c(11, 4), c(10, 0)],
        [c(6, 0), 59, c(1, 0), c(1, 1), c(2, 0), c(2, 1), c(3, 0)],
        [55, c(1, 2), c(2, 2), c(3, 1), c(4, 0), c(4, 1), c(6, 1)],
        [56, c(1, 3), c(2, 3), c(3, 2), c(4, 2), c(5, 1), c(7, 0)],
    ]
    g = make(impl, hands, [c(9, 4)])
    play(g, A(5))
    assert legal(g) == [A(1), A(6), W(1), W(3), W(6)]
    play(g, W(6))
    assert snap(g)["pile_plays"][1] == [2, W(6), 8, [c(6, 0), 59]]
    assert legal(g) == [A(1), BIG]
    play(g, BIG)
    assert snap(g)["pile_plays"][2] == [3, BIG, 9, [55]]
    assert legal(g) == [A(1), BIG]
    play(g, BIG)
    assert snap(g)["pile_plays"][3] == [4, BIG, 10, [56]]
    assert legal(g) == [A(1), A(10)]  # 10 ties the second Big Panda; 8 does not reach it
    play(g, A(10))
    assert (snap(g)["leader"], g.current_player) == (0, 0)


def test_h4_2_big_panda_is_option_a_and_never_the_lowest(impl: str) -> None:
    s1 = [c(11, 0), c(10, 0), c(10, 1), c(10, 2), c(9, 0), c(9, 1), c(9, 2)]
    s2 = [55, 56, c(3, 0), c(5, 0), c(7, 0), c(8, 0), c(6, 0)]
    s0 = [c(1, 0), c(1, 1), c(1, 2), c(2, 0), c(2, 1), c(2, 2), c(4, 0)]
    for lowest_only, seat2 in ((False, [A(3), BIG]), (True, [BIG])):
        g = make(impl, [s0, s1, s2], rules={"lowest_only_when_cannot_follow": lowest_only})
        play(g, A(11))
        assert legal(g) == seat2


def test_h4_3_bamboo_with_a_led_panda_adds_two_and_draws_a_replacement(impl: str) -> None:
    s1 = [c(5, 0), 59, 61, c(11, 0), c(10, 0), c(9, 0), c(8, 0)]
    s2 = [c(1, 0), c(1, 1), c(1, 2), c(1, 3), c(6, 0), c(6, 1), c(2, 0)]
    s0 = [c(2, 1), c(2, 2), c(2, 3), c(3, 0), c(3, 1), c(3, 2), c(4, 0)]
    g = make(impl, [s0, s1, s2], [c(7, 3), c(7, 4)])
    draw = snap(g)["draw_pile"]
    play(g, W(5))
    s = snap(g)
    assert s["pile_plays"] == [[1, W(5), 7, [c(5, 0), 59]]]
    # One Bamboo only; the replacement (the top card) goes into the hand: 6 cards for 6 piles.
    assert s["hands"][1] == sorted([61, c(11, 0), c(10, 0), c(9, 0), c(8, 0), c(7, 3)])
    assert s["draw_pile"] == draw[1:]
    assert legal(g) == [A(1)]  # 6 does not reach 5 + 2
    play(g, A(1), A(2))
    assert snap(g)["leader"] == 1
    assert legal(g) == [A(7), A(8), A(9), A(10), A(11), W(7), W(8), W(9), W(10), W(11)]


def test_h4_3_a_special_card_drawn_as_replacement_goes_into_the_hand(impl: str) -> None:
    s1 = [c(5, 0), 59, c(11, 0), c(10, 0), c(9, 0), c(8, 0), c(7, 0)]
    s2 = [c(1, 0), c(1, 1), c(1, 2), c(1, 3), c(6, 0), c(6, 1), c(2, 0)]
    s0 = [c(2, 1), c(2, 2), c(2, 3), c(3, 0), c(3, 1), c(3, 2), c(4, 0)]
    g = make(impl, [s0, s1, s2], [57, c(7, 4)])
    play(g, W(5))
    assert snap(g)["hands"][1] == sorted([57, c(11, 0), c(10, 0), c(9, 0), c(8, 0), c(7, 0)])
    assert snap(g)["draw_pile"][0] == c(7, 4)
    play(g, A(1), A(2))
    assert legal(g) == [A(7), A(8), A(9), A(10), A(11), BIG]


def test_h4_3_bamboo_counts_for_option_a_option_b_and_winning(impl: str) -> None:
    s1 = [c(9, 0), *HIGHS]
    s2 = [c(2, 0), c(6, 0), c(7, 0), 60, c(3, 0), c(4, 0), c(5, 0)]
    s0 = [c(1, 0), c(8, 0), c(8, 1), c(8, 2), c(1, 1), c(1, 2), c(1, 3)]
    g = make(impl, [s0, s1, s2], [c(11, 4)])
    play(g, A(9))
    # A: 7+B = 9 (not 6+B = 8); B: 2 and 2+B.
    assert legal(g) == [A(2), W(2), W(7)]
    play(g, W(7))
    s = snap(g)
    assert s["pile_plays"][1] == [2, W(7), 9, [c(7, 0), 60]]
    assert c(11, 4) in s["hands"][2] and len(s["hands"][2]) == 6
    assert legal(g) == [A(1)]  # 8 does not reach 9
    play(g, A(1))
    assert (snap(g)["leader"], g.current_player) == (2, 2)  # 9 and 7+B tie: the last wins


def test_h4_4_bamboo_alone_when_the_leaders_hand_is_only_bamboo(impl: str) -> None:
    s1 = [59, 60, 61, 62, c(11, 0), c(11, 1), c(11, 2)]
    s0 = [c(1, 0), c(1, 1), c(1, 2), c(1, 3), c(1, 4), c(2, 0), c(2, 1)]
    top = [55, c(8, 0), c(3, 0), c(9, 0)]
    g = make(impl, [s0, s1], top)
    assert legal(g) == [A(11), W(11)]
    for _ in range(3):
        assert legal(g) == [A(11), W(11)]
        play(g, A(11))
        assert legal(g) == [A(1)]
        play(g, A(1))
    assert snap(g)["hands"][1] == BBS
    assert legal(g) == [BAM]
    draw = snap(g)["draw_pile"]
    play(g, BAM)
    s = snap(g)
    # The Bamboo is discarded, the Big Panda turned up is discarded, the 8 is the play.
    assert s["pile_plays"] == [[1, BAM, 8, sorted([59, 55, c(8, 0)])]]
    assert s["hands"][1] == [60, 61, 62]  # no replacement
    assert s["draw_pile"] == draw[2:]
    assert legal(g) == [A(1)]
    play(g, A(1))
    assert snap(g)["leader"] == 1
    assert legal(g) == [BAM]
    play(g, BAM)
    assert snap(g)["pile_plays"] == [[1, BAM, 3, [c(3, 0), 60]]]
    assert legal(g) == [A(1)]  # 1 and 2 do not reach the turned-up 3: only the lowest, 1


def test_h4_4_bamboo_alone_is_forced_whatever_the_value_turned_up(impl: str) -> None:
    s1 = [c(11, 0), c(11, 1), c(11, 2), c(11, 3), c(10, 0), c(10, 1), c(10, 2)]
    s0 = [59, 60, 61, 62, c(1, 0), c(1, 1), c(1, 2)]
    g = make(impl, [s0, s1], [c(11, 4), c(2, 0)])
    for _ in range(3):
        play(g, A(11))
        assert legal(g) == [A(1), W(1)]
        play(g, A(1))
    play(g, A(11))
    assert legal(g) == [BAM]  # the only play, although the hand cannot know what turns up
    for bad in (A(1), W(1), BIG):
        expect_illegal(impl, g, bad)
    play(g, BAM)  # turns up the 11: ties the led 11, and the last to play it wins
    s = snap(g)
    assert (s["leader"], g.current_player) == (0, 0)
    assert s["hands"][0] == [60, 61, 62]
    assert s["discard"] == sorted(
        [c(11, 0), c(1, 0), c(11, 1), c(1, 1), c(11, 2), c(1, 2), c(11, 3), 59, c(11, 4)]
    )
    assert legal(g) == [BAM]
    play(g, BAM)
    assert snap(g)["pile_plays"] == [[0, BAM, 2, [c(2, 0), 60]]]
    assert legal(g) == [A(10)]  # seat 1 holds three 10s: A (10 >= 2) and lowest at once


def test_h4_5_no_regular_panda_means_no_option_b(impl: str) -> None:
    s1 = [c(6, 0), *HIGHS]
    s2 = [55, 56, 57, 59, 60, 61, 62]
    s0 = [c(1, 0), c(1, 1), c(1, 2), c(2, 0), c(2, 1), c(2, 2), c(3, 0)]
    for lowest_only in (False, True):
        g = make(impl, [s0, s1, s2], rules={"lowest_only_when_cannot_follow": lowest_only})
        play(g, A(6))
        assert legal(g) == [BIG]  # no lowest Panda, no Bamboo alone (a Big Panda is held)
        for bad in (BAM, A(1), W(1)):
            expect_illegal(impl, g, bad)
        play(g, BIG)
        play(g, A(1))
        assert snap(g)["leader"] == 2  # the Big Panda (7) won
        assert legal(g) == [BIG]  # leading: no regular Panda, so only a Big Panda


def test_h4_6_a_deal_with_a_short_draw_pile_is_refused(impl: str) -> None:
    # The draw pile can only be short if cards are missing; such a deal is refused up front.
    hands = [list(range(0, 7)), list(range(7, 14))]
    with pytest.raises(state_error(impl)):
        make_raw(impl, hands, [])


def test_h4_6_heavy_drawing_never_exhausts_the_draw_pile(impl: str) -> None:
    # 5 players (35 cards dealt, 28 in the draw pile): seat 1 holds the four Big Pandas and the
    # four Bamboos lie on top of the draw pile, so the first lead alone turns up five cards.
    s1 = [55, 56, 57, 58, c(11, 0), c(11, 1), c(11, 2)]
    others = [[c(1 + k, j) for j in range(5)] + [c(6 + k, 0), c(6 + k, 1)] for k in range(4)]
    hands = [others[3], s1, others[0], others[1], others[2]]
    top = [59, 60, 61, 62, c(10, 4)]
    g = make(impl, hands, top)
    assert len(snap(g)["draw_pile"]) == 28
    play(g, BIG)
    assert snap(g)["pile_plays"][0] == [1, BIG, 10, sorted([55, *BBS, c(10, 4)])]
    assert len(snap(g)["draw_pile"]) == 23
    # Play the whole hand out, always preferring plays that draw; the pile never runs dry.
    while snap(g)["hand_number"] == 0:
        moves = legal(g)
        drawing = [m for m in moves if m >= 11]
        play(g, (drawing or moves)[-1])
        if snap(g)["hand_number"] == 0:
            assert len(snap(g)["draw_pile"]) >= 28 - 16


def test_h4_6_oracle_fails_loudly_on_an_empty_draw_pile() -> None:
    """H-4.6 detection. Only reachable by corrupting the oracle's state: the Rust engine refuses
    every deal that could lead there (see the test above), so its check cannot be driven from
    Python."""
    s1 = [55, c(11, 0), c(10, 0), c(9, 0), c(8, 0), c(7, 0), c(6, 0)]
    s0 = [c(1, k) for k in range(5)] + [c(2, 0), c(2, 1)]
    g = make("oracle", [s0, s1])
    before = snap(g)
    g._draw_pile = []  # corrupt: no card left to turn up
    with pytest.raises(RuntimeError, match=r"H-4\.6"):
        g.apply(BIG)
    assert g._hands[1] == sorted(s1)  # nothing changed, no endless loop
    g._draw_pile = before["draw_pile"]
    assert snap(g) == before


# ==================================================================================================
# H-5 Scoring a hand
# ==================================================================================================


def test_h5_1_piles_one_to_six_score_nothing_pile_seven_does(impl: str) -> None:
    # Seat 1 wins piles 1-6 and scores nothing; pile 7: 4, 9, 6 -> seat 2 scores 19.
    hands, script = last_pile_setup(3, 0, {1: c(4, 0), 2: c(9, 0), 0: c(6, 0)})
    g = make(impl, hands, scores=[3, 4, 0])
    play_six(g, script, 1)
    assert snap(g)["scores"] == [3, 4, 0]
    play(g, A(4), A(9))
    assert legal(g) == [A(6)]  # its only card is its lowest
    play(g, A(6))
    assert last_hand_result(g) == result(0, 0, 2, [0, 0, 19], [3, 4, 19])
    assert snap(g)["scores"] == [3, 4, 19]


@pytest.mark.parametrize(("scoring", "points"), [(None, 16), ("pile_sum", 16), ("own_card", 7)])
def test_h5_2_following_big_panda_scores_its_effective_value(
    impl: str, scoring: str | None, points: int
) -> None:
    # Pile 7: seat 1 leads 3, seat 2 plays 6, seat 0 a Big Panda (7) and wins.
    hands, script = last_pile_setup(3, 0, {1: c(3, 0), 2: c(6, 0), 0: 55})
    rules = {"last_pile_scoring": scoring} if scoring else None
    g = make(impl, hands, rules=rules)
    play_six(g, script, 1)
    play(g, A(3), A(6))
    assert legal(g) == [BIG]
    play(g, BIG)
    assert last_hand_result(g) == result(0, 0, 0, [points, 0, 0], [points, 0, 0])


@pytest.mark.parametrize(("scoring", "points"), [("pile_sum", 21), ("own_card", 10)])
def test_h5_2_led_big_panda_scores_the_turned_up_value(
    impl: str, scoring: str, points: int
) -> None:
    # Pile 7: seat 1 leads a Big Panda: 56 and a Bamboo are skipped, a 4 turned up; seat 2
    # plays 10 and wins; seat 0 plays 7. pile_sum: 4 + 10 + 7 = 21 (not above 21: not Drowsy).
    top = (56, 60, c(4, 3))
    hands, script = last_pile_setup(3, 0, {1: 55, 2: c(10, 4), 0: c(7, 0)}, reserved=top)
    g = make(impl, hands, list(top), rules={"last_pile_scoring": scoring})
    play_six(g, script, 1)
    play(g, BIG)
    assert snap(g)["pile_plays"] == [[1, BIG, 4, sorted([55, 56, 60, c(4, 3)])]]
    play(g, A(10), A(7))
    assert last_hand_result(g) == result(0, 0, 2, [0, 0, points], [0, 0, points])
    assert snap(g)["drowsy"] == [False, False, False]


@pytest.mark.parametrize(("scoring", "points"), [("pile_sum", 19), ("own_card", 8)])
def test_h5_2_bamboo_alone_scores_the_turned_up_value(impl: str, scoring: str, points: int) -> None:
    # Pile 7: seat 1 leads 5, seat 2 (only a Bamboo left) turns up an 8 and wins, seat 0 plays 6.
    top = (c(8, 4),)
    hands, script = last_pile_setup(3, 0, {1: c(5, 0), 2: 59, 0: c(6, 0)}, reserved=top)
    g = make(impl, hands, list(top), rules={"last_pile_scoring": scoring})
    play_six(g, script, 1)
    play(g, A(5))
    assert legal(g) == [BAM]
    play(g, BAM)
    assert snap(g)["pile_plays"][1] == [2, BAM, 8, [c(8, 4), 59]]
    play(g, A(6))
    assert last_hand_result(g) == result(0, 0, 2, [0, 0, points], [0, 0, points])


@pytest.mark.parametrize(
    ("rules", "deltas", "scores"),
    [
        ({}, [0, -9, 21], [12, 2, 21]),
        ({"last_pile_scoring": "own_card"}, [0, -9, 9], [12, 2, 9]),
        ({"poor_panda": False}, [0, 0, 21], [12, 11, 21]),
        ({"poor_panda": False, "last_pile_scoring": "own_card"}, [0, 0, 9], [12, 11, 9]),
    ],
)
def test_h5_3_poor_panda_tie_loses_value(
    impl: str, rules: dict[str, Any], deltas: list[int], scores: list[int]
) -> None:
    # Pile 7: seat 1 plays 9, seat 2 plays 9, seat 0 plays 3. Seat 2 (last 9) wins;
    # seat 1 (the other 9) loses 9 points under the Poor Panda rule.
    hands, script = last_pile_setup(3, 0, {1: c(9, 0), 2: c(9, 1), 0: c(3, 0)})
    g = make(impl, hands, scores=[12, 11, 0], rules=rules or None)
    play_six(g, script, 1)
    play(g, A(9), A(9), A(3))
    assert last_hand_result(g) == result(0, 0, 2, deltas, scores)


def test_h5_3_poor_panda_score_never_goes_below_zero(impl: str) -> None:
    hands, script = last_pile_setup(3, 0, {1: c(9, 0), 2: c(9, 1), 0: c(3, 0)})
    g = make(impl, hands, scores=[12, 4, 0])
    play_six(g, script, 1)
    play(g, A(9), A(9), A(3))
    assert last_hand_result(g) == result(0, 0, 2, [0, -4, 21], [12, 0, 21])


def test_h5_3_poor_panda_every_other_tied_player_loses(impl: str) -> None:
    # 4 players. Pile 7: seat 1 plays 2, seats 2, 3 and 0 each play a 6: seat 0 wins 20,
    # seats 2 and 3 lose 6 each (seat 3 floors at 0).
    hands, script = last_pile_setup(4, 0, {1: c(2, 0), 2: c(6, 0), 3: c(6, 1), 0: c(6, 2)})
    g = make(impl, hands, scores=[0, 0, 10, 3])
    play_six(g, script, 1)
    play(g, A(2), A(6), A(6), A(6))
    assert last_hand_result(g) == result(0, 0, 0, [20, 0, -6, -3], [20, 0, 4, 0])


def test_h5_3_poor_panda_only_for_a_tie_for_highest(impl: str) -> None:
    # Pile 7: 8, 4, 4: the tied 4s are not the highest; nobody loses anything.
    hands, script = last_pile_setup(3, 0, {1: c(8, 0), 2: c(4, 0), 0: c(4, 1)})
    g = make(impl, hands, scores=[5, 0, 5])
    play_six(g, script, 1)
    play(g, A(8), A(4), A(4))
    assert last_hand_result(g) == result(0, 0, 1, [0, 16, 0], [5, 16, 5])


def test_h5_3_poor_panda_uses_effective_values(impl: str) -> None:
    # Pile 7: seat 1 plays 5, seat 2 a Big Panda (6), seat 0 a 6: seat 0 wins 17, seat 2 loses 6.
    hands, script = last_pile_setup(3, 0, {1: c(5, 0), 2: 55, 0: c(6, 0)})
    g = make(impl, hands, scores=[0, 0, 8])
    play_six(g, script, 1)
    play(g, A(5), BIG, A(6))
    assert last_hand_result(g) == result(0, 0, 0, [17, 0, -6], [17, 0, 2])


def test_h5_4_score_changes_first_then_drowsy_check(impl: str) -> None:
    # Scores [20, 10, 15]. Pile 7: seat 1 plays 2, seat 2 plays 7, seat 0 plays 7: seat 0 wins
    # 16 -> 36, seat 2 loses 7 -> 8. Only then H-6.1: seat 0 is Drowsy and drops to the highest
    # other score AFTER the changes, max(10, 8) = 10 (not 15).
    hands, script = last_pile_setup(3, 0, {1: c(2, 0), 2: c(7, 0), 0: c(7, 1)})
    g = make(impl, hands, scores=[20, 10, 15])
    play_six(g, script, 1)
    play(g, A(2), A(7), A(7))
    assert last_hand_result(g) == result(0, 0, 0, [16, 0, -7], [10, 10, 8], new_drowsy=[0])
    s = snap(g)
    assert s["scores"] == [10, 10, 8] and s["drowsy"] == [True, False, False]


# ==================================================================================================
# H-6 End of the game
# ==================================================================================================


def two_player_last_pile(impl: str, seat1_card: int, seat0_card: int, **kw: Any) -> Any:
    """2 players, dealer 0: seat 1 leads piles 1-6 and pile 7 is seat1_card then seat0_card."""
    hands, script = last_pile_setup(2, 0, {1: seat1_card, 0: seat0_card})
    g = make(impl, hands, **kw)
    play_six(g, script, 1)
    play(g, A(val(seat1_card)), A(val(seat0_card)))
    return g


def test_h6_1_exactly_the_threshold_is_not_drowsy(impl: str) -> None:
    g = two_player_last_pile(impl, c(5, 0), c(8, 0), scores=[8, 0])  # seat 0: 8 + 13 = 21
    assert last_hand_result(g) == result(0, 0, 0, [13, 0], [21, 0])
    s = snap(g)
    assert s["drowsy"] == [False, False] and not g.is_over and s["hand_number"] == 1


def test_h6_1_above_21_first_time_becomes_drowsy(impl: str) -> None:
    g = two_player_last_pile(impl, c(5, 0), c(8, 0), scores=[9, 7])  # seat 0: 22
    assert last_hand_result(g) == result(0, 0, 0, [13, 0], [7, 7], new_drowsy=[0])
    s = snap(g)
    assert s["drowsy"] == [True, False] and s["pooped"] == [False, False]
    assert not g.is_over and s["dealer"] == 1


def test_h6_1_drowsy_score_is_zero_when_nobody_else_scored(impl: str) -> None:
    g = two_player_last_pile(impl, c(5, 0), c(8, 0), scores=[9, 0])
    assert last_hand_result(g) == result(0, 0, 0, [13, 0], [0, 0], new_drowsy=[0])


def test_h6_1_drowsy_score_is_highest_among_others_still_in_the_game(impl: str) -> None:
    # 4 players, seat 3 Pooped on 40 (ignored). Order 1, 2, 0; pile 7: 5, 6, 9 -> seat 0 +20.
    pooped = [False, False, False, True]
    hands, script = last_pile_setup(4, 0, {1: c(5, 0), 2: c(6, 0), 0: c(9, 0)}, pooped=pooped)
    g = make(impl, hands, scores=[15, 6, 11, 40], drowsy=pooped, pooped=pooped)
    play_six(g, script, 1)
    play(g, A(5), A(6), A(9))
    assert last_hand_result(g) == result(0, 0, 0, [20, 0, 0, 0], [11, 6, 11, 40], new_drowsy=[0])
    assert snap(g)["drowsy"] == [True, False, False, True]


def test_h6_2_drowsy_above_21_again_is_pooped_and_leaves(impl: str) -> None:
    # 3 players; seat 2 Drowsy on 15. Pile 7: 3, 9, 5 -> seat 2 +17 = 32: Pooped, keeps 32.
    hands, script = last_pile_setup(3, 0, {1: c(3, 0), 2: c(9, 0), 0: c(5, 0)})
    g = make(impl, hands, scores=[4, 3, 15], drowsy=[False, False, True], rng_state=2**64 - 1)
    play_six(g, script, 1)
    play(g, A(3), A(9), A(5))
    assert last_hand_result(g) == result(0, 0, 2, [0, 0, 17], [4, 3, 32], new_pooped=[2])
    s = snap(g)
    assert s["pooped"] == [False, False, True] and s["drowsy"] == [False, False, True]
    assert s["scores"] == [4, 3, 32]
    assert not g.is_over and g.winner is None
    # Next hand: dealer 1; the Pooped seat gets no cards and the lead skips it (seat 0 leads).
    assert (s["dealer"], s["leader"], g.current_player) == (1, 0, 0)
    exp_hands, exp_draw, _ = ref_deal(3, 2**64 - 1, 1, [False, False, True])
    assert (s["hands"], s["draw_pile"]) == (exp_hands, exp_draw)
    assert s["hands"][2] == []
    # Turns skip it too: each pile has two plays, seat 0 then seat 1 (or the winner first).
    for _ in range(7 * 2):
        assert g.current_player in (0, 1)
        play(g, legal(g)[0])
    assert snap(g)["hand_number"] == 2 or g.is_over


def test_h6_3_last_player_not_pooped_wins(impl: str) -> None:
    # 2 players; seat 0 Drowsy on 20 wins pile 7 (5, 8): 33 -> Pooped; seat 1 wins the game.
    g = two_player_last_pile(impl, c(5, 0), c(8, 0), scores=[20, 5], drowsy=[True, False])
    assert last_hand_result(g) == result(0, 0, 0, [13, 0], [33, 5], new_pooped=[0])
    assert g.is_over and g.winner == 1
    assert g.current_player is None and legal(g) == []
    s = snap(g)
    assert s["is_over"] and s["winner"] == 1 and s["pooped"] == [True, False]
    assert (s["dealer"], s["hand_number"]) == (0, 0)
    with pytest.raises(illegal_error(impl)):
        g.apply(A(1))


def test_h6_3_game_over_with_an_earlier_pooped_player(impl: str) -> None:
    # 3 players, seat 2 Pooped. Seat 1 is Drowsy on 12, leads pile 7 with 9 over seat 0's 4:
    # 12 + 13 = 25 -> Pooped; seat 0 is the last awake.
    pooped = [False, False, True]
    hands, script = last_pile_setup(3, 0, {1: c(9, 0), 0: c(4, 0)}, pooped=pooped)
    g = make(impl, hands, scores=[5, 12, 30], drowsy=[False, True, True], pooped=pooped)
    play_six(g, script, 1)
    play(g, A(9), A(4))
    assert last_hand_result(g) == result(0, 0, 1, [0, 13, 0], [5, 25, 30], new_pooped=[1])
    assert g.is_over and g.winner == 0


@pytest.mark.parametrize(
    ("cards", "scores", "drowsy", "expected", "flags", "over"),
    [
        # 3 + 7 = 10: not above the threshold 10.
        ((c(3, 0), c(7, 0)), [0, 2], [False, False], [10, 2], [False, False], False),
        # 4 + 7 = 11 > 10: Drowsy, down to seat 1's 2.
        ((c(4, 0), c(7, 0)), [0, 2], [False, False], [2, 2], [True, False], False),
        # Drowsy on 5: 5 + 11 = 16 > 10: Pooped; seat 1 wins.
        ((c(4, 0), c(7, 0)), [5, 2], [True, False], [16, 2], [True, False], True),
    ],
)
def test_h6_4_bust_threshold_replaces_21(
    impl: str,
    cards: tuple[int, int],
    scores: list[int],
    drowsy: list[bool],
    expected: list[int],
    flags: list[bool],
    over: bool,
) -> None:
    g = two_player_last_pile(
        impl, cards[0], cards[1], scores=scores, drowsy=drowsy, rules={"bust_threshold": 10}
    )
    s = snap(g)
    assert s["scores"] == expected and s["drowsy"] == flags
    assert g.is_over is over and s["pooped"] == [over, False]
    assert g.winner == (1 if over else None)


def test_h6_4_deal_scores_must_respect_the_threshold(impl: str) -> None:
    hands = [list(range(0, 7)), list(range(7, 14)), []]
    draw = list(range(14, 63))
    for scores, drowsy, pooped, rules in (
        ([22, 0, 0], [False] * 3, [False] * 3, None),  # still in the game above 21
        ([11, 0, 0], [False] * 3, [False] * 3, {"bust_threshold": 10}),
        ([0, 0, 30], [False] * 3, [False, False, True], None),  # Pooped but never Drowsy
        ([0, 0, 21], [False, False, True], [False, False, True], None),  # Pooped on 21
    ):
        h = hands if pooped[2] else [hands[0], hands[1], list(range(14, 21))]
        d = draw if pooped[2] else list(range(21, 63))
        with pytest.raises(state_error(impl)):
            make_raw(impl, h, d, scores=scores, drowsy=drowsy, pooped=pooped, rules=rules)
    # Accepted: 21 with the default; 10 with threshold 10; Pooped, Drowsy, on 11 > 10.
    make_raw(
        impl, [hands[0], hands[1], list(range(14, 21))], list(range(21, 63)), scores=[21, 0, 0]
    )
    make_raw(
        impl,
        hands,
        draw,
        scores=[10, 0, 11],
        drowsy=[False, False, True],
        pooped=[False, False, True],
        rules={"bust_threshold": 10},
    )
    for bad in (0, -1):
        with pytest.raises(rules_error(impl)):
            new(impl, 2, 1, {"bust_threshold": bad})


def test_h6_2_pooped_seats_hold_no_cards_never_deal_and_two_must_remain(impl: str) -> None:
    seven = [list(range(7 * k, 7 * k + 7)) for k in range(3)]
    with pytest.raises(state_error(impl)):  # a Pooped seat with cards
        make_raw(
            impl,
            seven,
            list(range(21, 63)),
            scores=[0, 0, 30],
            drowsy=[False, False, True],
            pooped=[False, False, True],
        )
    with pytest.raises(state_error(impl)):  # Pooped dealer
        make_raw(
            impl,
            [seven[0], seven[1], []],
            list(range(14, 63)),
            dealer=2,
            scores=[0, 0, 30],
            drowsy=[False, False, True],
            pooped=[False, False, True],
        )
    with pytest.raises(state_error(impl)):  # only one seat left in the game
        make_raw(
            impl,
            [seven[0], []],
            list(range(7, 63)),
            scores=[0, 30],
            drowsy=[False, True],
            pooped=[False, True],
        )


# ==================================================================================================
# H-7 Variants
# ==================================================================================================

DEFAULTS = {
    "last_pile_scoring": "pile_sum",
    "poor_panda": True,
    "lowest_only_when_cannot_follow": False,
    "bust_threshold": 21,
    "special_cards": True,
    "first_dealer": 0,
}


def test_h7_defaults_are_the_bold_values(impl: str) -> None:
    if impl == "rust":
        rules = HeadRules()
        got = {name: getattr(rules, name) for name in DEFAULTS}
        assert rules.to_dict() == DEFAULTS
    else:
        rules_o = OracleRules()
        got = {name: getattr(rules_o, name) for name in DEFAULTS}
    assert got == DEFAULTS


def test_h7_defaults_in_play(impl: str) -> None:
    # No rules given: pile_sum + Poor Panda on (9, 9, 3 tie) + bust above 21.
    hands, script = last_pile_setup(3, 0, {1: c(9, 0), 2: c(9, 1), 0: c(3, 0)})
    g = make(impl, hands, scores=[12, 11, 1])
    play_six(g, script, 1)
    play(g, A(9), A(9), A(3))
    # seat 2: 1 + 21 = 22 > 21: Drowsy, reduced to max(12, 11 - 9 = 2) = 12.
    assert last_hand_result(g) == result(0, 0, 2, [0, -9, 21], [12, 2, 12], new_drowsy=[2])


def test_h7_unknown_variant_values_are_refused(impl: str) -> None:
    for rules in ({"last_pile_scoring": "sum"}, {"last_pile_scoring": "own"}):
        with pytest.raises(rules_error(impl)):
            new(impl, 3, 1, rules)


def test_h7_special_cards_off_plays_with_55_regular_cards(impl: str) -> None:
    rules = {"special_cards": False}
    hands = [list(range(0, 7)), list(range(7, 14))]
    g = make_raw(impl, hands, list(range(14, 55)), rules=rules)
    assert len(snap(g)["draw_pile"]) == 41
    with pytest.raises(state_error(impl)):
        make_raw(impl, hands, list(range(14, 63)), rules=rules)  # special cards not in the game
    g = new(impl, 4, 8, rules)
    s = snap(g)
    assert sorted([x for h in s["hands"] for x in h] + s["draw_pile"]) == list(range(55))
    moves = 0
    while not g.is_over and moves < 400:
        ids = legal(g)
        assert all(a <= 10 for a in ids)  # no Bamboo and no Big Panda moves ever
        play(g, ids[moves % len(ids)])
        moves += 1


# ==================================================================================================
# Part R — randomness
# ==================================================================================================

R1_VECTORS = {
    0: [16294208416658607535, 7960286522194355700, 487617019471545679],
    42: [13679457532755275413, 2949826092126892291, 5139283748462763858],
}


@pytest.mark.parametrize("seed", [0, 42])
def test_r1_splitmix64_vectors(seed: int) -> None:
    gen = oracle_rng.SplitMix64(seed)
    assert [gen.next() for _ in range(3)] == R1_VECTORS[seed]
    assert gen.state == (seed + 3 * GAMMA) % 2**64
    state, out = seed, []
    for _ in range(3):
        state, x = sm_next(state)
        out.append(x)
    assert out == R1_VECTORS[seed]  # the inline reference used by the deal tests


@pytest.mark.parametrize("seed", [0, 1, 42, 2**63, 2**64 - 1])
def test_r1_the_deal_uses_splitmix64(impl: str, seed: int) -> None:
    s = snap(new(impl, 3, seed))
    exp_hands, exp_draw, exp_state = ref_deal(3, seed, 0)
    assert (s["hands"], s["draw_pile"]) == (exp_hands, exp_draw)
    # 63 cards shuffle with 62 outputs; the state advanced by the golden gamma each time.
    assert s["rng_state"] == exp_state == (seed + 62 * GAMMA) % 2**64


@pytest.mark.parametrize("seed", [-1, 2**64, 1.5, "3", None])
def test_r2_seeds_outside_u64_are_refused(impl: str, seed: Any) -> None:
    with pytest.raises(rules_error(impl)):
        new(impl, 3, seed)


def test_r2_one_generator_drives_every_deal_in_order(impl: str) -> None:
    seed = 20240601
    g = new(impl, 4, seed)
    exp_hands, exp_draw, state = ref_deal(4, seed, 0)
    assert (snap(g)["hands"], snap(g)["draw_pile"]) == (exp_hands, exp_draw)
    while snap(g)["hand_number"] == 0:  # the moves themselves draw nothing from the generator
        assert snap(g)["rng_state"] == state
        play(g, legal(g)[0])
    s = snap(g)
    exp_hands, exp_draw, state = ref_deal(4, state, 1)
    assert (s["hands"], s["draw_pile"], s["rng_state"]) == (exp_hands, exp_draw, state)
    # The same seed gives the same game.
    g2 = new(impl, 4, seed)
    while snap(g2)["hand_number"] == 0:
        play(g2, legal(g2)[0])
    assert snap(g2) == s


def test_r2_rng_state_of_a_deal_drives_the_next_hand(impl: str) -> None:
    hands, script = last_pile_setup(2, 0, {1: c(5, 0), 0: c(6, 0)})
    for state in (0, 99, 2**64 - 1):
        g = make(impl, hands, rng_state=state)
        assert snap(g)["rng_state"] == state
        play_six(g, script, 1)
        play(g, A(5), A(6))
        exp_hands, exp_draw, exp_state = ref_deal(2, state, 1)
        s = snap(g)
        assert (s["hands"], s["draw_pile"], s["rng_state"]) == (exp_hands, exp_draw, exp_state)


def test_r3_shuffle_vector() -> None:
    items = list(range(10))
    oracle_rng.shuffle(items, oracle_rng.SplitMix64(7))
    assert items == [8, 1, 5, 9, 0, 4, 3, 2, 6, 7]
    assert ref_shuffle(range(10), 7)[0] == [8, 1, 5, 9, 0, 4, 3, 2, 6, 7]


@pytest.mark.parametrize("seed", [7, 12345])
def test_r3_the_deal_shuffles_the_deck_in_id_order(impl: str, seed: int) -> None:
    # 2 players, dealer 0: seat 1 receives shuffled[0], shuffled[2], ...; seat 0 shuffled[1], ...
    deck, _ = ref_shuffle(range(63), seed)
    s = snap(new(impl, 2, seed))
    assert s["hands"][1] == sorted(deck[0:14:2])
    assert s["hands"][0] == sorted(deck[1:14:2])


@pytest.mark.parametrize("players", [2, 5])
def test_r4_dealt_from_the_front_draw_pile_top_is_first_undealt(impl: str, players: int) -> None:
    seed = 555
    deck, _ = ref_shuffle(range(63), seed)
    g = new(impl, players, seed, {"first_dealer": players - 1})  # seat 0 receives first
    s = snap(g)
    for seat in range(players):
        assert s["hands"][seat] == sorted(deck[seat : 7 * players : players])
    assert s["draw_pile"] == deck[7 * players :]
