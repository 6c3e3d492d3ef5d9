"""Draw docs/img/play_terminal.svg and docs/img/replay_terminal.svg from real games.

    python docs/img/make_play_terminal_svg.py

The screens are the ones ``panda-core play`` and ``panda-core replay`` draw (the same render
functions), recorded by rich at 80 columns and saved as SVG. The games are seeded, so the
pictures only change when the front-end or the engine does.
"""

from __future__ import annotations

import io
from pathlib import Path

from rich.console import Console
from rich.text import Text

from panda_core.table import Replay, Table
from panda_core.tui import render
from panda_core.tui.moves import MovePicker

HERE = Path(__file__).resolve().parent


def play_state() -> dict[str, object]:
    """A turn of Year of the Panda with a trick on the table and a blue card in the hand."""
    table = Table("year", players=3, seats=["human", "heuristic", "heuristic"], seed=7)
    table.advance()
    for _ in range(200):
        state = table.state(0)
        blue = any(c.get("face") == "blue" for c in state["hand"])
        if blue and state["table"]["plays"] and len(state["legal"]) > 4:
            return state
        table.play(0, table.state(0)["legal"][-1]["index"])  # the last move: often a pass
        table.advance()
    return table.state(0)


def save(screen: object, path: Path, title: str) -> None:
    console = Console(
        file=io.StringIO(),  # recorded only, not printed
        record=True,
        width=render.WIDTH,
        force_terminal=True,
        color_system="truecolor",
    )
    console.print(screen)
    console.print(Text("> "), end="")
    console.save_svg(str(path), title=title)
    print(f"wrote {path}")


def main() -> None:
    state = play_state()
    save(
        render.play_screen(state, MovePicker(state["legal"]), height=24),
        HERE / "play_terminal.svg",
        "panda-core play --game year --players 3",
    )
    table = Table("head", players=3, seats=["heuristic"] * 3, seed=5)
    table.advance()
    replay = Replay(table.record())
    frame = replay.frame(min(9, len(replay) - 1))
    save(
        render.frame_screen(frame, "all", height=24),
        HERE / "replay_terminal.svg",
        "panda-core replay",
    )


if __name__ == "__main__":
    main()
