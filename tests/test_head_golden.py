"""Golden playthroughs (OpenSpiel style): complete seeded games written as text under
tests/golden/. Any change in dealing, legal moves, scoring or notation shows up as a diff.

Both the Rust engine and the oracle must reproduce every file. After an intended change of the
rules or the format, regenerate and review the diff:
``PANDA_REGEN_GOLDEN=1 python -m pytest tests/test_head_golden.py``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from panda_core import HeadGame, HeadRules, head
from panda_core.oracle.head import HeadRules as OracleRules
from panda_core.oracle.head import OracleHeadGame

GOLDEN = Path(__file__).with_name("golden")
CASES: dict[str, tuple[int, int, dict[str, Any]]] = {
    "head_2p_own_card_seed7": (2, 7, {"last_pile_scoring": "own_card"}),
    "head_4p_default_seed2026": (4, 2026, {}),
    "head_5p_lowest_only_regular_seed99": (
        5,
        99,
        {"lowest_only_when_cannot_follow": True, "special_cards": False, "first_dealer": 3},
    ),
}


def cards(ids: list[int]) -> str:
    return " ".join(head.card_name(c) for c in ids)


def playthrough(game: Any, legal: Any, players: int, seed: int, rules: dict[str, Any]) -> str:
    """The text of a game where step k plays legal[(7k) mod len(legal)]."""
    lines = [f"# Panda Head, {players} players, seed {seed}, rules {sorted(rules.items())}"]
    step = 0
    hand = -1
    while True:
        snap = game.snapshot()
        if snap["is_over"]:
            break
        if snap["hand_number"] != hand:
            hand = snap["hand_number"]
            lines.append(f"== hand {hand} dealer {snap['dealer']} scores {snap['scores']}")
            for seat, held in enumerate(snap["hands"]):
                if held:
                    lines.append(f"   seat {seat}: {cards(held)}")
            lines.append(f"   draw pile: {cards(snap['draw_pile'])}")
        actions = legal(game)
        action = actions[(7 * step) % len(actions)]
        names = " ".join(head.action_notation(a) for a in actions)
        lines.append(
            f"{step:4d} pile {snap['pile_number'] + 1} seat {snap['current_player']}: "
            f"[{names}] -> {head.action_notation(action)}"
        )
        game.apply(action)
        after = game.snapshot()
        if after["hand_results"] and len(after["hand_results"]) > len(snap["hand_results"]):
            r = after["hand_results"][-1]
            lines.append(
                f"   hand result: pile 7 won by {r['last_pile_winner']}, deltas {r['deltas']}, "
                f"scores {r['scores']}, drowsy+ {r['new_drowsy']}, pooped+ {r['new_pooped']}"
            )
        step += 1
    lines.append(
        f"== over: winner {snap['winner']}, scores {snap['scores']}, pooped {snap['pooped']}"
    )
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("name", sorted(CASES))
def test_h_r_golden_playthrough_rust_and_oracle(name: str) -> None:
    players, seed, rules = CASES[name]
    rules = {**rules}
    rust_text = playthrough(
        HeadGame(players, seed, HeadRules(**rules)),
        lambda g: g.legal_actions(),
        players,
        seed,
        rules,
    )
    oracle_text = playthrough(
        OracleHeadGame.new(players, seed, OracleRules(**rules)),
        lambda g: g.legal_actions(),
        players,
        seed,
        rules,
    )
    path = GOLDEN / f"{name}.txt"
    if os.environ.get("PANDA_REGEN_GOLDEN"):
        path.write_text(rust_text)
    assert rust_text == oracle_text
    assert path.read_text() == rust_text, f"{path} differs: regenerate only for an intended change"
