"""Tests of the pure-Python oracle for the climbing games (docs/rules/, Part S and Part R).

Positions are built by hand (``OracleClimbGame.from_snapshot``) and the expected results are
worked out from the rules text; test names carry the rule IDs. The contract is
docs/climb_interface.md.
"""

from __future__ import annotations

import copy
import itertools
import json
import random
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import pytest

from panda_core.oracle.climb import (
    ClimbSettings,
    Combo,
    Move,
    OracleClimbGame,
    beats,
    card_notation,
    classify,
    condition_holds,
    move_notation,
    parse_card,
    parse_move,
)
from panda_core.oracle.climb_combo import HandCard, enumerate_plays
from panda_core.oracle.climb_deck import (
    DEFAULT_DECK_PATH,
    RANK_INDEX,
    default_deck,
    load_deck,
    parse_deck,
)
from panda_core.oracle.rng import SplitMix64, shuffle

DECK = default_deck()


# --- helpers --------------------------------------------------------------------------------------


def c(name: str) -> int:
    """Card id from notation, e.g. ``c("Ea8")`` = 18, ``c("Wa!")`` = 68."""
    return parse_card(name)


def cs(names: str) -> list[int]:
    return sorted(c(x) for x in names.split())


def R(name: str) -> int:
    return RANK_INDEX[name]


def combo(names: str, *, blue: str = "", named: Sequence[str] = (), leading: bool = False) -> Combo:
    ids = cs(names)
    blues = set(cs(blue)) if blue else set()
    faces = ["blue" if i in blues else "white" for i in ids]
    result = classify(ids, faces, [R(n) for n in named], DECK, leading=leading)
    assert result is not None, names
    return result


def classify_names(
    names: str, blue: str = "", named: Sequence[str] = (), leading: bool = False
) -> Combo | None:
    ids = cs(names)
    blues = set(cs(blue)) if blue else set()
    faces = ["blue" if i in blues else "white" for i in ids]
    return classify(ids, faces, [R(n) for n in named], DECK, leading=leading)


def position(
    *,
    hands: Sequence[str],
    preset: str = "year",
    mood: str = "hungry",
    blue: str = "",
    scores: Sequence[int] | None = None,
    to_beat: tuple[int, str] | None = None,
    to_beat_named: Sequence[str] = (),
    holder: int | None = None,
    passed: Iterable[int] = (),
    played: Sequence[str] | None = None,
    current: int = 0,
    leader: int | None = None,
    draw: str = "",
    shown_out: Sequence[int] = (),
    starter: int = 0,
    suits: Sequence[int] = (0, 1, 2, 3, 4),
) -> OracleClimbGame:
    """A hand-built position. Cards not placed go to the discard pile (cards of suits in play and,
    in spin, the animal cards) or out of the round (other cards)."""
    n = len(hands)
    hand_ids = [cs(h) for h in hands]
    played_ids = [cs(p) for p in played] if played is not None else [[] for _ in range(n)]
    draw_ids = [c(x) for x in draw.split()]
    blue_ids = cs(blue) if blue else []
    placed = {x for h in hand_ids for x in h} | {x for p in played_ids for x in p} | set(draw_ids)
    discard: list[int] = []
    out: list[int] = []
    for card in range(70):
        if card in placed:
            continue
        suit = card - 65 if card >= 65 else card // 13
        in_play = card < 65 if preset == "spin" else suit in suits
        (discard if in_play else out).append(card)
    tb: dict[str, Any] | None = None
    if to_beat is not None:
        player, names = to_beat
        cmb = combo(
            names, blue=" ".join(x for x in names.split() if c(x) in blue_ids), named=to_beat_named
        )
        tb = {"player": player, **cmb.to_json()}
    snap: dict[str, Any] = {
        "preset": preset,
        "panda_mood": mood,
        "players": n,
        "first_player": 0,
        "seed": 0,
        "deck": "reconstructed",
        "suits_in_play": list(suits),
        "round": 1,
        "starter": starter,
        "scores": list(scores) if scores is not None else [0] * n,
        "hands": hand_ids,
        "blue": blue_ids,
        "draw_pile": draw_ids,
        "discard": discard,
        "out": out,
        "trick": {
            "leader": current if leader is None else leader,
            "to_beat": tb,
            "holder": holder,
            "passed": sorted(passed),
            "played": played_ids,
        },
        "current_player": current,
        "shown_out": list(shown_out),
        "game_over": False,
        "winner": None,
        "rng_state": 12345,
        "round_results": [],
    }
    return OracleClimbGame.from_snapshot(snap)


def mv(text: str) -> Move:
    return parse_move(text)


def notations(g: OracleClimbGame) -> list[str]:
    return [move_notation(m) for m in g.legal_moves()]


def hand(g: OracleClimbGame, seat: int) -> list[int]:
    hands: list[list[int]] = g.snapshot()["hands"]
    return hands[seat]


# --- Part R ---------------------------------------------------------------------------------------


def test_r1_splitmix64_vectors() -> None:
    rng = SplitMix64(0)
    assert [rng.next() for _ in range(3)] == [
        16294208416658607535,
        7960286522194355700,
        487617019471545679,
    ]


def test_r3_shuffle_vector() -> None:
    items = list(range(10))
    shuffle(items, SplitMix64(7))
    assert items == [8, 1, 5, 9, 0, 4, 3, 2, 6, 7]


def test_r2_seed_out_of_range_refused() -> None:
    for bad in (-1, 2**64, True, 1.0):
        with pytest.raises(ValueError):
            OracleClimbGame.new(3, bad)  # type: ignore[arg-type]
    assert OracleClimbGame.new(3, 2**64 - 1).snapshot()["seed"] == 2**64 - 1


# --- S-2: the card table --------------------------------------------------------------------------


def test_s2_2_blue_faces_match_seed_examples() -> None:
    fire3 = DECK.animals[c("Fi3")].blue
    assert (fire3.fixed, fire3.wilds, fire3.symbols) == ((R("10"),), 1, ("fire",))
    earth8 = DECK.animals[c("Ea8")].blue
    assert (earth8.fixed, earth8.wilds, earth8.pandas) == ((R("Q"),), 0, 1)
    wood6 = DECK.animals[c("Wo6")].blue
    assert (wood6.fixed, wood6.bamboo) == ((R("A"),), 1)
    water4 = DECK.animals[c("Wa4")].blue
    assert (water4.fixed, water4.drop) == ((R("Q"), R("Q")), True)
    # S-2.2: the mod-13 wrap (blue Fire A = 8 + fire) and Metal Q, K, A, 2 all turning into 2s.
    assert DECK.animals[c("FiA")].blue.fixed == (R("8"),)
    for name in ("MeQ", "MeK", "MeA", "Me2"):
        assert DECK.animals[c(name)].blue.fixed == (R("2"),)
        assert DECK.animals[c(name)].blue.symbols == ()


def test_s2_2_every_blue_face_follows_suit_formula() -> None:
    for r in range(13):
        assert DECK.animals[r].blue.fixed == ((r + 7) % 13,) and DECK.animals[r].blue.wilds == 1
        assert DECK.animals[13 + r].blue.fixed == ((r + 4) % 13,)
        assert DECK.animals[26 + r].blue.fixed == ((r + 8) % 13,)
        assert DECK.animals[39 + r].blue.fixed == ((r + 8) % 13,) * 2
        assert DECK.animals[52 + r].blue.fixed == (min(r + 3, 12),)


def test_s2_1_white_faces_one_unit_no_symbol() -> None:
    for card in DECK.animals:
        assert card.white.fixed == (card.rank,)
        assert card.white.wilds == 0 and card.white.symbols == ()
        assert card.id == card.suit * 13 + card.rank  # S-1.3


def test_s2_3_element_numbers_and_conditions() -> None:
    got = [(e.id, e.number, e.condition) for e in DECK.elements]
    assert got == [
        (65, 1, "run_or_formation_3_ranks"),
        (66, 2, "single"),
        (67, 3, "set"),
        (68, 4, "three_or_more_cards"),
        (69, 5, "contains_blue"),
    ]


def _deck_data() -> dict[str, Any]:
    import tomllib

    data: dict[str, Any] = tomllib.loads(DEFAULT_DECK_PATH.read_text(encoding="utf-8"))
    return data


def _card_entry(data: dict[str, Any], card_id: int) -> dict[str, Any]:
    entry: dict[str, Any] = next(e for e in data["cards"] if e["id"] == card_id)
    return entry


@pytest.mark.parametrize(
    ("mutate", "needle"),
    [
        (
            lambda d: _card_entry(d, 17)["blue"].update(units=["X"]),
            "card 17 (earth 7): field 'blue.units'",
        ),
        (
            lambda d: _card_entry(d, 17)["blue"].update(symbols=["fire"]),
            "card 17 (earth 7): field 'blue.symbols'",
        ),
        (
            lambda d: _card_entry(d, 0)["blue"].update(
                units=["10", "wild", "wild", "wild"], symbols=["fire"] * 3
            ),
            "card 0 (fire 3): field 'blue.units'",
        ),
        (
            lambda d: _card_entry(d, 40)["blue"].update(units=["Q", "K"]),
            "card 40 (water 4): field 'blue.units'",
        ),
        (
            lambda d: _card_entry(d, 52)["blue"].update(units=["3", "5"]),
            "card 52 (metal 3): field 'blue.units'",
        ),
        (
            lambda d: _card_entry(d, 52)["white"].update(units=["4"]),
            "card 52 (metal 3): field 'white'",
        ),
        (lambda d: _card_entry(d, 52).update(rank="4"), "card 52 (metal 3): field 'rank'"),
        (lambda d: _card_entry(d, 52).update(extra=1), "card 52 (metal 3): field 'extra'"),
        (
            lambda d: _card_entry(d, 52)["blue"].pop("symbols"),
            "card 52 (metal 3): field 'blue.symbols'",
        ),
        (lambda d: d["cards"].pop(), "card 64 (metal 2): field 'id'"),
        (lambda d: d["elements"][1].update(number=1), "card 66 (earth element): field 'number'"),
        (
            lambda d: d["elements"][3].update(condition="pair"),
            "card 68 (water element): field 'condition'",
        ),
        (lambda d: d.update(version=2), "top level: field 'version'"),
    ],
)
def test_s2_4_malformed_deck_names_card_and_field(mutate: Any, needle: str) -> None:
    data = _deck_data()
    parse_deck(copy.deepcopy(data), "ok")  # the unmodified table is valid
    mutate(data)
    with pytest.raises(ValueError) as info:
        parse_deck(data, "test.toml")
    assert needle in str(info.value)


def test_s2_4_json_deck_file_equals_toml(tmp_path: Path) -> None:
    path = tmp_path / "deck.json"
    path.write_text(json.dumps(_deck_data()), encoding="utf-8")
    assert load_deck(path) == DECK
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    with pytest.raises(ValueError):
        load_deck(bad)


def test_s2_4_custom_deck_changes_play(tmp_path: Path) -> None:
    """A deck file replaces S-2.2: here blue Metal 3 becomes a pair of 5s (drop)."""
    data = _deck_data()
    _card_entry(data, 52)["blue"].update(units=["5", "5"], symbols=["drop"])
    path = tmp_path / "custom.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    custom = load_deck(path)
    got = classify([52], ["blue"], [], custom)
    assert got is not None and (got.kind, got.rank, got.units) == ("set", R("5"), 2)
    g = OracleClimbGame.new(2, 1, ClimbSettings(deck=str(path)))
    assert g.deck.animals[52].blue.drop


# --- S-4: combinations ----------------------------------------------------------------------------


def test_s4_1_two_unit_card_never_single() -> None:
    # Blue Fire 3 = 10 + wild: a pair of 10s, or a 2-run 9-10 / 10-J, never a single.
    pair = classify_names("Fi3", blue="Fi3", named=["10"])
    assert pair is not None and (pair.kind, pair.rank, pair.units) == ("set", R("10"), 2)
    run = classify_names("Fi3", blue="Fi3", named=["J"])
    assert run is not None and (run.kind, run.rank, run.length) == ("run", R("J"), 2)
    assert classify_names("Fi3", blue="Fi3", named=["5"]) is None
    with pytest.raises(ValueError):
        classify_names("Fi3", blue="Fi3")  # a wild unit needs a named rank
    g = position(hands=["Fi3 Ea5", "Wo3"], blue="Fi3")
    assert not any(m.kind == "single" and c("Fi3") in m.cards for m in g.legal_moves())


def test_s4_2_set_units_of_one_rank() -> None:
    s = combo("Fi5 Ea5 Wo5")
    assert (s.kind, s.rank, s.units, s.copies) == ("set", R("5"), 3, 3)
    assert classify_names("Fi5 Ea6") is not None  # a run, not a set
    assert classify_names("Fi5 Ea7") is None


def test_s4_3_run_no_two() -> None:
    assert classify_names("FiQ EaK WoA") is not None
    assert classify_names("EaK WoA Me2") is None  # the 2 may not be in a run
    assert classify_names("WoA Me2 Fi3") is None  # no wrapping
    five = combo("Fi3 Ea4 Wo5 Wa6 Me7")
    assert (five.kind, five.rank, five.length) == ("run", R("7"), 5)
    assert classify_names("Fi3 Ea4 Wo5 Wa6 Me7 Fi8") is None  # at most 5 ranks


def test_s4_3_drop_card_cannot_be_in_run() -> None:
    # Blue Water 4 shows Q Q: two units of one rank, so Q Q K is no run and no formation.
    assert classify_names("Wa4 FiK", blue="Wa4") is None
    form = combo("Wa4 FiK EaK", blue="Wa4")
    assert (form.kind, form.rank, form.length, form.copies) == ("formation", R("K"), 2, 2)


def test_s4_4_formation_copies_of_a_run() -> None:
    f = combo("FiQ EaQ FiK EaK")
    assert (f.kind, f.rank, f.units, f.length, f.copies) == ("formation", R("K"), 4, 2, 2)
    f3 = combo("Fi3 Ea3 Wo3 Fi4 Ea4 Wo4 Fi5 Ea5 Wo5")
    assert (f3.kind, f3.length, f3.copies) == ("formation", 3, 3)
    assert classify_names("FiQ EaQ FiK") is None
    assert classify_names("FiK EaK FiA EaA Fi2 Ea2") is None  # no 2 in a formation


def test_s4_5_drop_cards_do_not_make_bombs() -> None:
    following = combo("FiQ EaQ WoQ MeQ")
    assert following.kind == "bomb"
    led = combo("FiQ EaQ WoQ MeQ", leading=True)
    assert led.kind == "set"  # a 4+ set that is led is an ordinary set
    with_drop = combo("Wa4 FiQ EaQ", blue="Wa4")
    assert (with_drop.kind, with_drop.units) == ("set", 4)  # holds a drop card: a set
    # A wild unit is not a drop: blue Fire 5 (Q + wild) can help a bomb.
    wild_bomb = combo("Fi5 EaQ WoQ", blue="Fi5", named=["Q"])
    assert (wild_bomb.kind, wild_bomb.units) == ("bomb", 4)


def test_s4_5_bomb_may_not_lead() -> None:
    g = position(hands=["Fi7 Ea7 Wo7 Me7", "Fi3"])
    moves = g.legal_moves()
    assert all(m.kind != "bomb" for m in moves)
    assert Move("set", tuple(cs("Fi7 Ea7 Wo7 Me7"))) in moves


def test_s4_5_following_four_of_a_rank_is_bomb_on_any_play() -> None:
    g = position(
        hands=["Fi3 Ea3 Wo3 Me3 Fi9", "WoK"],
        to_beat=(1, "FiA"),
        holder=1,
        played=["", "FiA"],
        current=0,
        leader=1,
    )
    moves = g.legal_moves()
    assert Move("bomb", tuple(cs("Fi3 Ea3 Wo3 Me3"))) in moves
    assert all(m.kind in ("pass", "bomb") for m in moves)  # 9 < A: only the bomb or a pass


def test_s4_6_named_ranks_distinct_plays() -> None:
    # Blue Fire 3 (10 + wild) and blue Fire 4 (J + wild): 9 10 J Q can be named [9, Q] or [Q, 9].
    g = position(hands=["Fi3 Fi4", "WoK"], blue="Fi3 Fi4")
    moves = g.legal_moves()
    runs = [m.named for m in moves if m.kind == "run" and m.cards == (0, 1)]
    assert (R("9"), R("Q")) in runs and (R("Q"), R("9")) in runs
    # The formation 10 10 J J: the wilds name J and 10 in either order, two different plays.
    forms = [m.named for m in moves if m.kind == "formation"]
    assert forms == [(R("10"), R("J")), (R("J"), R("10"))]
    assert len(moves) == len(set(moves))


def test_s4_s5_play_enumeration_matches_brute_force() -> None:
    """Every subset of the hand with every naming of its wild units, classified and filtered
    with ``beats``, gives exactly the plays the oracle enumerates (S-4, S-4.6, S-5)."""
    pick = random.Random(11)
    bomb = combo("Fi4 Ea4 Wo4 Me4")
    for _ in range(25):
        low = pick.randrange(11)
        pool = [s * 13 + r for s in range(5) for r in range(low, min(13, low + 3))]
        ids = sorted(pick.sample(pool, pick.randint(1, 6)))
        blues = {x for x in ids if pick.random() < 0.5}
        hand_cards = [HandCard(x, DECK.face(x, x in blues), x in blues) for x in ids]
        for to_beat in (None, bomb, *enumerate_plays(hand_cards[:2], None)[:2]):
            expected: set[Combo] = set()
            for k in range(1, len(ids) + 1):
                for sub in itertools.combinations(ids, k):
                    faces = ["blue" if x in blues else "white" for x in sub]
                    wild = sum(DECK.face(x, x in blues).wilds for x in sub)
                    for named in itertools.product(range(13), repeat=wild):
                        got = classify(sub, faces, named, DECK, leading=to_beat is None)
                        if got is not None and (to_beat is None or beats(got, to_beat)):
                            expected.add(got)
            plays = enumerate_plays(hand_cards, to_beat)
            assert len(plays) == len(set(plays))
            assert set(plays) == expected


# --- S-5: beating ---------------------------------------------------------------------------------


def test_s5_1_shape_counts_units_not_cards() -> None:
    water_q = combo("Wa4", blue="Wa4")
    assert (water_q.kind, water_q.units, len(water_q.cards)) == ("set", 2, 1)
    assert beats(water_q, combo("FiJ EaJ"))
    assert not beats(water_q, combo("FiJ EaJ WoJ"))  # three units need three units
    assert not beats(combo("Fi5 Ea6"), combo("Fi3 Ea4 Wo5"))  # run length must match
    assert beats(combo("Fi6 Ea7 Wo8"), combo("Fi3 Ea4 Wo5"))
    assert not beats(combo("Fi5 Ea5"), combo("Wo5 Me5"))  # strictly higher


def test_s5_2_bomb_beats_bomb_more_units_or_higher() -> None:
    low4 = combo("Fi3 Ea3 Wo3 Me3")
    high4 = combo("Fi4 Ea4 Wo4 Me4")
    five = combo("EaQ WoQ MeQ Fi5", blue="Fi5", named=["Q"])  # blue Fire 5 = Q + wild
    assert (five.kind, five.units) == ("bomb", 5)
    assert beats(high4, low4) and not beats(low4, high4)
    assert beats(five, high4) and not beats(high4, five)
    assert beats(low4, combo("Fi2 Ea2 Wo2"))  # a bomb beats any non-bomb
    assert not beats(combo("Fi2 Ea2 Wo2 Wa7", blue="Wa7"), low4)  # a drop set of 2s is no bomb


def test_s5_3_element_conditions() -> None:
    fire = "run_or_formation_3_ranks"
    assert condition_holds(fire, combo("Fi3 Ea4 Wo5"))
    assert not condition_holds(fire, combo("Fi3 Ea4"))
    assert condition_holds(fire, combo("Fi3 Ea3 Fi4 Ea4 Fi5 Ea5"))
    assert condition_holds("single", combo("Fi3"))
    assert condition_holds("set", combo("Fi3 Ea3"))
    assert not condition_holds("set", combo("Fi3 Ea3 Wo3 Me3"))  # a bomb is no set
    # S-5.3: Water counts cards, not units: blue Water Q Q + white Q is 3 units but 2 cards.
    assert not condition_holds("three_or_more_cards", combo("Wa4 FiQ", blue="Wa4"))
    assert condition_holds("three_or_more_cards", combo("Fi3 Ea4 Wo5"))
    assert condition_holds("contains_blue", combo("Me3", blue="Me3"))
    assert not condition_holds("contains_blue", combo("Me3"))
    assert not condition_holds("three_or_more_cards", combo("Fi3 Ea3 Wo3 Me3"))  # never on a bomb


def test_s8_3_element_never_on_bomb_or_empty_table() -> None:
    g = position(hands=["Wa! Fi5", "Fi9"], current=0)
    assert notations(g) == ["discard_element Wa!", "single Fi5"]  # no element play when leading
    g = position(
        hands=["Wa! Me! Fi5", "Fi9"],
        to_beat=(1, "Fi3 Ea3 Wo3 Me3"),
        holder=1,
        played=["", "Fi3 Ea3 Wo3 Me3"],
        leader=1,
    )
    assert notations(g) == ["pass", "discard_element Wa!", "discard_element Me!"]


# --- S-3: setup -----------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_s3_1_s3_2_s3_4_year_setup_reproduced_from_rng(players: int) -> None:
    seed, fp = 987654321 + players, players - 1
    g = OracleClimbGame.new(players, seed, ClimbSettings("year", first_player=fp))
    rng = SplitMix64(seed)
    elements = [65, 66, 67, 68, 69]
    shuffle(elements, rng)
    taken = elements[: 3 if players == 2 else players]
    suits = sorted(e - 65 for e in taken)
    owners = {(fp + k) % players: taken[k] for k in range(players)}
    starter = min(owners, key=lambda s: owners[s])  # numbers 1..5 follow the ids
    deck = sorted([x for x in range(65) if x // 13 in suits] + [65 + s for s in suits])
    shuffle(deck, rng)
    expect_hands: list[list[int]] = [[] for _ in range(players)]
    for i in range(12 * players):
        expect_hands[(starter + i) % players].append(deck[i])
    snap = g.snapshot()
    assert snap["suits_in_play"] == suits
    assert snap["starter"] == starter and snap["current_player"] == starter
    assert snap["hands"] == [sorted(h) for h in expect_hands]
    assert snap["draw_pile"] == deck[12 * players :]
    assert snap["rng_state"] == rng.state
    assert len(snap["out"]) == 14 * (5 - len(suits))
    assert snap["blue"] == [] and snap["discard"] == []


def test_s3_2_two_player_third_element_belongs_to_nobody() -> None:
    # Find a seed where the third (nobody's) card has the lowest number of the three.
    for seed in range(200):
        rng = SplitMix64(seed)
        elements = [65, 66, 67, 68, 69]
        shuffle(elements, rng)
        if elements[2] < min(elements[0], elements[1]):
            g = OracleClimbGame.new(2, seed)
            owner_of_lower = 0 if elements[0] < elements[1] else 1
            assert g.snapshot()["starter"] == owner_of_lower
            assert len(g.snapshot()["suits_in_play"]) == 3
            return
    raise AssertionError("no seed found")


@pytest.mark.parametrize("players", [2, 3, 5])
def test_s3_3_spin_setup_winds_then_deal(players: int) -> None:
    seed, fp = 4242 + players, 1
    g = OracleClimbGame.new(players, seed, ClimbSettings("spin", first_player=fp))
    rng = SplitMix64(seed)
    winds = [65, 66, 67, 68, 69]
    shuffle(winds, rng)
    deck = list(range(65))
    shuffle(deck, rng)
    snap = g.snapshot()
    for seat in range(players):
        expect = [deck[i] for i in range(11 * players) if (fp + i) % players == seat]
        expect.append(winds[(seat - fp) % players])
        assert snap["hands"][seat] == sorted(expect)
    assert snap["out"] == sorted(winds[players:])
    assert snap["draw_pile"] == deck[11 * players :]
    assert snap["starter"] == fp and snap["suits_in_play"] == [0, 1, 2, 3, 4]


def _round_ending_position(scores: list[int], starter: int) -> OracleClimbGame:
    """Seat 0 leads its last card; seat 1 (2 cards) passes; seat 2 shown out: the round ends."""
    return position(
        hands=["Fi9", "Ea3 Ea4", ""],
        scores=scores,
        shown_out=[2],
        starter=starter,
        current=0,
        suits=(0, 1, 2),
    )


def test_s3_5_starter_fewest_points() -> None:
    g = _round_ending_position([0, 5, 1], starter=0)
    g.apply(mv("single Fi9"))
    g.apply(mv("pass"))
    snap = g.snapshot()
    # Seat 0 showed out with the largest hand (2): scores 2, 5, 1 -> seat 2 starts round 2.
    assert snap["round_results"] == [
        {
            "round": 1,
            "starter": 0,
            "shown_out": [2, 0],
            "hand_sizes": [0, 2, 0],
            "scores": [2, 5, 1],
        }
    ]
    assert snap["round"] == 2 and snap["starter"] == 2 and snap["current_player"] == 2
    assert [len(h) for h in snap["hands"]] == [12, 12, 12]
    assert snap["blue"] == [] and snap["shown_out"] == []


@pytest.mark.parametrize(("prev_starter", "expected"), [(0, 0), (1, 1), (2, 2)])
def test_s3_5_s3_6_starter_ties_clockwise_from_previous_starter(
    prev_starter: int, expected: int
) -> None:
    g = _round_ending_position([1, 3, 3], starter=prev_starter)
    g.apply(mv("single Fi9"))
    g.apply(mv("pass"))
    snap = g.snapshot()
    assert snap["scores"] == [3, 3, 3]  # all tied
    assert snap["starter"] == expected


def test_s12_player_count_and_settings_refused() -> None:
    for n in (0, 1, 6):
        with pytest.raises(ValueError):
            OracleClimbGame.new(n, 1)
    with pytest.raises(ValueError):
        OracleClimbGame.new(3, 1, ClimbSettings(preset="head"))
    with pytest.raises(ValueError):
        OracleClimbGame.new(3, 1, ClimbSettings(preset="spin", panda_mood="sleepy"))  # S-7.6
    with pytest.raises(ValueError):
        OracleClimbGame.new(3, 1, ClimbSettings(first_player=3))
    spin = OracleClimbGame.new(3, 1, ClimbSettings(preset="spin", panda_mood="flip"))
    assert spin.snapshot()["panda_mood"] == "flip"


# --- S-6: trick flow ------------------------------------------------------------------------------


def test_s6_3_return_to_hand_flipped_vs_discard() -> None:
    # Seat 0 played Fi4 (white) and Me3 (blue, shows 6); seat 1 played Ea5 and Ea7, both white.
    g = position(
        hands=["Fi5 Fi9", "Ea8 Ea9", "Wo2 WoK"],
        blue="Me3",
        played=["Fi4 Me3", "Ea5 Ea7", ""],
        to_beat=(1, "Ea7"),
        holder=1,
        current=2,
        leader=0,
    )
    g.apply(mv("single Wo2"))
    assert g.current_player == 0
    g.apply(mv("pass"))  # one card was blue: both discarded
    snap = g.snapshot()
    assert c("Fi4") in snap["discard"] and c("Me3") in snap["discard"]
    assert snap["hands"][0] == cs("Fi5 Fi9")
    g.apply(mv("pass"))  # all white: back to seat 1's hand, blue
    snap = g.snapshot()
    assert snap["hands"][1] == cs("Ea5 Ea7 Ea8 Ea9")
    assert snap["blue"] == cs("Ea5 Ea7")
    # S-6.4: the turn would reach seat 2, the holder: it wins, discards, leads.
    assert c("Wo2") in snap["discard"]
    assert snap["current_player"] == 2 and snap["trick"]["to_beat"] is None
    assert snap["trick"]["passed"] == [] and snap["trick"]["leader"] == 2


def test_s6_1_passing_is_final_for_the_trick() -> None:
    g = position(hands=["Fi5 FiQ", "Ea8 EaK", "Wo9 Wo10"], current=0)
    g.apply(mv("single Fi5"))
    g.apply(mv("pass"))  # seat 1
    g.apply(mv("single Wo9"))  # seat 2
    assert g.current_player == 0
    g.apply(mv("single FiQ"))
    assert g.current_player == 2  # seat 1 passed: skipped
    assert g.snapshot()["trick"]["passed"] == [1]


def test_s6_2_empty_hand_passes_automatically_and_gets_white_cards_back() -> None:
    g = position(
        hands=["", "Ea8 Ea9", "Wo3 Wo4"],
        played=["Fi4", "", ""],
        to_beat=(0, "Fi4"),
        holder=0,
        current=1,
        leader=0,
    )
    g.apply(mv("single Ea8"))
    assert g.current_player == 2
    g.apply(mv("pass"))
    snap = g.snapshot()
    # Seat 0 was passed automatically: Fi4 came back blue, so seat 0 did not show out.
    assert snap["hands"][0] == [c("Fi4")] and c("Fi4") in snap["blue"]
    assert snap["shown_out"] == [] and snap["scores"] == [0, 0, 0]
    assert snap["current_player"] == 1  # seat 1 won the trick and leads


def test_s6_4_winner_without_cards_next_player_leads() -> None:
    g = position(hands=["Fi9", "Ea3 Ea4", "Wo3 Wo4", "Me3 Me4"], current=0)
    g.apply(mv("single Fi9"))
    for _ in range(3):
        g.apply(mv("pass"))
    snap = g.snapshot()
    assert snap["shown_out"] == [0] and snap["scores"] == [2, 0, 0, 0]
    assert snap["current_player"] == 1 and snap["trick"]["leader"] == 1
    assert snap["trick"]["passed"] == []  # seat 0 is not marked passed when the trick begins


def test_s6_5_discard_element_does_not_end_turn() -> None:
    g = position(hands=["Wa! Fi4", "Ea5"], current=0)
    assert notations(g) == ["discard_element Wa!", "single Fi4"]
    g.apply(mv("discard_element Wa!"))
    assert g.current_player == 0
    assert notations(g) == ["single Fi4"]
    assert c("Wa!") in g.snapshot()["discard"]


def test_s6_5_follower_discard_emptying_hand_passes() -> None:
    # The Fi4 played earlier comes back blue when the discard empties the hand (S-6.5, S-6.3).
    g2 = position(
        hands=["Wa!", "Ea9", "Wo3"],
        played=["Fi4", "", "Wo5"],
        to_beat=(2, "Wo5"),
        holder=2,
        current=0,
        leader=0,
    )
    g2.apply(mv("discard_element Wa!"))
    snap = g2.snapshot()
    assert snap["hands"][0] == [c("Fi4")] and snap["blue"] == [c("Fi4")]
    assert 0 in snap["trick"]["passed"] and snap["current_player"] == 1


def test_s6_6_leader_with_only_elements_discards_then_next_leads_same_trick() -> None:
    g = position(hands=["Wa! Me!", "Fi4", "Ea5 Ea6"], current=0)
    assert notations(g) == ["discard_element Wa!", "discard_element Me!"]
    g.apply(mv("discard_element Wa!"))
    assert g.current_player == 0
    g.apply(mv("discard_element Me!"))
    snap = g.snapshot()
    assert snap["current_player"] == 1 and snap["trick"]["leader"] == 0
    assert snap["trick"]["passed"] == [0] and snap["trick"]["to_beat"] is None
    assert "pass" not in notations(g)  # seat 1 leads: it may not pass
    g.apply(mv("single Fi4"))
    g.apply(mv("single Ea5"))
    snap = g.snapshot()
    # Seat 1 (empty) passed automatically and got Fi4 back; seat 2 won; seat 0 showed out
    # with the largest hand (1 card).
    assert snap["hands"][1] == [c("Fi4")] and snap["shown_out"] == [0]
    assert snap["scores"] == [1, 0, 0] and snap["current_player"] == 2


def test_s6_6_nobody_can_lead_trick_ends_without_winner() -> None:
    g = position(hands=["Wo!", "Wa!", "Me!"], scores=[1, 2, 3], current=1, suits=(2, 3, 4))
    g.apply(mv("discard_element Wa!"))
    assert g.current_player == 2  # seat 1 passed automatically; seat 2 leads the same trick
    g.apply(mv("discard_element Me!"))
    assert g.current_player == 0
    g.apply(mv("discard_element Wo!"))
    snap = g.snapshot()
    # No winner: show-outs go clockwise from the trick's first leader (seat 1), each scoring the
    # largest hand, 0; nobody holds cards, so the round ends and round 2 is dealt.
    assert snap["round_results"] == [
        {
            "round": 1,
            "starter": 0,
            "shown_out": [1, 2, 0],
            "hand_sizes": [0, 0, 0],
            "scores": [1, 2, 3],
        }
    ]
    assert snap["round"] == 2 and snap["starter"] == 0 and snap["current_player"] == 0


# --- S-7: symbols ---------------------------------------------------------------------------------


def test_s7_1_bamboo_gains_at_once() -> None:
    g = position(hands=["Wo6 Fi3", "Ea5"], blue="Wo6", scores=[3, 0], current=0)
    g.apply(mv("single Wo6"))  # blue Wood 6 = A + bamboo
    assert g.snapshot()["scores"] == [4, 0]


def test_s7_2_hungry_panda_takes_from_holder_of_beaten_play() -> None:
    base: dict[str, Any] = {
        "hands": ["Ea8 Fi3", "Wo9", "Me3"],
        "blue": "Ea8",
        "played": ["", "Wo8", ""],
        "to_beat": (1, "Wo8"),
        "holder": 1,
        "current": 0,
        "leader": 1,
    }
    g = position(**base, scores=[0, 2, 5])
    assert notations(g) == ["pass", "single Ea8"]
    g.apply(mv("single Ea8"))  # blue Earth 8 = Q + panda
    assert g.snapshot()["scores"] == [1, 1, 5]
    g = position(**base, scores=[0, 0, 5])
    g.apply(mv("single Ea8"))
    assert g.snapshot()["scores"] == [0, 0, 5]  # the holder has no points: nothing
    g = position(hands=["Ea8 Fi3", "Wo9"], blue="Ea8", scores=[0, 3], current=0)
    g.apply(mv("single Ea8"))
    assert g.snapshot()["scores"] == [0, 3]  # nothing when leading


def test_s7_3_flip_mood_choice_is_part_of_the_play() -> None:
    g = position(hands=["Ea8 Fi3 Fi4 Wo5 Wa!", "Me9"], blue="Ea8 Wo5", mood="flip", current=0)
    plays = [m for m in g.legal_moves() if m.cards == (c("Ea8"),)]
    # k = 1 panda: flip nothing, Fi3 or Fi4 (Wo5 is already blue, Wa! is no animal card).
    assert [m.flip for m in plays] == [(), (c("Fi3"),), (c("Fi4"),)]
    g.apply(mv("single Ea8 flip Fi4"))
    snap = g.snapshot()
    assert snap["blue"] == cs("Fi4 Ea8 Wo5")  # Ea8 is on the table, blue
    assert snap["scores"] == [0, 0]  # flip mood: no points moved


def test_s7_4_spin_steals_compulsory_victims_chosen() -> None:
    g = position(
        preset="spin", hands=["Ea3 Ea4 Fi9", "Wo9", "Me9"], blue="Ea3 Ea4", scores=[0, 2, 1]
    )
    singles = [m.steal for m in g.legal_moves() if m.cards == (c("Ea3"),)]
    assert singles == [(1,), (2,)]  # one panda: one compulsory steal, no empty choice
    run = [m.steal for m in g.legal_moves() if m.cards == tuple(cs("Ea3 Ea4"))]
    assert run == [(1, 1), (1, 2)]  # two pandas (7-8 run): seat 2 has only 1 point
    g.apply(mv("run Ea3+Ea4 steal 1+2"))
    assert g.snapshot()["scores"] == [2, 1, 0]


def test_s7_4_spin_steals_limited_by_points_and_room() -> None:
    g = position(
        preset="spin", hands=["Ea3 Ea4 Fi9", "Wo9", "Me9"], blue="Ea3 Ea4", scores=[0, 1, 0]
    )
    run = [m.steal for m in g.legal_moves() if m.cards == tuple(cs("Ea3 Ea4"))]
    assert run == [(1,)]  # opponents hold only 1 point
    g = position(
        preset="spin", hands=["Ea3 Ea4 Fi9", "Wo9", "Me9"], blue="Ea3 Ea4", scores=[18, 4, 4]
    )
    run = [m.steal for m in g.legal_moves() if m.cards == tuple(cs("Ea3 Ea4"))]
    assert run == [(1,), (2,)]  # room under 19 is 1


def test_s10_2_spin_bamboo_then_panda_capped_at_19() -> None:
    # Blue Wood 3 (J + bamboo) with blue Earth 7 (J + panda): a pair of J, bamboo first.
    g = position(preset="spin", hands=["Wo3 Ea7 Fi9", "Me9"], blue="Wo3 Ea7", scores=[18, 5])
    pair = [m for m in g.legal_moves() if m.cards == tuple(cs("Wo3 Ea7"))]
    assert [m.steal for m in pair] == [()]  # the bamboo fills the room: no steal
    g.apply(pair[0])
    assert g.snapshot()["scores"] == [19, 5]
    g = position(preset="spin", hands=["Wo3 Fi9", "Me9"], blue="Wo3", scores=[19, 5])
    g.apply(mv("single Wo3"))
    assert g.snapshot()["scores"] == [19, 5]  # never above 19 from symbols


# --- S-8: element and wind cards ------------------------------------------------------------------


def test_s8_1_year_element_wins_trick_forces_passes_draws_two() -> None:
    g = position(
        hands=["Fi9 FiJ", "Ea9", "Ea! Wo! Wo3 Wo4"],
        played=["Fi5", "Ea8", ""],
        to_beat=(1, "Ea8"),
        holder=1,
        current=2,
        leader=0,
        draw="Me3 Me4 Me5",
    )
    moves = notations(g)
    assert "element Ea!" in moves  # Earth: the play to beat is a single
    assert "element Wo!" not in moves and "discard_element Wo!" in moves  # Wood needs a set
    g.apply(mv("element Ea!"))
    snap = g.snapshot()
    assert snap["hands"][2] == cs("Wo! Wo3 Wo4 Me3 Me4")
    assert snap["draw_pile"] == [c("Me5")]
    assert snap["hands"][0] == cs("Fi5 Fi9 FiJ") and snap["hands"][1] == cs("Ea8 Ea9")
    assert snap["blue"] == cs("Fi5 Ea8")  # forced passes return white cards, blue
    assert c("Ea!") in snap["discard"]
    assert snap["current_player"] == 2 and snap["trick"]["to_beat"] is None


def test_s8_2_spin_wind_holds_trick_old_play_stands() -> None:
    g = position(
        preset="spin",
        hands=["Fi9 FiJ", "Ea! Wo3", "Me9"],
        played=["Fi5", "Ea4", ""],
        to_beat=(0, "Fi5"),
        holder=0,
        passed=[2],
        current=1,
        leader=1,
        draw="Me3 Me4 Me5",
    )
    g.apply(mv("element Ea!"))
    snap = g.snapshot()
    assert snap["hands"][1] == cs("Wo3 Me3 Me4")
    assert c("Ea!") in snap["discard"] and c("Ea4") in snap["discard"]  # all its trick cards
    assert snap["trick"]["holder"] == 1
    assert (
        snap["trick"]["to_beat"]["cards"] == [c("Fi5")] and snap["trick"]["to_beat"]["player"] == 0
    )
    assert snap["current_player"] == 0
    # The maker of the play may beat its own play.
    assert {"single Fi9", "single FiJ", "pass"} <= set(notations(g))
    g.apply(mv("pass"))  # Fi5 back blue; the turn reaches the holder: seat 1 wins
    snap = g.snapshot()
    assert snap["hands"][0] == cs("Fi5 Fi9 FiJ") and snap["blue"] == [c("Fi5")]
    assert snap["current_player"] == 1 and snap["trick"]["to_beat"] is None


def test_s8_2_spin_second_wind_on_same_play() -> None:
    """Seat 0's run stands; seat 1 has played the Water wind (holder 1); seat 2 plays the Fire
    wind on the same run (3 ranks): seat 2 holds, the run is still the play to beat."""
    g = position(
        preset="spin",
        hands=["Fi9", "Wo3", "Fi! Me9"],
        played=["Fi3 Ea4 Wo5", "", ""],
        to_beat=(0, "Fi3 Ea4 Wo5"),
        holder=1,
        current=2,
        leader=0,
        draw="Wa7 Wa8",
    )
    assert "element Fi!" in notations(g)  # Fire (South wind): a run of 3 ranks
    g.apply(mv("element Fi!"))
    snap = g.snapshot()
    assert snap["trick"]["holder"] == 2 and snap["current_player"] == 0
    assert snap["trick"]["to_beat"]["player"] == 0
    assert snap["trick"]["to_beat"]["cards"] == cs("Fi3 Ea4 Wo5")
    assert hand(g, 2) == cs("Me9 Wa7 Wa8")  # drew 2


# --- S-9 / S-10: show-outs and game end -----------------------------------------------------------


def _double_show_out(preset: str, scores: list[int]) -> OracleClimbGame:
    """Seat 1 plays its last card on seat 0's blue last card; seat 2 (5 cards) passes: seat 0
    is passed automatically (blue: discarded) and seats 1 and 0 both show out, 1 first."""
    g = position(
        preset=preset,
        hands=["", "Fi7", "Wo3 Wo4 Wo5 Wo6 Wo7"],
        blue="Me3",
        played=["Me3", "", ""],
        to_beat=(0, "Me3"),
        holder=0,
        scores=scores,
        current=1,
        leader=0,
    )
    g.apply(mv("single Fi7"))
    g.apply(mv("pass"))
    return g


def test_s9_1_s9_2_s9_4_show_out_order_and_scoring() -> None:
    g = _double_show_out("year", [0, 0, 0])
    snap = g.snapshot()
    # Only seat 2 holds cards: the round ended (S-9.3) and round 2 was dealt.
    assert snap["round"] == 2 and snap["shown_out"] == []
    result = snap["round_results"][0]
    assert result["shown_out"] == [1, 0]  # winner first, then clockwise
    assert result["scores"] == [5, 5, 0]  # largest hand: 5
    assert result["hand_sizes"] == [0, 0, 5]


def test_s9_2_year_show_out_capped_at_7_spin_uncapped() -> None:
    big = "Wo3 Wo4 Wo5 Wo6 Wo7 Wo8 Wo9 Wo10 WoJ WoQ"
    for preset, gain in (("year", 7), ("spin", 10)):
        g = position(preset=preset, hands=["Fi7", big, "Ea3"], current=0)
        g.apply(mv("single Fi7"))
        g.apply(mv("pass"))
        g.apply(mv("pass"))
        assert g.snapshot()["scores"][0] == gain


def test_s10_1_year_tie_first_shown_out_wins() -> None:
    g = _double_show_out("year", [10, 10, 0])
    snap = g.snapshot()
    assert snap["scores"] == [15, 15, 0]
    assert snap["game_over"] and snap["winner"] == 1 and snap["current_player"] is None
    assert snap["round_results"][-1]["shown_out"] == [1, 0]


def test_s10_1_year_tie_without_show_out_fewest_cards_then_lowest_seat() -> None:
    def play(hand2: str) -> OracleClimbGame:
        g = position(
            hands=["Fi3 Fi4 Fi5", "Ea3 Ea4 Ea5", hand2],
            blue="Wo3",
            scores=[0, 15, 14],
            current=2,
        )
        g.apply(mv("single Wo3"))  # blue Wood 3 = J + bamboo: 15 points
        g.apply(mv("pass"))
        g.apply(mv("pass"))
        return g

    g = play("Wo3 Wo4 Wo5")  # seat 2 keeps 2 cards, seat 1 has 3
    assert g.is_over and g.winner == 2
    g = play("Wo3 Wo4 Wo5 Wo6")  # both keep 3 cards: the lower seat wins
    assert g.is_over and g.winner == 1


def test_s10_1_year_game_ends_at_trick_end_not_mid_trick() -> None:
    g = position(hands=["Wo3 Fi9", "EaQ", "Me3"], blue="Wo3", scores=[14, 0, 0], current=0)
    g.apply(mv("single Wo3"))
    assert g.snapshot()["scores"][0] == 15 and not g.is_over  # S-10.1: at the end of a trick
    g.apply(mv("pass"))
    g.apply(mv("pass"))
    assert g.is_over and g.winner == 0
    assert g.legal_moves() == []
    with pytest.raises(ValueError):
        g.apply(Move("pass"))


def test_s10_2_spin_twentieth_point_from_show_out_later_show_outs_not_scored() -> None:
    g = _double_show_out("spin", [15, 18, 0])
    snap = g.snapshot()
    assert snap["scores"] == [15, 23, 0] and snap["winner"] == 1  # seat 1 first: 18 + 5
    assert snap["shown_out"] == [1]  # seat 0 does not show out
    g = _double_show_out("spin", [15, 10, 0])
    snap = g.snapshot()
    assert snap["scores"] == [20, 15, 0] and snap["winner"] == 0
    assert snap["shown_out"] == [1, 0]


# --- moves, notation, API -------------------------------------------------------------------------


def test_move_notation_round_trip_examples() -> None:
    examples = {
        "pass": Move("pass"),
        "discard_element Wa!": Move("discard_element", (68,)),
        "element Fi!": Move("element", (65,)),
        "set Fi3+Ea10 as 10": Move("set", (0, 20), (7,)),
        "run Fi3 as J": Move("run", (0,), (8,)),
        "single Ea8 flip Fi4+Wo5": Move("single", (18,), flip=(1, 28)),
        "single Ea8 steal 1+1": Move("single", (18,), steal=(1, 1)),
    }
    for text, move in examples.items():
        assert move_notation(move) == text
        assert parse_move(text) == move
        assert Move.from_json(json.loads(json.dumps(move.to_json()))) == move
    for bad in ("", "jump Fi3", "set Ea10+Fi3", "single Fi3 steal 2+1", "single  Fi3", "pass Fi3"):
        with pytest.raises(ValueError):
            parse_move(bad)
    assert [card_notation(x) for x in (0, 12, 20, 64, 69)] == ["Fi3", "Fi2", "Ea10", "Me2", "Me!"]


def test_apply_illegal_move_raises_and_leaves_state_unchanged() -> None:
    g = OracleClimbGame.new(4, 99)
    before = g.snapshot()
    not_mine = next(x for x in range(65) if x not in before["hands"][g.current_player or 0])
    for bad in (Move("pass"), Move("single", (not_mine,)), Move("bomb", (0, 13, 26, 39))):
        with pytest.raises(ValueError):
            g.apply(bad)
    assert g.snapshot() == before


def test_legal_moves_canonical_order_no_duplicates_snapshot_round_trip() -> None:
    g = OracleClimbGame.new(3, 2024, ClimbSettings("year", "flip"))
    pick = random.Random(5)
    for _ in range(60):
        if g.is_over:
            break
        moves = g.legal_moves()
        assert moves == sorted(moves, key=Move.sort_key)
        assert len(moves) == len(set(moves))
        snap = g.snapshot()
        rebuilt = OracleClimbGame.from_snapshot(json.loads(json.dumps(snap)))
        assert rebuilt.snapshot() == snap and rebuilt.legal_moves() == moves
        g.apply(moves[pick.randrange(len(moves))])


def test_from_snapshot_refuses_misplaced_cards() -> None:
    snap = OracleClimbGame.new(3, 5).snapshot()
    snap["discard"] = [*snap["discard"], snap["hands"][0][0]]
    with pytest.raises(ValueError):
        OracleClimbGame.from_snapshot(snap)


# --- smoke: random games --------------------------------------------------------------------------


def _check_invariants(snap: dict[str, Any], seen_blue: set[int]) -> None:
    places = (
        [x for h in snap["hands"] for x in h]
        + snap["draw_pile"]
        + snap["discard"]
        + snap["out"]
        + [x for p in snap["trick"]["played"] for x in p]
    )
    assert sorted(places) == list(range(70))  # every card in exactly one place
    assert all(s >= 0 for s in snap["scores"])
    visible = {x for h in snap["hands"] for x in h} | {
        x for p in snap["trick"]["played"] for x in p
    }
    # Faces only go white -> blue within a round (S-1.4, S-6.3, S-7.3).
    assert all(x in snap["blue"] for x in seen_blue if x in visible)
    seen_blue.update(snap["blue"])


@pytest.mark.parametrize(
    ("preset", "mood"), [("year", "hungry"), ("year", "flip"), ("spin", "hungry"), ("spin", "flip")]
)
@pytest.mark.slow
def test_smoke_random_games_keep_invariants_and_end(preset: str, mood: str) -> None:
    pick = random.Random(f"{preset}-{mood}")
    for game_no in range(30):
        players = 2 + game_no % 4
        g = OracleClimbGame.new(
            players, pick.getrandbits(64), ClimbSettings(preset, mood, game_no % players)
        )
        seen_blue: set[int] = set()
        round_no = 1
        for _ in range(20000):
            snap = g.snapshot()
            if snap["round"] != round_no:
                round_no = snap["round"]
                seen_blue = set()
            _check_invariants(snap, seen_blue)
            if g.is_over:
                break
            moves = g.legal_moves()
            assert moves, "a player to move always has a move"
            g.apply(moves[pick.randrange(len(moves))])
        assert g.is_over  # the game ends
        snap = g.snapshot()
        winner = snap["winner"]
        assert winner is not None and snap["current_player"] is None
        if preset == "year":
            assert snap["scores"][winner] == max(snap["scores"]) >= 15
        else:
            assert snap["scores"][winner] >= 20
        assert len(snap["round_results"]) == snap["round"]
