"""No prompt an LLM seat is sent holds a card it may not know: checked on every request the
scripted server received, at every decision of complete games of all three games, against the
real game at that decision.

Three checks per request (tests/hidden_cards.py computes the secret cards independently of the
filters under test):

* the system message is the same at every decision of a game (it holds the rules and the format,
  nothing of the deal; its examples name cards such as ``Ea6``);
* the climbing games' cards have tokens of their own (``Ea6``): no token of a secret card appears
  in the prompt or the retries' messages;
* the prompt's picture of the position now (everything but the log of the round) is the same for
  games the seat cannot tell apart: ``determinize`` gives complete games consistent with what the
  seat saw, with other hidden cards, and their prompts' pictures must match the real one's (this
  covers Panda Head, whose tokens are values that many cards share);
* the log of the round is the seat's own filtered events (``events(seat)``), which carry no other
  seat's private card.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

import panda_core
from hidden_cards import private_events_leak, secret_cards
from llm_server import Answer, Received, ScriptedServer, legal_moves_of, serve
from panda_core.llm import LlmBot
from panda_core.llm.prompt import decision

GAMES = ["head", "year", "spin"]


def seat_of(game: Any, player: int) -> Any:
    make = getattr(game, "seat", None)
    return make(player) if callable(make) else game.clone()


def picture(prompt: str) -> str:
    """The prompt without its history: the finished rounds' results (public) and the log of the
    round (the lines from "Finished" or "What happened" to the legal moves), which a sampled game
    does not have."""
    lines = prompt.splitlines()
    start = next(
        i for i, line in enumerate(lines) if line.startswith(("Finished ", "What happened this"))
    )
    end = next(i for i, line in enumerate(lines) if line.startswith("Your legal moves"))
    return "\n".join(lines[:start] + lines[end:])


def log_lines(prompt: str) -> list[str]:
    lines = prompt.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("What happened this"))
    end = next(i for i, line in enumerate(lines) if line.startswith("Your legal moves"))
    return lines[start + 1 : end]


def tokens_shown(text: str, tokens: set[str]) -> set[str]:
    """The ``tokens`` that appear in ``text`` as words (``Ea6`` in ``[Ea6:6]`` or
    ``set Ea6+Wo6``; not in ``Ea60``)."""
    return tokens & set(re.findall(r"[A-Za-z0-9!]+", text))


class Varied:
    """A scripted model that plays a seeded choice of the legal moves, and every 7th answer
    names a move that is not legal (so retries' messages are checked too)."""

    def __init__(self) -> None:
        self.count = 0

    def __call__(self, received: Received) -> Answer:
        self.count += 1
        moves = legal_moves_of(received.prompt)
        if self.count % 7 == 0:
            return Answer("MOVE: not-a-move")
        return Answer(f"MOVE: {moves[(self.count * 2654435761) % len(moves)]}")


def play_and_check(game_name: str, players: int, seed: int, server: ScriptedServer) -> int:
    """One complete game, every seat the LLM bot; every request checked. Returns decisions."""
    game = panda_core.make(game_name, players, seed=seed)
    bot = LlmBot("scripted", base_url=server.base_url, backoff=0.0, max_retries=3)
    bot.reset(seed)
    book = {c["id"]: c["token"] for c in game.cards()}
    decisions = 0
    systems: set[str] = set()
    while (p := game.current_player) is not None:
        before = len(server.requests)
        move = bot(seat_of(game, p), p)
        sent = server.requests[before:]
        assert sent, "every decision asks the model"
        secret = secret_cards(game, p)
        real = decision(game, p)
        pictures = {picture(decision(game.determinize(p, k), p).user) for k in (1, 2)}
        for received in sent:
            assert received.messages[:2] == real.messages(), "the prompt is the seat's"
            systems.add(received.messages[0]["content"])
            if game_name != "head":
                text = "\n".join(m["content"] for m in received.messages[1:])
                shown = tokens_shown(text, {book[c] for c in secret})
                assert not shown, f"decision {decisions}: secret cards {shown} in a prompt"
        assert pictures == {picture(real.user)}, f"decision {decisions}: the picture differs"
        assert not private_events_leak(game.events(p), p)
        assert log_lines(real.user), "the log is shown"
        game.apply(move)
        decisions += 1
    assert len(systems) == 1, "the system message is the same at every decision: no state"
    return decisions


@pytest.mark.parametrize(
    ("game_name", "players", "seeds"),
    [
        ("head", 3, [1]),
        ("year", 3, [1]),
        ("spin", 3, [7]),
        pytest.param("head", 4, [2, 3], marks=pytest.mark.slow),
        pytest.param("year", 4, [2, 3], marks=pytest.mark.slow),
        pytest.param("spin", 4, [2, 3], marks=pytest.mark.slow),
        pytest.param("year", 5, [4], marks=pytest.mark.slow),
        pytest.param("head", 2, [5], marks=pytest.mark.slow),
    ],
)
@pytest.mark.slow
def test_no_prompt_holds_a_hidden_card(game_name: str, players: int, seeds: list[int]) -> None:
    with serve(default=Varied()) as server:
        for seed in seeds:
            assert play_and_check(game_name, players, seed, server) > 20
        retries = [r for r in server.requests if len(r.messages) > 2]
    assert retries, "retries were checked too"


def test_the_secret_check_sees_a_leak() -> None:
    """The check itself: a prompt that named another seat's card would be caught."""
    game = panda_core.make("year", 3, seed=1)
    p = game.current_player
    assert p is not None
    book = {c["id"]: c["token"] for c in game.cards()}
    other = game.snapshot()["hands"][(p + 1) % 3]
    leaked = decision(game, p).user + f"\nseat {(p + 1) % 3} holds {book[other[0]]}"
    assert tokens_shown(leaked, {book[c] for c in secret_cards(game, p)}) == {book[other[0]]}
    det = game.determinize(p, 1)
    assert det.snapshot()["hands"] != game.snapshot()["hands"], "determinize hides other cards"
