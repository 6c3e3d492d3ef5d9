"""One conformance suite for every game (pgx ``api_test`` style): the same assertions on every
game of the registry (``panda_core.GAMES``), for 2 to 5 players and several seeds, through
``panda_core.make`` and the verbs of ``panda_core.Game`` only (docs/game_api.md). A new game is
tested by its registry entry alone."""

from __future__ import annotations

import json
import random
from typing import Any

import numpy as np
import pytest

import panda_core
from panda_core import Game, GameOverError, IllegalMoveError, make

GAMES = list(panda_core.GAMES)
PLAYERS = [2, 3, 4, 5]
SEEDS = [0, 7, 2**64 - 1]
CASES = [(g, p, s) for g in GAMES for p in PLAYERS for s in SEEDS]


def case_id(case: tuple[str, int, int]) -> str:
    return f"{case[0]}-{case[1]}p-seed{case[2]}"


@pytest.fixture(params=CASES, ids=case_id)
def case(request: pytest.FixtureRequest) -> tuple[str, int, int]:
    return request.param  # type: ignore[no-any-return]


def play(game: Game[Any], moves: int, seed: int = 0) -> int:
    """Play up to ``moves`` random legal action ids; return how many were played."""
    rng = random.Random(seed)
    played = 0
    while played < moves and not game.is_over:
        game.apply(rng.choice(game.legal_actions()))
        played += 1
    return played


def finish(game: Game[Any], seed: int = 0) -> int:
    played = play(game, 1_000_000, seed)
    assert game.is_over
    return played


def notations(game: Game[Any]) -> list[str]:
    return [str(m.notation) for m in game.legal_moves()]


# ---- construction and the verbs ---------------------------------------------------------------


def test_make_builds_the_named_game(case: tuple[str, int, int]) -> None:
    name, players, seed = case
    game = make(name, players=players, seed=seed)
    assert isinstance(game, Game)
    assert game.players == players
    assert game.current_player in range(players)
    assert not game.is_over and game.winner is None
    assert game.scores == [0] * players
    # Before the first move the log holds only the opening deal (its cards filtered per seat).
    assert game.history and not any(e["type"] == "move" for e in game.history)
    assert game.round_results == []
    spec = panda_core._registry.spec(name)
    assert isinstance(game, spec.game_class) and isinstance(game.rules, spec.rules_class)
    assert game.num_actions == spec.num_actions
    assert make(name, players=players, seed=seed).snapshot() == game.snapshot()


def test_every_verb_has_its_documented_type(case: tuple[str, int, int]) -> None:
    name, players, seed = case
    game = make(name, players=players, seed=seed)
    play(game, 5, seed % 97)
    assert isinstance(game.players, int) and isinstance(game.is_over, bool)
    assert isinstance(game.num_actions, int) and game.num_actions > 0
    assert all(isinstance(s, int) for s in game.scores)
    moves = game.legal_moves()
    assert moves and all(type(m) is type(moves[0]) for m in moves)
    assert all(isinstance(a, int) for a in game.legal_actions())
    mask = game.legal_action_mask()
    assert mask.dtype == np.bool_ and mask.shape == (game.num_actions,)
    assert isinstance(game.result(), dict) and isinstance(game.round_results, list)
    assert isinstance(game.snapshot(), dict) and isinstance(game.to_json(), str)
    for seat in range(players):
        assert isinstance(game.view(seat), dict)
        obs = game.observation(seat)
        assert obs.dtype == np.float32 and obs.shape == (spec_of(name).observation_size,)
        assert isinstance(game.events(seat), list)
    for bad in (players, -1):
        with pytest.raises(panda_core.ArgumentError):
            game.view(bad)
        with pytest.raises(panda_core.ArgumentError):
            game.observation(bad)


def spec_of(name: str) -> panda_core._registry.GameSpec:
    return panda_core._registry.spec(name)


def test_legal_actions_are_the_mask_and_in_the_action_space(case: tuple[str, int, int]) -> None:
    name, players, seed = case
    game = make(name, players=players, seed=seed)
    rng = random.Random(seed)
    while not game.is_over:
        actions = game.legal_actions()
        assert actions == sorted(actions) and set(actions) <= set(range(game.num_actions))
        assert actions == [int(i) for i in np.flatnonzero(game.legal_action_mask())]
        for action in actions:
            assert game.action_index(game.move_for_action(action)) == action
        game.apply(rng.choice(actions))
    assert game.legal_actions() == [] and game.legal_moves() == []
    assert not game.legal_action_mask().any()


# ---- apply --------------------------------------------------------------------------------------


def test_apply_by_move_id_and_notation_reach_the_same_state(case: tuple[str, int, int]) -> None:
    name, players, seed = case
    by_id = make(name, players=players, seed=seed)
    by_move, by_notation = by_id.clone(), by_id.clone()
    rng = random.Random(seed)
    for _ in range(60):
        if by_id.is_over:
            break
        action = rng.choice(by_id.legal_actions())
        move = by_move.move_for_action(action)
        events = by_id.apply(action)
        assert events[0]["type"] == "move" and events[0]["move"] == move.notation
        assert by_move.apply(move) == events
        assert by_notation.apply(move.notation) == events
        assert by_id.snapshot() == by_move.snapshot() == by_notation.snapshot()


def test_apply_returns_the_move_event_and_history_records_it(case: tuple[str, int, int]) -> None:
    name, players, seed = case
    game = make(name, players=players, seed=seed)
    log: list[Any] = list(game.history)  # the opening deal
    moves = 0
    while not game.is_over:
        seat = game.current_player
        events = game.apply(random.Random(moves).choice(game.legal_actions()))
        assert events[0] == {**events[0], "type": "move", "player": seat}
        assert all(isinstance(e["type"], str) for e in events)
        json.dumps(events.to_list())  # plain data
        assert list(events) == events.to_list() == events and len(events) >= 1
        log += events
        moves += 1
    assert game.history == log == game.events()
    assert sum(e["type"] == "move" for e in game.history) == moves


def test_what_apply_returned_never_changes_whoever_holds_it(case: tuple[str, int, int]) -> None:
    """A game fills a ``MoveEvents`` it returned again at a later move only when nobody else
    holds it (docs/game_api.md): one kept, one held only until the next move, one dropped at
    once, one held by a copy of the game, each still reads its own move's events at the end."""
    name, players, seed = case
    game = make(name, players=players, seed=seed)
    rng = random.Random(seed)
    kept: list[tuple[Any, list[Any]]] = []
    previous = None
    twin = None
    moves = 0
    while not game.is_over and moves < 120:
        start = len(game.history)
        action = rng.choice(game.legal_actions())
        if moves % 3 == 0:
            events = game.apply(action)
            kept.append((events, game.history[start:]))
        elif moves % 3 == 1:
            previous = game.apply(action)  # replaces the one held since the last move
            kept.append((previous, game.history[start:]))
        else:
            game.apply(action)  # dropped at once: its object may be filled again
        if moves == 10:
            twin = game.clone()
        if twin is not None and not twin.is_over:
            twin_start = len(twin.history)
            twin_events = twin.apply(twin.legal_actions()[0])
            kept.append((twin_events, twin.history[twin_start:]))
        moves += 1
    assert kept
    for events, expected in kept:
        assert events == expected and list(events) == expected and len(events) == len(expected)


# What another seat must never read in a seat's log: the card drawn (H-4.3, S-8.1, S-8.2) and the
# cards dealt (H-2.3, S-3.4). Each seat's own entries stay.
PRIVATE_FIELDS = {"draw": ("card", "cards"), "deal": ("card", "cards")}


def hidden_from(event: dict[str, Any], seat: int) -> list[Any]:
    """The values of ``event`` that ``seat`` may not see (empty for a public event)."""
    if event["type"] == "deal" and "hands" in event:  # one event for every seat's hand
        return [h for p, h in enumerate(event["hands"]) if p != seat and h is not None]
    if event.get("player") == seat:
        return []
    return [event[k] for k in PRIVATE_FIELDS.get(event["type"], ()) if event.get(k) is not None]


def test_a_seats_event_log_never_shows_a_hidden_card(case: tuple[str, int, int]) -> None:
    name, players, seed = case
    game = make(name, players=players, seed=seed)
    finish(game, seed % 11)
    full = game.history
    hidden_in_full = 0
    for seat in range(players):
        log = game.events(seat)
        assert [e["type"] for e in log] == [e["type"] for e in full]  # redacted, not dropped
        for mine, truth in zip(log, full, strict=True):
            assert hidden_from(mine, seat) == [], (seat, mine)
            if not hidden_from(truth, seat):
                assert mine == truth  # public events are shown whole
            hidden_in_full += len(hidden_from(truth, seat))
    assert hidden_in_full > 0  # the unfiltered log does hold hidden cards: the filter did work


def test_a_finished_game_refuses_moves(case: tuple[str, int, int]) -> None:
    name, players, seed = case
    game = make(name, players=players, seed=seed)
    finish(game, seed % 13)
    before = game.snapshot()
    for move in (0, "pass", "7"):
        with pytest.raises(GameOverError):
            game.apply(move)
    assert game.snapshot() == before
    with pytest.raises(GameOverError):
        game.bot_move()


def test_an_illegal_move_is_refused_and_changes_nothing(case: tuple[str, int, int]) -> None:
    name, players, seed = case
    game = make(name, players=players, seed=seed)
    play(game, 3, seed % 11)
    before, history = game.snapshot(), game.history
    illegal = [a for a in range(game.num_actions) if a not in game.legal_actions()]
    for bad in [*illegal[:5], game.num_actions, -1, 10**30, "no such move"]:
        with pytest.raises(IllegalMoveError) as err:
            game.apply(bad)
        assert err.value.legal
        with pytest.raises(IllegalMoveError):
            game.move_for_action(bad) if not isinstance(bad, str) else game.action_index(bad)
    for wrong_type in (None, 1.5, True, [0]):
        with pytest.raises(TypeError):
            game.apply(wrong_type)  # type: ignore[arg-type]
    assert game.snapshot() == before and game.history == history


# ---- copies and records ---------------------------------------------------------------------


def test_clone_is_independent(case: tuple[str, int, int]) -> None:
    name, players, seed = case
    game = make(name, players=players, seed=seed)
    play(game, 10, seed % 7)
    twin = game.clone()
    assert twin.snapshot() == game.snapshot() and twin.history == game.history
    before = game.snapshot()
    play(twin, 20, 1)
    assert game.snapshot() == before and twin.snapshot() != before


def same_future(a: Game[Any], b: Game[Any], seed: int) -> None:
    """``a`` and ``b`` have the same legal moves now and after the same random moves."""
    rng = random.Random(seed)
    for _ in range(40):
        assert notations(a) == notations(b)
        assert a.legal_actions() == b.legal_actions()
        if a.is_over:
            break
        action = rng.choice(a.legal_actions())
        assert a.apply(action) == b.apply(action)
    assert a.snapshot() == b.snapshot()


def test_json_round_trip_has_the_same_future(case: tuple[str, int, int]) -> None:
    name, players, seed = case
    game = make(name, players=players, seed=seed)
    play(game, 25, seed % 5)
    again = type(game).from_json(game.to_json())
    assert again.snapshot() == game.snapshot() and again.history == game.history
    assert again.rules == game.rules
    same_future(game, again, seed)


def test_snapshot_round_trip_has_the_same_future(case: tuple[str, int, int]) -> None:
    name, players, seed = case
    game = make(name, players=players, seed=seed)
    play(game, 25, seed % 5)
    again = type(game).from_snapshot(game.snapshot())  # type: ignore[arg-type]
    assert again.snapshot() == game.snapshot()
    same_future(game, again, seed)


def test_round_results_and_result_agree_with_the_end(case: tuple[str, int, int]) -> None:
    name, players, seed = case
    game = make(name, players=players, seed=seed)
    finish(game, seed % 17)
    result = game.result()
    assert result["is_over"] and result["winner"] == game.winner is not None
    assert result["scores"] == game.scores
    assert result["rounds_played"] == len(game.round_results) >= 1
    assert game.round_results[-1]["scores"] == game.scores


# ---- hidden information and bots --------------------------------------------------------------


def test_bot_move_returns_a_legal_move(case: tuple[str, int, int]) -> None:
    name, players, seed = case
    game = make(name, players=players, seed=seed)
    for k in range(30):
        if game.is_over:
            break
        for bot in ("random", "heuristic"):
            move = game.bot_move(bot, seed=k)
            assert move in game.legal_moves()
            assert game.bot_move(bot, seed=k) == move  # seeded
        game.apply(game.bot_move("random", seed=k))
    with pytest.raises(panda_core.RulesError):
        make(name, players=players, seed=seed).bot_move("no_such_bot")


def test_determinize_keeps_what_the_player_knows(case: tuple[str, int, int]) -> None:
    name, players, seed = case
    game = make(name, players=players, seed=seed)
    play(game, 12, seed % 3)
    for seat in range(players):
        sample = game.determinize(seat, seed=seat)
        assert type(sample) is type(game)
        assert sample.view(seat)["hand"] == game.view(seat)["hand"]
        assert (sample.observation(seat) == game.observation(seat)).all()
        assert notations(sample) == notations(game) if game.current_player == seat else True


def test_random_games_finish(case: tuple[str, int, int]) -> None:
    name, players, seed = case
    game = make(name, players=players, seed=seed)
    assert finish(game, seed) == sum(e["type"] == "move" for e in game.history)


# ---- make() ------------------------------------------------------------------------------------


def test_make_takes_rules_objects_or_options() -> None:
    assert make("head", bust_threshold=15).rules.bust_threshold == 15  # type: ignore[union-attr]
    rules = panda_core.HeadRules(poor_panda=False)
    assert make("head", rules=rules).rules == rules
    assert make("year", panda_mood="flip").rules.panda_mood == "flip"  # type: ignore[union-attr]
    assert make("spin").rules.preset == "spin"  # type: ignore[union-attr]
    year = panda_core.ClimbSettings(preset="year", first_player=1)
    assert make("spin", rules=year).rules.preset == "spin"  # type: ignore[union-attr]
    with pytest.raises(panda_core.RulesError, match="unknown game"):
        make("chess")
    with pytest.raises(panda_core.RulesError):
        make("year", preset="spin")
    with pytest.raises(panda_core.RulesError):
        make("head", rules=year)
    with pytest.raises(panda_core.RulesError):
        make("head", rules=rules, poor_panda=True)
    with pytest.raises(TypeError):
        make("head", rules="pile_sum")
    with pytest.raises(panda_core.RulesError, match="2 to 5"):
        make("year", players=6)
    with pytest.raises(panda_core.RulesError, match="seed"):
        make("head", seed=-1)
