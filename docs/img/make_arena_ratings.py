"""Draw docs/img/arena_ratings.png and print the table of docs/rate_your_bot.md, from the
guide's own arena:

    python docs/img/make_arena_ratings.py

It is ``panda-core arena -e mybot:Wobbly,heuristic,random,ismcts:100 --deals 200`` (the guide's
command, with the guide's example bot), run in this process. The arena is seeded, so the picture
only changes when the bots, the engine or the report do.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent / "examples"))

from panda_core.arena import arena  # noqa: E402


def main() -> None:
    with tempfile.TemporaryDirectory() as out:
        report = arena(
            ["mybot:Wobbly", "heuristic", "random", "ismcts:100"], deals=200, workers=0, out=out
        )
        report.plot(HERE / "arena_ratings.png")
    print(report.table())


if __name__ == "__main__":
    main()
