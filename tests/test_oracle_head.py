"""Tests of the pure-Python Panda Head oracle itself (docs/rules/head.md, Part R).

The scenarios are computed by hand from the rules text; test names carry the rule IDs.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import pytest

from panda_core.oracle.head import HeadRules, OracleHeadGame
from panda_core.oracle.rng import MASK64, SplitMix64, shuffle

GOLDEN_GAMMA = 0x9E3779B97F4A7C15


# --- helpers --------------------------------------------------------------------------------------


def make_game(
    hands: list[list[int]],
    *,
    top: Sequence[int] = (),
    dealer: int,
    rules: HeadRules | None = None,
    scores: list[int] | None = None,
    drowsy: list[bool] | None = None,
    pooped: list[bool] | None = None,
    rng_state: int = 123,
    hand_number: int = 0,
) -> OracleHeadGame:
    """from_deal with the draw pile = ``top`` (top first) followed by the unused cards ascending."""
    rules = rules or HeadRules()
    players = len(hands)
    used = {card for hand in hands for card in hand} | set(top)
    draw_pile = list(top) + [card for card in rules.deck() if card not in used]
    return OracleHeadGame.from_deal(
        players=players,
        hands=hands,
        draw_pile=draw_pile,
        dealer=dealer,
        scores=scores if scores is not None else [0] * players,
        drowsy=drowsy if drowsy is not None else [False] * players,
        pooped=pooped if pooped is not None else [False] * players,
        rng_state=rng_state,
        rules=rules,
        hand_number=hand_number,
    )


def play_script(game: OracleHeadGame, script: dict[int, list[int]]) -> None:
    """Apply each seat's scripted actions in turn order until every script is used up."""
    queues = {seat: list(actions) for seat, actions in script.items()}
    while any(queues.values()):
        seat = game.current_player
        assert seat is not None
        game.apply(queues[seat].pop(0))


def expected_deal(
    seed_state: int, deck_size: int, order: list[int], players: int
) -> tuple[list[list[int]], list[int]]:
    """R-3 shuffle of the deck in id order, dealt one at a time from the front (R-4)."""
    deck = list(range(deck_size))
    shuffle(deck, SplitMix64(seed_state))
    hands: list[list[int]] = [[] for _ in range(players)]
    for k in range(7 * len(order)):
        hands[order[k % len(order)]].append(deck[k])
    return [sorted(hand) for hand in hands], deck[7 * len(order) :]


def all_cards(snap: dict[str, Any]) -> list[int]:
    cards = [card for hand in snap["hands"] for card in hand]
    cards += snap["draw_pile"] + snap["discard"]
    cards += [card for play in snap["pile_plays"] for card in play[3]]
    return sorted(cards)


# A three-player hand (dealer 2, so seat 0 leads) in which seat 0 wins piles 1-6 with high cards
# and pile 7 is: seat 0 leads a 5, seat 1 plays a 6, seat 2 plays a 6 (tie, seat 2 last).
SCORING_HANDS = [
    [50, 51, 52, 53, 54, 45, 20],  # 11 x5, 10, 5
    [0, 1, 2, 3, 4, 5, 25],  # 1 x5, 2, 6
    [6, 7, 8, 9, 10, 11, 26],  # 2 x4, 3 x2, 6
]
SCORING_SCRIPT = {
    0: [10, 10, 10, 10, 10, 9, 4],
    1: [0, 0, 0, 0, 0, 1, 5],
    2: [1, 1, 1, 1, 2, 2, 5],
}


# --- Part R ---------------------------------------------------------------------------------------


def test_r1_splitmix_vectors() -> None:
    rng = SplitMix64(0)
    assert [rng.next() for _ in range(3)] == [
        16294208416658607535,
        7960286522194355700,
        487617019471545679,
    ]
    rng = SplitMix64(42)
    assert [rng.next() for _ in range(3)] == [
        13679457532755275413,
        2949826092126892291,
        5139283748462763858,
    ]
    # the state advances by the golden gamma per output, modulo 2^64.
    assert rng.state == (42 + 3 * GOLDEN_GAMMA) & MASK64


def test_r2_splitmix_refuses_bad_state() -> None:
    for bad in (-1, 2**64):
        with pytest.raises(ValueError):
            SplitMix64(bad)
    assert SplitMix64(2**64 - 1).next() >= 0


def test_r3_shuffle_vector() -> None:
    items = list(range(10))
    shuffle(items, SplitMix64(7))
    assert items == [8, 1, 5, 9, 0, 4, 3, 2, 6, 7]


# --- H-2 setup ------------------------------------------------------------------------------------


def test_h2_1_player_count_and_r2_seed_refused() -> None:
    for players in (0, 1, 6):
        with pytest.raises(ValueError):
            OracleHeadGame.new(players, 1, HeadRules())
    for seed in (-1, 2**64):
        with pytest.raises(ValueError):
            OracleHeadGame.new(3, seed, HeadRules())
    with pytest.raises(ValueError):
        OracleHeadGame.new(3, 1, HeadRules(first_dealer=3))
    with pytest.raises(ValueError):
        OracleHeadGame.new(3, 1, HeadRules(bust_threshold=0))
    assert OracleHeadGame.new(5, 2**64 - 1, HeadRules()).current_player == 1


def test_h2_3_r3_r4_first_deal_from_seed() -> None:
    game = OracleHeadGame.new(4, 2024, HeadRules(first_dealer=2))
    snap = game.snapshot()
    # H-2.3: dealing starts left of the dealer (seat 3); R-4 deals from the front.
    hands, draw_pile = expected_deal(2024, 63, [3, 0, 1, 2], 4)
    assert snap["hands"] == hands
    assert snap["draw_pile"] == draw_pile
    assert len(draw_pile) == 63 - 28
    # shuffling 63 cards draws 62 numbers from the generator.
    assert snap["rng_state"] == (2024 + 62 * GOLDEN_GAMMA) & MASK64
    # H-2.4: the player left of the dealer leads the first pile.
    assert (snap["dealer"], snap["leader"], snap["current_player"]) == (2, 3, 3)
    assert snap["hand_number"] == 0 and snap["pile_number"] == 0
    assert snap["discard"] == [] and snap["pile_plays"] == []


def test_h2_3_deck_without_special_cards() -> None:
    game = OracleHeadGame.new(2, 5, HeadRules(special_cards=False))
    snap = game.snapshot()
    hands, draw_pile = expected_deal(5, 55, [1, 0], 2)
    assert snap["hands"] == hands and snap["draw_pile"] == draw_pile
    assert all_cards(snap) == list(range(55))
    assert snap["rng_state"] == (5 + 54 * GOLDEN_GAMMA) & MASK64


def test_h2_4_leader_and_turn_order_skip_pooped_seat() -> None:
    hands = [[25, 0, 1, 2, 3, 4, 5], [], [26, 6, 7, 8, 9, 10, 11]]
    game = make_game(
        hands, dealer=0, scores=[0, 30, 0], drowsy=[False, True, False], pooped=[False, True, False]
    )
    # H-2.4: the next seat still in the game left of dealer 0 is seat 2 (seat 1 is Pooped).
    assert game.current_player == 2
    game.apply(5)  # seat 2 leads a 6
    assert game.current_player == 0  # H-6.2: seat 1 gets no turn
    game.apply(5)  # seat 0 plays a 6: tie, played last, wins
    snap = game.snapshot()
    assert snap["pile_number"] == 1 and snap["leader"] == 0 and snap["current_player"] == 0
    assert snap["discard"] == [25, 26]


def test_h2_from_deal_refuses_inconsistent_positions() -> None:
    good = [[0, 1, 2, 3, 4, 5, 6], [7, 8, 9, 10, 11, 12, 13]]
    assert make_game(good, dealer=0).current_player == 1
    with pytest.raises(ValueError):  # a card twice
        make_game([[0, 1, 2, 3, 4, 5, 6], [6, 8, 9, 10, 11, 12, 13]], dealer=0)
    with pytest.raises(ValueError):  # wrong hand size
        make_game([[0, 1, 2, 3, 4, 5], [7, 8, 9, 10, 11, 12, 13]], dealer=0)
    with pytest.raises(ValueError):  # a special card when special_cards is off
        make_game([[0, 1, 2, 3, 4, 5, 55], good[1]], dealer=0, rules=HeadRules(special_cards=False))
    with pytest.raises(ValueError):  # a Pooped seat holding cards
        make_game(good, dealer=0, scores=[0, 30], drowsy=[False, True], pooped=[False, True])
    with pytest.raises(ValueError):  # a Pooped dealer
        make_game(
            [good[0], [], good[1]],
            dealer=1,
            scores=[0, 30, 0],
            drowsy=[False, True, False],
            pooped=[False, True, False],
        )
    with pytest.raises(ValueError):  # negative score
        make_game(good, dealer=0, scores=[-1, 0])


# --- H-3 playing a pile ---------------------------------------------------------------------------


def test_h3_1_lead_options_with_bamboo() -> None:
    game = make_game([[50, 59, 0, 5, 10, 15, 20], [55, 1, 6, 11, 16, 21, 26]], dealer=1, top=[57])
    # H-3.1: any regular Panda, alone (ids 0..10) or with a Bamboo (ids 11..21); no Bamboo alone.
    assert game.legal_actions() == [0, 1, 2, 3, 4, 10, 11, 12, 13, 14, 15, 21]


def test_h3_2_option_a_and_free_option_b() -> None:
    hands = [[25, 26, 27, 28, 29, 30, 31], [0, 10, 20, 21, 40, 59, 55]]  # seat 1: 1,3,5,5,9,Ba,BP
    game = make_game(hands, dealer=1)
    game.apply(5)  # seat 0 leads a 6
    # A: 9 (8), 5+Ba=7 (15), 9+Ba=11 (19), Big Panda (22); B: lowest 1 (0) and 1+Ba (11).
    # 3+Ba=5 < 6 is neither A nor B.
    assert game.legal_actions() == [0, 8, 11, 15, 19, 22]


def test_h3_2_variant_lowest_only_when_cannot_follow() -> None:
    rules = HeadRules(lowest_only_when_cannot_follow=True)
    hands = [[25, 26, 27, 28, 29, 30, 31], [0, 10, 20, 21, 40, 59, 55]]
    game = make_game(hands, dealer=1, rules=rules)
    game.apply(5)  # seat 0 leads a 6
    # Option A plays exist, so B (1 alone, 1 + Bamboo) is not offered.
    assert game.legal_actions() == [8, 15, 19, 22]

    hands = [[50, 60, 25, 26, 27, 28, 29], [0, 10, 20, 21, 40, 59, 1]]
    game = make_game(hands, dealer=1, rules=rules)
    game.apply(21)  # seat 0 leads 11 + Bamboo = 13
    # No option-A play (9 + 2 = 11 < 13, no Big Panda): B, with or without the Bamboo.
    assert game.legal_actions() == [0, 11]

    hands = [[0, 1, 2, 3, 4, 25, 26], [5, 10, 15, 59, 35, 40, 45]]  # seat 1: 2,3,4,Ba,8,9,10
    game = make_game(hands, dealer=1, rules=rules)
    game.apply(0)  # seat 0 leads a 1
    # Every play is A; the lowest (2) counts as A and stays legal.
    assert game.legal_actions() == [1, 2, 3, 7, 8, 9, 12, 13, 14, 18, 19, 20]


def test_h3_3_tie_goes_to_last_player_and_h3_4_cards_set_aside() -> None:
    hands = [[25, 0, 1, 2, 3, 4, 5], [26, 6, 7, 8, 9, 10, 11], [27, 12, 13, 14, 15, 16, 17]]
    game = make_game(hands, dealer=2)
    assert game.current_player == 0
    game.apply(5)
    game.apply(5)
    assert game.snapshot()["pile_plays"] == [[0, 5, 6, [25]], [1, 5, 6, [26]]]
    game.apply(5)
    snap = game.snapshot()
    assert snap["pile_number"] == 1
    assert snap["leader"] == 2 and snap["current_player"] == 2
    assert snap["discard"] == [25, 26, 27] and snap["pile_plays"] == []
    assert [len(hand) for hand in snap["hands"]] == [6, 6, 6]


# --- H-4 special cards ----------------------------------------------------------------------------


def test_h4_1_big_panda_led_turns_up_and_skips_specials() -> None:
    hands = [[55, 0, 5, 10, 15, 20, 25], [1, 6, 11, 16, 21, 26, 30]]
    game = make_game(hands, dealer=1, top=[59, 56, 35])
    assert game.legal_actions() == [0, 1, 2, 3, 4, 5, 22]
    game.apply(22)
    snap = game.snapshot()
    # The Bamboo and Big Panda turned up are skipped; the 8 (id 35) is the leader's play.
    assert snap["pile_plays"] == [[0, 22, 8, [35, 55, 56, 59]]]
    assert 35 not in snap["draw_pile"] and snap["draw_pile"][0] == 2
    assert snap["hands"][0] == [0, 5, 10, 15, 20, 25]
    assert game.legal_actions() == [0]  # seat 1 has nothing >= 8: option B only
    game.apply(0)
    snap = game.snapshot()
    assert snap["leader"] == 0 and snap["discard"] == [1, 35, 55, 56, 59]


def test_h4_2_big_panda_following_and_h4_3_bamboo_replacement() -> None:
    hands = [[50, 59, 0, 5, 10, 15, 20], [55, 1, 6, 11, 16, 21, 26]]
    game = make_game(hands, dealer=1, top=[57])
    game.apply(21)  # H-4.3: 11 + Bamboo = 13, then the replacement (Big Panda 57) is drawn
    snap = game.snapshot()
    assert snap["pile_plays"] == [[0, 21, 13, [50, 59]]]
    assert snap["hands"][0] == [0, 5, 10, 15, 20, 57]
    assert 57 not in snap["draw_pile"]
    # H-4.2: the Big Panda is always option A; B is the lowest (1).
    assert game.legal_actions() == [0, 22]
    game.apply(22)
    snap = game.snapshot()
    assert snap["discard"] == [50, 55, 59]
    assert snap["leader"] == 1 and snap["current_player"] == 1  # 14 beats 13
    assert all_cards(snap) == list(range(63))


def test_h4_2_big_panda_value_fixed_on_top_of_big_panda() -> None:
    hands = [[50, 0, 1, 2, 3, 4, 5], [55, 6, 7, 8, 9, 10, 11], [56, 12, 13, 14, 15, 16, 17]]
    game = make_game(hands, dealer=2)
    game.apply(10)  # 11
    game.apply(22)  # 12
    game.apply(22)  # 13
    assert game.snapshot()["current_player"] == 2
    assert game.snapshot()["discard"] == [50, 55, 56]
    assert game.snapshot()["pile_number"] == 1


def test_h4_4_bamboo_alone_only_when_hand_is_all_bamboo_lead() -> None:
    hands = [[59, 60, 61, 62, 50, 51, 52], [0, 1, 2, 3, 4, 5, 6]]
    game = make_game(hands, dealer=1, top=[55, 40])
    assert game.legal_actions() == [10, 21]  # no Bamboo alone while a Panda is held
    play_script(game, {0: [10, 10, 10], 1: [0, 0, 0]})
    assert game.current_player == 0
    assert game.legal_actions() == [23]
    game.apply(23)
    snap = game.snapshot()
    assert snap["pile_plays"] == [[0, 23, 9, [40, 55, 59]]]
    assert snap["hands"][0] == [60, 61, 62]  # no replacement is drawn


def test_h4_4_bamboo_alone_forced_when_following() -> None:
    hands = [[50, 51, 52, 53, 54, 45, 46], [59, 60, 61, 62, 0, 1, 2]]
    game = make_game(hands, dealer=1, top=[3])
    play_script(game, {0: [10, 10, 10], 1: [0, 0, 0]})
    game.apply(10)
    # Only Bamboo left: the Bamboo alone is the forced play, even though a 1 is turned up.
    assert game.legal_actions() == [23]
    game.apply(23)
    snap = game.snapshot()
    # Piles 1-4: 11s against 1s, then 11 against the Bamboo alone and the 1 (id 3) turned up.
    assert snap["discard"] == [0, 1, 2, 3, 50, 51, 52, 53, 59]
    assert snap["leader"] == 0


def test_h4_hand_of_only_big_pandas_and_bamboo() -> None:
    specials = [55, 56, 57, 58, 59, 60, 61]
    game = make_game([specials, [0, 1, 2, 3, 4, 5, 6]], dealer=1)
    assert game.legal_actions() == [22]  # lead: no Bamboo with a Big Panda, no Bamboo alone
    game = make_game([[0, 1, 2, 3, 4, 5, 6], specials], dealer=1)
    game.apply(0)
    assert game.legal_actions() == [22]  # follow: H-4.5 no option B, Big Panda is option A


def test_h4_6_empty_draw_pile_fails_loudly() -> None:
    hands = [[55, 0, 5, 10, 15, 20, 25], [1, 6, 11, 16, 21, 26, 30]]
    game = make_game(hands, dealer=1)
    game._draw_pile.clear()  # an impossible state, only to exercise the H-4.6 check
    before = game.snapshot()
    with pytest.raises(RuntimeError):
        game.apply(22)
    assert game.snapshot() == before


def test_illegal_action_refused_and_state_unchanged() -> None:
    game = OracleHeadGame.new(3, 99, HeadRules())
    before = game.snapshot()
    illegal = [a for a in range(-1, 25) if a not in game.legal_actions()]
    for action in illegal:
        with pytest.raises(ValueError):
            game.apply(action)
    assert game.snapshot() == before


# --- H-5 scoring and H-6 end of game --------------------------------------------------------------


def test_h5_2_pile_sum_and_h5_3_poor_panda_floor_zero() -> None:
    game = make_game(SCORING_HANDS, dealer=2, scores=[0, 4, 3], rng_state=123)
    play_script(game, SCORING_SCRIPT)
    snap = game.snapshot()
    # Pile 7: 5 + 6 + 6 = 17 to seat 2 (last of the tied 6s); seat 1 loses 6, floored at 0.
    assert snap["hand_results"] == [
        {
            "hand": 0,
            "dealer": 2,
            "last_pile_winner": 2,
            "deltas": [0, -4, 17],
            "scores": [0, 0, 20],
            "new_drowsy": [],
            "new_pooped": [],
        }
    ]
    assert snap["scores"] == [0, 0, 20]
    # H-2.2 / H-2.3: the next hand is dealt at once by seat 0, starting with seat 1.
    hands, draw_pile = expected_deal(123, 63, [1, 2, 0], 3)
    assert snap["hand_number"] == 1 and snap["dealer"] == 0 and snap["leader"] == 1
    assert snap["hands"] == hands and snap["draw_pile"] == draw_pile
    assert snap["discard"] == [] and snap["pile_number"] == 0
    assert snap["rng_state"] == (123 + 62 * GOLDEN_GAMMA) & MASK64


def test_h5_2_own_card_without_poor_panda() -> None:
    rules = HeadRules(last_pile_scoring="own_card", poor_panda=False)
    game = make_game(SCORING_HANDS, dealer=2, scores=[0, 4, 3], rules=rules)
    play_script(game, SCORING_SCRIPT)
    result = game.snapshot()["hand_results"][0]
    assert result["deltas"] == [0, 0, 6]
    assert result["scores"] == [0, 4, 9]


def test_h6_1_drowsy_reduced_to_highest_other_score() -> None:
    game = make_game(SCORING_HANDS, dealer=2, scores=[10, 4, 8])
    play_script(game, SCORING_SCRIPT)
    snap = game.snapshot()
    result = snap["hand_results"][0]
    # Seat 2 reaches 25 > 21: Drowsy, reduced to max(10, 0) (seat 1 already lost 6 this hand).
    assert result["deltas"] == [0, -4, 17]
    assert result["scores"] == [10, 0, 10]
    assert result["new_drowsy"] == [2] and result["new_pooped"] == []
    assert snap["drowsy"] == [False, False, True] and not snap["is_over"]


def test_h6_4_threshold_and_h6_1_zero_when_nobody_above_zero() -> None:
    game = make_game(SCORING_HANDS, dealer=2, scores=[0, 4, 3], rules=HeadRules(bust_threshold=19))
    play_script(game, SCORING_SCRIPT)
    result = game.snapshot()["hand_results"][0]
    assert result["scores"] == [0, 0, 0]  # 20 > 19: Drowsy, the others are at 0
    assert result["new_drowsy"] == [2]


def test_h6_2_pooped_dealer_and_h2_2_deal_passes_from_old_dealer() -> None:
    game = make_game(SCORING_HANDS, dealer=2, scores=[10, 4, 8], drowsy=[False, False, True])
    play_script(game, SCORING_SCRIPT)
    snap = game.snapshot()
    result = snap["hand_results"][0]
    assert result["scores"] == [10, 0, 25]  # a Pooped Panda keeps the score reached
    assert result["new_pooped"] == [2] and result["new_drowsy"] == []
    assert snap["pooped"] == [False, False, True]
    # H-2.2: counting from the old (just Pooped) dealer's seat 2, the deal passes to seat 0.
    assert snap["dealer"] == 0 and snap["leader"] == 1 and snap["current_player"] == 1
    hands, draw_pile = expected_deal(123, 63, [1, 0], 3)
    assert snap["hands"] == hands and snap["hands"][2] == []
    assert snap["draw_pile"] == draw_pile and len(draw_pile) == 49


def test_h6_3_game_over_when_one_player_left() -> None:
    hands = [[50, 51, 52, 53, 54, 45, 20], [0, 1, 2, 3, 4, 5, 25]]
    game = make_game(hands, dealer=1, scores=[3, 15], drowsy=[False, True], hand_number=4)
    play_script(game, {0: [10, 10, 10, 10, 10, 9, 4], 1: [0, 0, 0, 0, 0, 1, 5]})
    snap = game.snapshot()
    # Pile 7: 5 then 6: seat 1 scores 11 -> 26 > 21 while Drowsy: Pooped; seat 0 wins.
    assert snap["hand_results"][0]["deltas"] == [0, 11]
    assert snap["hand_results"][0]["new_pooped"] == [1]
    assert snap["is_over"] and snap["winner"] == 0 and snap["current_player"] is None
    assert snap["scores"] == [3, 26]
    assert snap["hand_number"] == 4 and snap["dealer"] == 1
    assert snap["pile_number"] == 6 and snap["pile_plays"] == []
    assert snap["hands"] == [[], []] and len(snap["discard"]) == 14
    assert all_cards(snap) == list(range(63))
    assert game.is_over and game.legal_actions() == []
    with pytest.raises(ValueError):
        game.apply(0)


# --- smoke: random games --------------------------------------------------------------------------


def check_invariants(game: OracleHeadGame, rules: HeadRules) -> None:
    snap = game.snapshot()
    assert all_cards(snap) == rules.deck()
    assert all(score >= 0 for score in snap["scores"])
    played = {play[0] for play in snap["pile_plays"]}
    for seat in range(snap["players"]):
        if snap["pooped"][seat] or snap["is_over"]:
            assert snap["hands"][seat] == []
        else:
            expected = 7 - snap["pile_number"] - (1 if seat in played else 0)
            assert len(snap["hands"][seat]) == expected
    if not snap["is_over"]:
        legal = game.legal_actions()
        assert legal and legal == sorted(set(legal))


@pytest.mark.slow
def test_h_random_games_end_and_keep_every_card_once() -> None:
    chooser = random.Random(20240601)
    for _ in range(50):
        players = chooser.randint(2, 5)
        rules = HeadRules(
            last_pile_scoring=chooser.choice(["pile_sum", "own_card"]),
            poor_panda=chooser.random() < 0.5,
            lowest_only_when_cannot_follow=chooser.random() < 0.5,
            bust_threshold=chooser.choice([1, 10, 21]),
            special_cards=chooser.random() < 0.7,
            first_dealer=chooser.randrange(players),
        )
        game = OracleHeadGame.new(players, chooser.getrandbits(64), rules)
        for _step in range(100_000):
            if game.is_over:
                break
            game.apply(chooser.choice(game.legal_actions()))
            check_invariants(game, rules)
        snap = game.snapshot()
        assert snap["is_over"]
        assert sum(not pooped for pooped in snap["pooped"]) == 1
        assert snap["winner"] is not None and not snap["pooped"][snap["winner"]]
        assert len(snap["hand_results"]) == snap["hand_number"] + 1
