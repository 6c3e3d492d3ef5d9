"""Take docs/img/play_web.png (1280×800) and docs/img/play_web_phone.png (412×915), the pictures
of docs/play_web.md, from the real page in Debian's headless Chromium:

    python docs/img/make_play_web.py

It starts the web app (``panda_core.web.create_app``) on a free loopback port, opens a seeded
4-seat Year of the Panda table, plays seat 0 through the JSON API (the first legal move, which
passes when it may, so tricks end) until seat 0 is to move with several plays on the table, a
finished trick beside it and a choice of moves, then screenshots the page at both sizes. The
pictures are reduced to 256 colours (Pillow), to stay small. The game is seeded, so they change
only when the engine, the table's words or the page do.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent / "tests"))

from browser_support import LiveServer, Page, chromium, tid  # noqa: E402

SEED = 5
SIZES = {"play_web.png": (1280, 800), "play_web_phone.png": (412, 915)}


def wanted(state: dict[str, Any]) -> bool:
    """A position worth showing: seat 0 to move, two plays or more on the table, more than six
    moves to choose from and (on a server that sends it) a last trick."""
    plays = state["table"]["plays"]
    return (
        state["your_turn"]
        and len(plays) >= 2
        and len(state["legal"]) > 6
        and state.get("last_trick", True) is not None
    )


def main() -> None:
    import httpx

    server = LiveServer(bot_delay=0).start()
    driver = chromium()
    try:
        origin = {"Origin": server.url}
        made = httpx.post(
            f"{server.url}/api/tables",
            json={"game": "year", "players": 4, "seat": 0, "bots": ["heuristic"] * 3, "seed": SEED},
            headers=origin,
        ).json()
        query = {"seat": 0, "token": made["token"]}
        for _ in range(400):
            state = httpx.get(f"{server.url}/api/tables/{made['table']}", params=query).json()
            if state["is_over"]:
                raise SystemExit("the game ended before a position worth showing")
            if not state["your_turn"]:
                time.sleep(0.02)
                continue
            if wanted(state):
                break
            move = state["legal"][0]["index"]
            httpx.post(
                f"{server.url}/api/tables/{made['table']}/moves",
                json={**query, "move": move},
                headers=origin,
            ).raise_for_status()
        page = Page(driver, server)
        for name, (width, height) in SIZES.items():
            page.resize(width, height)
            page.open(f"#table={made['table']}&seat=0&token={made['token']}")
            page.wait(lambda d: page.all(tid("move")), "the moves")
            shot = page.screenshot(f"docs-{name[:-4]}")
            from PIL import Image

            with Image.open(shot) as image:
                image.convert("RGB").quantize(colors=256).save(HERE / name, optimize=True)
            print(f"{HERE / name}: {(HERE / name).stat().st_size:,} bytes")
    finally:
        driver.quit()
        server.stop()


if __name__ == "__main__":
    main()
