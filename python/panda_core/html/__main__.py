"""``python -m panda_core.html RECORD OUT.html [--seat S]``: a record as one HTML file.

The file steps through the game as seat ``S`` saw it (without ``--seat``: every hand); it needs
no server and loads nothing (docs/notebooks.md).
"""

from __future__ import annotations

import argparse
import sys

from panda_core._core import PandaCoreError
from panda_core.table.replay import Replay


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m panda_core.html",
        description="Write a game record as one self-contained HTML replay file.",
    )
    parser.add_argument("record", metavar="RECORD", help="a game record (JSON)")
    parser.add_argument("out", metavar="OUT.html", help="the HTML file to write")
    parser.add_argument(
        "--seat", type=int, default=None, help="show only what this seat knew (default: all)"
    )
    parser.add_argument("--autoplay", action="store_true", help="start playing when opened")
    args = parser.parse_args(argv)
    try:
        replay = Replay.from_file(args.record, args.seat)
        path = replay.to_html(args.out, autoplay=args.autoplay)
    except (PandaCoreError, OSError) as err:
        print(f"panda_core.html: {err}", file=sys.stderr)
        return 2
    size = path.stat().st_size
    print(f"wrote {path} ({size:,} bytes, {len(replay)} frames)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
