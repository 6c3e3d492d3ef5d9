"""The table's words and story, per game (docs/table.md): what a spectator is shown, what a
play is called, card help, the log's groups, seat status, places and consequences.

Exact strings are checked on built positions (seeded deals, known moves); invariants over whole
seeded games check every text a seat is shown. Rule IDs are named in each test."""

from __future__ import annotations

import itertools
import re
from typing import Any

import pytest

import panda_core
from hidden_cards import card_ids_in, hidden_cards_shown, private_events_leak
from panda_core._registry import AnyGame, spec
from panda_core.table.cards import CardBook
from panda_core.table.seat_state import SeatStateBuilder

GAMES = ("head", "year", "spin")
SPECTATOR = -1
"""A seat number no seat has: ``hidden_cards.secret_cards(game, -1)`` is every hand."""


def builder(game: AnyGame) -> SeatStateBuilder:
    names = [f"bot{p}" for p in range(game.players)]
    return SeatStateBuilder(spec(game_name(game)), CardBook(game), names)


def game_name(game: AnyGame) -> str:
    rules = game.rules
    return str(getattr(rules, "preset", "head"))


def state_of(game: AnyGame, seat: int | None, *, public: bool = False) -> dict[str, Any]:
    b = builder(game)
    kinds = [{"kind": "bot", "name": f"bot{p}"} for p in range(game.players)]
    return b.build(game, seat, seat_kinds=kinds, seed=None, notes=(), since=0, public=public)


def bot_game(name: str, players: int, seed: int, moves: int | None = None) -> AnyGame:
    """A seeded game of heuristic bots, played ``moves`` moves (or to its end)."""
    game = panda_core.make(name, players=players, seed=seed)
    done = 0
    while not game.is_over and (moves is None or done < moves):
        game.apply(game.bot_move("heuristic", seed=seed + done))
        done += 1
    return game


# ---- 1. the spectator's state ---------------------------------------------------------------


@pytest.mark.parametrize("name", GAMES)
def test_s11_h2_a_spectator_is_shown_no_private_card(name: str) -> None:
    """S-11 / H-2: a spectator sees what every seat sees and nothing more, at every move."""
    game = panda_core.make(name, players=3, seed=21)
    step = 0
    while not game.is_over and step < 120:
        state = state_of(game, None, public=True)
        assert state["spectator"] is True and state["seat"] is None
        assert state["hand"] == [] and state["hands"] is None and state["legal"] == []
        assert not hidden_cards_shown(state, game, SPECTATOR), step
        assert not private_events_leak(state["events"], SPECTATOR), step
        assert [e["type"] for e in state["events"]] == [e["type"] for e in game.public_events()]
        game.apply(game.bot_move("heuristic", seed=step))
        step += 1


@pytest.mark.parametrize("name", GAMES)
def test_a_seat_state_is_not_a_spectators(name: str) -> None:
    game = bot_game(name, 3, 5, moves=3)
    seat = state_of(game, 1)
    assert seat["spectator"] is False and seat["seat"] == 1 and seat["hand"]
    full = state_of(game, None)
    assert full["spectator"] is False and full["hands"] is not None
    # public=True wins over a seat: nothing of seat 1's hand
    public = state_of(game, 1, public=True)
    assert public["seat"] is None and public["hand"] == []


def test_a_public_note_reaches_every_seat_and_spectators() -> None:
    game = bot_game("head", 3, 5, moves=2)
    b = builder(game)
    kinds = [{"kind": "bot", "name": "x"}] * 3
    private = (2, {"type": "bot_fallback", "player": 1, "bot": "x", "reason": "timeout",
                   "played_by": "heuristic"})  # fmt: skip
    shown = (2, {"type": "stand_in", "player": 2, "public": True, "text": "x"})
    notes = [private, shown]

    def types(seat: int | None, public: bool = False) -> list[str]:
        state = b.build(game, seat, seat_kinds=kinds, seed=None, notes=notes, since=0,
                        public=public)  # fmt: skip
        return [e["type"] for e in state["events"] if e["type"] in ("bot_fallback", "stand_in")]

    assert types(1) == ["bot_fallback", "stand_in"]
    assert types(0) == ["stand_in"]
    assert types(None, public=True) == ["stand_in"]


# ---- built positions (the engine's snapshots) --------------------------------------------------

NEW_ENGINE = "rank" in panda_core.make("year", players=3, seed=1).cards()[0]
needs_catalogue = pytest.mark.skipif(
    not NEW_ENGINE, reason="the extension predates cards()' rank/symbols: rebuild it"
)
RANKS = ["3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2"]  # S-1.2


def position(
    preset: str,
    hand: list[int],
    blue: list[int],
    to_beat: dict[str, Any] | None = None,
    players: int = 5,
) -> AnyGame:
    """A climbing game where seat 0 holds ``hand`` (``blue`` of it blue) and is to move: leading,
    or following seat 1's ``to_beat`` (the snapshot's form, docs/climb_interface.md §6.1)."""
    snap = panda_core.make(preset, players=players, seed=1).snapshot()
    hands, pile = snap["hands"], snap["draw_pile"]
    wanted = set(hand) | set(to_beat["cards"] if to_beat else [])
    for held in [*hands, pile]:
        held[:] = [c for c in held if c not in wanted]
    pile.extend(hands[0])
    hands[0] = sorted(hand)
    snap["blue"] = sorted(blue)
    snap["current_player"] = snap["starter"] = 0
    played: list[list[int]] = [[] for _ in range(players)]
    if to_beat is not None:
        played[1] = list(to_beat["cards"])
        snap["trick"] = {"leader": 1, "to_beat": to_beat, "holder": 1, "passed": [],
                         "played": played}  # fmt: skip
    else:
        snap["trick"] = {"leader": 0, "to_beat": None, "holder": None, "passed": [],
                         "played": played}  # fmt: skip
    return panda_core.ClimbGame.from_snapshot(snap)


def texts(state: dict[str, Any]) -> dict[str, str]:
    """The legal moves' texts by notation."""
    return {m["notation"]: m["text"] for m in state["legal"]}


WO8, ME3, EA4, EA5, EA6, WO4, WO5, FI8, EA2, MEA, EAK = 31, 52, 14, 15, 16, 27, 28, 5, 25, 63, 23


@needs_catalogue
def test_s4_plays_say_what_they_are() -> None:
    """S-4.1–S-4.4, S-4.6: the issue's examples, from move_info's classification; Wo8 shows its
    blue face 3 (S-2.2), Fi8 its blue 2 + wild."""
    game = position("year", [WO8, ME3, EA4, EA6, WO5, FI8, EA2, MEA, WO4, EA5, 69], [WO8, FI8, MEA])
    said = texts(state_of(game, 0))
    assert said["set Wo8+Me3"] == "pair of 3s"
    assert said["run Ea4+Ea6+Wo5"] == "run 4-5-6"
    assert said["single Wo8"] == "single 3 (Wood, blue)"
    assert said["single Ea4"] == "single 4 (Earth, white)"
    assert said["set Fi8 as 2"] == "pair of 2s (wild as 2)"
    # S-4.5: four 2s led are a set, not a bomb
    assert said["set Fi8+Ea2+MeA as 2"] == "four 2s (wild as 2)"
    assert said["formation Ea4+Ea5+Wo4+Wo5"] == "formation 4-4-5-5"
    assert said["discard_element Me!"] == "discard the metal element card"  # S-6.5


@needs_catalogue
def test_s4_5_s5_2_a_bomb_and_a_blue_single_following() -> None:
    """S-4.5 / S-5.2: following, four 2s are a bomb; Ea4 blue shows 8 + panda (S-2.2)."""
    single_k = {"player": 1, "kind": "single", "cards": [EAK], "named": [], "rank": 10,
                "units": 1, "length": 1, "copies": 1, "has_blue": False}  # fmt: skip
    game = position("year", [FI8, EA2, MEA, EA4, WO5], [FI8, MEA, EA4], to_beat=single_k)
    state = state_of(game, 0)
    said = texts(state)
    assert said["bomb Fi8+Ea2+MeA as 2"] == "bomb: four 2s (wild as 2)"
    assert "single Ea4" not in said  # blue Ea4 is an 8: it does not beat a K
    assert state["table"]["to_beat"] == "single K (Earth, white) by seat 1 (bot1): EaK"
    # a position without its log: the play on the table is said from the play to beat
    assert state["table"]["plays"][0]["describe"] == "single K (Earth, white)"
    lower = position("year", [EA4, WO5], [EA4], to_beat={**single_k, "cards": [WO5 - 1],
                     "rank": 1})  # fmt: skip
    assert texts(state_of(lower, 0))["single Ea4"] == "single 8 (Earth, blue)"


@needs_catalogue
def test_s6_event_lines_and_the_play_on_the_table_use_the_same_words() -> None:
    """S-6.1: the event line and the table say the play, with its cards beside it."""
    game = position("year", [WO8, ME3, EA4], [WO8])
    game.apply("set Wo8+Me3")
    mine = state_of(game, 0)
    theirs = state_of(game, 2)
    assert [e["text"] for e in mine["events"][-2:]] == [
        "you play a pair of 3s: Wo8 Me3",
        "you: bamboo +1 (score 1)",  # blue Wo8's bamboo (S-7.1)
    ]
    move = next(e for e in theirs["events"] if e["type"] == "move")
    assert move["text"] == "seat 0 (bot0) plays a pair of 3s: Wo8 Me3"
    assert theirs["table"]["to_beat"] == "pair of 3s by seat 0 (bot0): Wo8 Me3"
    assert theirs["table"]["plays"][0]["describe"] == "pair of 3s"
    assert theirs["last_move"]["text"] == "seat 0 (bot0) plays a pair of 3s: Wo8 Me3"


@needs_catalogue
def test_s8_2_after_a_wind_to_beat_names_the_player_of_the_play() -> None:
    """S-8.2 (spin): the centre wind (Earth, condition single) makes seat 0 the holder; the play
    to beat stays seat 1's, and the table says both."""
    single = {"player": 1, "kind": "single", "cards": [WO5], "named": [], "rank": 2,
              "units": 1, "length": 1, "copies": 1, "has_blue": False}  # fmt: skip
    game = position("spin", [EA4, 66], [], to_beat=single)
    state = state_of(game, 0)
    said = texts(state)
    assert said["element Ea!"] == "play the centre wind card"
    rules = {m["notation"]: m["rule"] for m in state["legal"]}
    assert rules["element Ea!"] == (
        "S-5.3 / S-8 a wind card whose condition holds for the play to beat"
    )
    assert rules["discard_element Ea!"] == "S-6.5 discard a wind card; your turn goes on"
    game.apply("element Ea!")
    table = state_of(game, 2)["table"]
    assert table["to_beat"] == (
        "single 5 (Wood, white) by seat 1 (bot1): Wo5; seat 0 (bot0) holds the trick"
    )
    assert not any("mood" in n for n in table["notes"])  # S-7.6: spin ignores the mood


@needs_catalogue
@pytest.mark.parametrize("preset", ["year", "spin"])
def test_s2_3_s8_card_help_names_the_condition_in_the_presets_own_words(preset: str) -> None:
    """S-2.3 / S-8.1 / S-8.2 / S-12: an element card in year (its number, wins the trick), a wind
    card in spin (its wind, holds the trick); never the other preset's words."""
    game = panda_core.make(preset, players=4, seed=3)
    book = CardBook(game)
    earth = book.card(66)["help"]
    if preset == "year":
        assert earth.startswith("earth element card (number 2, S-3.2): may be played on a play")
        assert "a single (S-2.3, S-5.3)" in earth and "S-8.1" in earth
        assert not any(w in earth for w in ("centre", "wind", "S-8.2"))
    else:
        assert earth.startswith("centre wind card: may be played on a play that is a single")
        assert "hold the trick" in earth and "S-8.2" in earth
        assert "element" not in earth and "S-8.1" not in earth
    assert "S-8.3" in earth and "S-6.5" in earth


@needs_catalogue
def test_s1_6_s7_card_help_says_both_faces_and_the_symbols_effects() -> None:
    """S-1.4, S-1.6, S-7.1–S-7.4: the face now, the other face, each symbol's effect by preset."""
    year = CardBook(panda_core.make("year", players=4, seed=3))
    flip = CardBook(panda_core.make("year", players=4, seed=3, panda_mood="flip"))
    spin = CardBook(panda_core.make("spin", players=4, seed=3))
    assert year.card(EA4, "white")["help"] == (
        "earth 4: shows its white face, 4. Its blue face: 8 + panda (panda: you take 1 point "
        "from the player whose play you beat, S-7.2)."
    )
    assert "turn one white card of your hand blue, S-7.3" in flip.card(EA4, "blue")["help"]
    assert (
        "steal 1 point from an opponent you choose (never above 19), S-7.4"
        in (spin.card(EA4, "blue")["help"])
    )
    assert (
        "shows its blue face, 2 + wild (wild: a unit of the rank you name, S-4.6)"
        in (year.card(FI8, "blue")["help"])
    )
    assert "J J (drop: two units of one rank, never a bomb, S-4.5)" in year.card(39)["help"]
    assert "bamboo: +1 point (never above 19), S-7.1" in spin.card(WO8, "white")["help"]
    assert "bamboo: +1 point, S-7.1" in year.card(WO8, "white")["help"]


@needs_catalogue
def test_s9_2_s10_the_summary_takes_each_presets_numbers_from_its_rules() -> None:
    """S-9.2 (year's cap 7, none in spin), S-10.1 / S-10.2 (15, 20), S-7.6."""
    presenter = spec("year").presenter()
    year = presenter.summary(panda_core.make("year", players=3, seed=1).rules)
    spin = presenter.summary(panda_core.make("spin", players=3, seed=1).rules)
    assert "(at most 7)" in year and "reaches 15" in year and "element card" in year
    assert "(no cap)" in spin and "at most 7" not in spin and "20 by showing out" in spin
    assert "wind card" in spin and "element" not in spin.split("\n", 1)[1]
    assert "at most 7" not in presenter.summary()  # without rules: no preset's number


# ---- Panda Head -------------------------------------------------------------------------------


def head_line(event: dict[str, Any], viewer: int | None = 1) -> str:
    game = panda_core.make("head", players=3, seed=3)
    from panda_core.table.names import SeatNames

    names = SeatNames(["bot0", "bot1", "bot2"], viewer)
    return str(spec("head").presenter().describe(event, CardBook(game), names))


def test_h6_drowsy_and_pooped_say_what_happened_to_the_score() -> None:
    """H-6.1 / H-6.2: the threshold from the rules, the score before and after."""
    drowsy = {"type": "drowsy", "player": 0, "score_before": 35, "score": 0}
    pooped = {"type": "pooped", "player": 0, "score": 23}
    assert head_line(drowsy) == (
        "seat 0 (bot0) is Drowsy: over 21 for the first time, score 35 back to 0 (H-6.1)"
    )
    assert head_line(drowsy, viewer=0).startswith("you are Drowsy: over 21")
    assert head_line(pooped) == (
        "seat 0 (bot0) is Pooped: over 21 again, out of the game (score 23, H-6.2)"
    )
    end = {"type": "round_end", "round": 1, "scores": [0, 3, 9]}
    assert head_line(end) == "hand 2 over; scores: seat 0 (bot0) 0, you 3, seat 2 (bot2) 9"


def test_h6_a_hand_summary_names_drowsy_and_pooped() -> None:
    """H-5 / H-6: the round text of a hand that made a seat Drowsy and another Pooped."""
    from panda_core.table.names import SeatNames

    result = {"hand": 1, "last_pile_winner": 0, "deltas": [22, 0, 0], "scores": [0, 30, 4],
              "new_drowsy": [0], "new_pooped": [1]}  # fmt: skip
    text = spec("head").presenter().round_text(result, SeatNames(["a", "b", "c"], 2))
    assert text == (
        "hand 2: last pile to seat 0 (a); seat 0 (a) +22; seat 0 (a) is Drowsy: score back to 0; "
        "seat 1 (b) is Pooped: out of the game; scores: seat 0 (a) 0, seat 1 (b) 30, you 4"
    )


def test_h3_h4_head_moves_and_plays_keep_their_descriptions() -> None:
    """H-3 / H-4: the moves' words, groups in one order (Pandas, with a Bamboo, Big Panda,
    Bamboo alone) and their rule."""
    for seed in range(30):
        game = bot_game("head", 3, seed, moves=seed % 7)
        state = state_of(game, game.current_player)
        for m in state["legal"]:
            assert m["text"].split(" ", 1)[0] in ("Panda", "Big", "Bamboo"), m
            assert m["group"]["label"] in ("Pandas", "with a Bamboo", "Big Panda", "Bamboo alone")
            assert m["rule"].startswith("H-")
        orders = [m["group"]["order"] for m in state["legal"]]
        assert orders == sorted(orders) or len(set(orders)) > 1
        for play in state["table"]["plays"]:
            assert play["describe"].endswith(f"= {play['value']})") or play["describe"] == (
                f"Panda {play['value']}"
            )


# ---- invariants over whole seeded games -------------------------------------------------------

TEXT_KEYS = frozenset({"text", "describe", "to_beat", "help", "title", "label", "rule", "notes"})
BAD = ("[", "]", "{", "}", "None", "card(s)", "'")
ONE_PLURAL = re.compile(r"(?<![\d-])1 (cards|points)\b")
HEAD_WORDS = ("Panda", "Big", "Bamboo")


def shown_texts(value: Any, key: str | None = None) -> list[str]:
    """Every text a state shows a person (not the raw view, notations or card tokens)."""
    if isinstance(value, dict):
        return [t for k, v in value.items() if k != "view" for t in shown_texts(v, k)]
    if isinstance(value, list):
        return [t for v in value for t in shown_texts(v, key)]
    if isinstance(value, str) and key in TEXT_KEYS:
        return [value]
    return []


def check_combo_words(text: str, combo: dict[str, Any], kind: str) -> None:
    """The description agrees with the engine's classification (S-4), read with S-1.2's rank
    names written here independently of the engine."""
    rank, units, length = combo["rank"], combo["units"], combo["length"]
    ranks = "-".join(RANKS[r] for r in range(rank - length + 1, rank + 1))
    if kind == "single":
        assert text.startswith(f"single {RANKS[rank]} ("), (text, combo)
    elif kind == "set":
        head = f"pair of {RANKS[rank]}s" if units == 2 else f"{RANKS[rank]}s"
        assert head in text and (units == 2 or text.split()[0] != "pair"), (text, combo)
    elif kind == "bomb":
        assert text.startswith("bomb: ") and f" {RANKS[rank]}s" in text, (text, combo)
    elif kind == "run":
        assert text.startswith(f"run {ranks}"), (text, combo)
    elif kind == "formation":
        run = "-".join(r for r in ranks.split("-") for _ in range(combo["copies"]))
        assert text.startswith(f"formation {run}"), (text, combo)
    named = combo.get("named") or []
    if named:
        assert f"as {', '.join(RANKS[r] for r in named)})" in text, (text, combo)


def check_state(game: AnyGame, state: dict[str, Any], name: str) -> None:
    for text in shown_texts(state):
        assert text.strip(), state
        assert not any(bad in text for bad in BAD), text
        assert not ONE_PLURAL.search(text), text
    labels: dict[str, int] = {}
    for m in state["legal"]:
        first = m["text"].split(" ", 1)[0]
        if name == "head":
            assert first in HEAD_WORDS, m
        else:
            from panda_core.table.climb_text import KIND_WORDS

            assert first in KIND_WORDS or first in (
                "three", "four", "five", "six", "seven", "eight"
            ), m  # fmt: skip
        assert isinstance(m["group"]["order"], int) and m["group"]["label"]
        assert labels.setdefault(m["group"]["label"], m["group"]["order"]) == m["group"]["order"]
        assert m["rule"] and all(c["help"] for c in m["cards"])
    if name != "head" and state["legal"]:
        moves = game.legal_moves()
        for m in state["legal"]:
            move = moves[m["index"]]
            combo = game.move_info(move)["combo"]
            if combo is not None:
                check_combo_words(m["text"], combo, move.kind)
    events = state["events"]
    log = state["log"]
    if events:
        assert log[0]["seqs"][0] == 0 and log[-1]["seqs"][1] == len(events) - 1
        assert [g["current"] for g in log] == [False] * (len(log) - 1) + [True]
        for a, b in itertools.pairwise(log):
            assert b["seqs"][0] == a["seqs"][1] + 1
    assert len(state["seat_status"]) == game.players
    for status in state["seat_status"]:
        words = [s["word"] for s in status]
        assert not ("Drowsy" in words and "Pooped" in words)
    seqs = {e["seq"] for e in events}
    assert all(e["seq"] in seqs for e in state["consequences"])
    # The story fields show only cards the seat's own log showed it (S-11, H-2).
    told = card_ids_in({"events": events, "hand": state["hand"], "hands": state["hands"]})
    assert card_ids_in({"x": [state["last_trick"], state["consequences"]]}) <= told
    last = state["last_trick"]
    if last is not None:
        assert last["title"] and last["text"] and isinstance(last["plays"], list)
        at = max(i for i, g in enumerate(log) if g["title"] == last["title"])
        deals = [i for i, g in enumerate(log) if g["title"].startswith(("round", "hand"))]
        assert not deals or deals[-1] < at  # never a trick of a round dealt again since
    if game.is_over:
        places = state["places"]
        assert places[0]["place"] == 1 and game.winner in places[0]["seats"]
        assert sorted(s for p in places for s in p["seats"]) == list(range(game.players))
        assert [p["place"] for p in places] == sorted(p["place"] for p in places)
    else:
        assert state["places"] is None


def play_checked(name: str, players: int, seed: int, every: int, most: int | None) -> None:
    game = panda_core.make(name, players=players, seed=seed)
    step = 0
    while not game.is_over and (most is None or step < most):
        if step % every == 0:
            seat = game.current_player
            check_state(game, state_of(game, seat), name)
            public = state_of(game, None, public=True)
            check_state(game, public, name)
            assert not hidden_cards_shown(public, game, SPECTATOR)
        game.apply(game.bot_move("heuristic", seed=seed + step))
        step += 1
    for seat in (0, None):
        check_state(game, state_of(game, seat), name)


@needs_catalogue
@pytest.mark.parametrize("name", GAMES)
def test_every_text_of_a_game_start_reads_as_words(name: str) -> None:
    """No Python repr, no "1 cards", every move described from its classification (S-4, H-3)."""
    play_checked(name, 4, 17, every=1, most=60)


@needs_catalogue
@pytest.mark.slow
@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("players", [2, 3, 5])
def test_every_text_of_whole_games_reads_as_words(name: str, players: int) -> None:
    play_checked(name, players, 100 + players, every=7, most=None)
    if name == "year":
        game = panda_core.make(name, players=players, seed=7, panda_mood="flip")
        step = 0
        while not game.is_over:
            if step % 5 == 0:
                check_state(game, state_of(game, game.current_player), name)
            game.apply(game.bot_move("heuristic", seed=1))
            step += 1


@needs_catalogue
def test_s7_3_s7_4_flip_and_steal_choices_are_said() -> None:
    """S-7.3 (year, mood flip): the cards turned blue; S-7.4 (spin): the seat stolen from."""
    snap_game = position("year", [EA4, WO5, ME3], [EA4])
    snap = snap_game.snapshot()
    snap["panda_mood"] = "flip"
    flip = panda_core.ClimbGame.from_snapshot(snap)
    said = texts(state_of(flip, 0))
    assert said["single Ea4 flip Wo5"] == "single 8 (Earth, blue), turn Wo5 blue"
    assert said["single Ea4"] == "single 8 (Earth, blue)"
    spin = position("spin", [EA4, WO5], [EA4])
    snap = spin.snapshot()
    snap["scores"] = [0, 2, 0, 0, 0]
    said = texts(state_of(panda_core.ClimbGame.from_snapshot(snap), 0))
    assert said["single Ea4 steal 1"] == "single 8 (Earth, blue), steal from seat 1 (bot1)"


def test_h3_3_the_pile_to_beat_names_its_highest_play_and_player() -> None:
    """H-3.3: the highest value wins, ties to the last one played."""
    for seed in range(40):
        game = bot_game("head", 4, seed, moves=2)
        table = state_of(game, game.current_player)["table"]
        plays = table["plays"]
        if len(plays) == 2:
            top = max(p["value"] for p in plays)
            last = [p for p in plays if p["value"] == top][-1]
            assert table["to_beat"].startswith(f"highest value {top}: {last['describe']} by ")
            return
    pytest.fail("no pile with two plays in 40 seeds")


@needs_catalogue
@pytest.mark.parametrize("name", GAMES)
def test_a_replay_log_reads_as_words(name: str) -> None:
    """``panda-core replay --log``: every line of a whole game, for everyone and for one seat."""
    from panda_core.table import Replay

    record = bot_game(name, 3, 23).to_json()
    for seat in (None, 1):
        lines = Replay(record, seat=seat, names=["Ada", "heuristic", "random"]).log()
        assert lines
        for line in lines:
            assert line.strip() and not any(bad in line for bad in BAD), line
            assert not ONE_PLURAL.search(line), line
        said = (" Panda ",) if name == "head" else (" plays a ", " plays three ", " pair of ")
        assert any(word in line for line in lines for word in said)


@needs_catalogue
def test_s9_2_s12_table_help_is_each_presets_own() -> None:
    """S-9.2 / S-10 / S-12: ``Table.help`` (the terminal's ``?``, the page's help) in spin says no
    cap, 20 points and wind cards; in year, at most 7, 15 points and element cards."""
    from panda_core.table import Table

    spin = Table("spin", seats=["human", "heuristic"], seed=4)
    spin.advance()
    text = spin.help(0)
    assert "(no cap)" in text and "at most 7" not in text and "20 by showing out" in text
    assert "wind card" in text and "element" not in text.split("\n", 1)[1]
    year = Table("year", seats=["human", "heuristic"], seed=4).help(0)
    assert "(at most 7)" in year and "reaches 15" in year and "wind" not in year
