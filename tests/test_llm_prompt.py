"""The prompt of an LLM seat (panda_core.llm.prompt): built from the seat's own words, the legal
moves listed in notation and numbered, the answer's format stated; the retries' words; and the
prompts shown in docs/llm_agents.md are the ones the code writes."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

import panda_core
import panda_core.llm.prompt as prompt_module
from panda_core.llm.answer import read_answer
from panda_core.llm.prompt import (
    ANSWER_FORMAT,
    MAX_EVENT_LINES,
    _latest,
    decision,
    game_name_of,
    illegal_retry,
    unparsable_retry,
)

DOCS = Path(__file__).resolve().parent.parent / "docs" / "llm_agents.md"


def position(game: str, players: int, seed: int, moves: int) -> Any:
    g = panda_core.make(game, players, seed=seed)
    for _ in range(moves):
        g.apply(g.bot_move("heuristic", seed=1))
    return g


def seat_of(game: Any) -> Any:
    make = getattr(game, "seat", None)
    return make(game.current_player) if callable(make) else game


@pytest.mark.parametrize("game", ["head", "year", "spin"])
def test_the_prompt_lists_the_legal_moves_in_notation_numbered(game: str) -> None:
    g = position(game, 3, 4, 12)
    p = g.current_player
    d = decision(seat_of(g), p)
    notations = [m.notation for m in g.legal_moves()]
    assert d.notations == notations
    for k, notation in enumerate(notations, start=1):
        assert re.search(rf"^  #{k}: {re.escape(notation)}$", d.user, re.MULTILINE)
    assert d.user.endswith(f"Answer with one line: {ANSWER_FORMAT}")
    assert ANSWER_FORMAT in d.system
    assert f"You are seat {p}." in d.user and "It is your turn." in d.user
    # every listed move reads back as itself, by notation and by number
    for k, notation in enumerate(notations):
        assert read_answer(f"MOVE: {notation}", d.notations).index == k
        assert read_answer(f"MOVE: #{k + 1}", d.notations).index == k
    assert d.messages() == [
        {"role": "system", "content": d.system},
        {"role": "user", "content": d.user},
    ]


@pytest.mark.parametrize("game", ["head", "year", "spin"])
def test_the_hand_shown_is_the_seats_own(game: str) -> None:
    g = position(game, 4, 2, 9)
    p = g.current_player
    tokens = {c["id"]: c["token"] for c in g.cards()}
    line = next(x for x in decision(g, p).user.splitlines() if x.startswith("Your hand"))
    shown = re.findall(r"\[([^]:,]+)", line)
    assert shown == [tokens[c] for c in g.view(p)["hand"]]
    assert line.startswith(f"Your hand ({len(shown)}): ")


def test_the_game_is_named_and_its_rules_summarised() -> None:
    for game, title, rule in [
        ("head", "Panda Head", "H-3.1"),
        ("year", "Year of the Panda", "S-4"),
        ("spin", "Panda Spin", "S-10"),
    ]:
        g = position(game, 3, 1, 0)
        assert game_name_of(g) == game
        d = decision(g, g.current_player)
        assert d.system.startswith(f"You play one seat of {title}")
        assert rule in d.system
        assert d.user.startswith(f"{title}, 3 players.")


def test_the_system_message_is_the_same_at_every_decision() -> None:
    g = panda_core.make("year", 3, seed=3)
    systems = set()
    while g.current_player is not None:
        systems.add(decision(g, g.current_player).system)
        g.apply(g.bot_move("heuristic", seed=3))
    assert len(systems) == 1


def test_a_seat_not_to_move_is_shown_no_moves() -> None:
    g = position("head", 3, 1, 3)
    other = (g.current_player + 1) % 3
    d = decision(g, other)
    assert d.notations == [] and "Your legal moves (0):\n  (none)" in d.user


def test_finished_rounds_are_summarised() -> None:
    g = panda_core.make("head", 3, seed=2)
    while not g.round_results:
        g.apply(g.bot_move("heuristic", seed=2))
    d = decision(g, g.current_player)
    assert "Finished hands:\n  hand 1: last pile to " in d.user
    assert "Hand 2. It is your turn." in d.user


def test_a_long_log_keeps_its_latest_lines_and_says_so() -> None:
    lines = [f"  line {i}" for i in range(MAX_EVENT_LINES + 5)]
    kept = _latest(lines, MAX_EVENT_LINES, "events")
    assert kept[0] == "  (5 earlier events left out)"
    assert kept[1:] == lines[5:]
    assert _latest(lines[:3], MAX_EVENT_LINES, "events") == lines[:3]


def test_the_retries_say_what_was_wrong() -> None:
    g = position("spin", 3, 1, 5)
    d = decision(g, g.current_player)
    illegal = illegal_retry("'single Zz9'", d.listing)
    assert illegal.startswith("'single Zz9' is not one of your legal moves.")
    assert d.listing in illegal and ANSWER_FORMAT in illegal
    unparsable = unparsable_retry("it has no line starting with 'MOVE:'")
    assert "could not be read: it has no line starting with 'MOVE:'" in unparsable
    assert ANSWER_FORMAT in unparsable


DOC_POSITIONS = {"head": ("head", 3, 7, 22), "year": ("year", 3, 7, 14), "spin": ("spin", 4, 7, 5)}
"""The positions whose prompts docs/llm_agents.md shows (game, players, seed, heuristic moves)."""


def doc_blocks() -> dict[str, str]:
    text = DOCS.read_text(encoding="utf-8")
    found = re.findall(r"<!-- prompt:(\w+) -->\n```text\n(.*?)\n```", text, re.DOTALL)
    return dict(found)


@pytest.mark.parametrize("game", ["head", "year", "spin"])
def test_the_prompts_in_the_docs_are_the_codes(game: str) -> None:
    blocks = doc_blocks()
    g = position(*DOC_POSITIONS[game])
    d = decision(g, g.current_player)
    assert blocks.get(game) == f"[system]\n{d.system}\n\n[user]\n{d.user}", (
        f"docs/llm_agents.md's {game} prompt is out of date: regenerate it with "
        "tests/test_llm_prompt.py::doc_prompt"
    )


def doc_prompt(game: str) -> str:
    """The text docs/llm_agents.md shows for ``game`` (run this to regenerate it)."""
    g = position(*DOC_POSITIONS[game])
    d = decision(g, g.current_player)
    return f"<!-- prompt:{game} -->\n```text\n[system]\n{d.system}\n\n[user]\n{d.user}\n```"


@pytest.mark.parametrize("game", ["head", "year", "spin"])
@pytest.mark.slow
def test_the_prompt_is_the_same_from_a_seat_rebuilt_from_protocol_messages(game: str) -> None:
    """A contained LLM bot (one behind the protocol's adapter) is shown the same prompt, at
    every decision of a complete game."""
    remote = pytest.importorskip("panda_core.protocol.remote_seat")
    from panda_core._registry import spec
    from panda_core.protocol.messages import decision_message, start_message

    g = panda_core.make(game, 3, seed=2)
    seats: dict[int, list[Any]] = {}
    decisions = 0
    asks: list[str] = []

    def answer(message: dict[str, Any]) -> Any:  # the engine's side of an ask
        asks.append(message["ask"])
        assert message["ask"] == "determinize"
        return g.seat(g.current_player).determinize(message["seed"]).snapshot()

    prompt_module._DECKS.clear()  # the rebuilt seat's first prompt reads the deck by an ask
    while (p := g.current_player) is not None:
        seat = g.seat(p)
        if p not in seats:
            start = start_message(
                game_id="g",
                game=game,
                rules=spec(game).rules_dict(g.rules),
                players=3,
                seat=p,
                seed=5,
                move_time_ms=1000,
            )
            seats[p] = [remote.open_seat(start, answer), 0]
        rebuilt, seen = seats[p]
        events = seat.events()
        rebuilt._decide(
            decision_message(
                game_id="g",
                decision=decisions,
                seat=seat,
                events=events[seen:],
                time_left_ms=1000,
            )
        )
        seats[p][1] = len(events)
        assert decision(rebuilt).messages() == decision(seat).messages()
        assert len(asks) == 1  # the deck once, then kept
        g.apply(g.bot_move("heuristic", seed=2))
        decisions += 1
    assert decisions > 50
