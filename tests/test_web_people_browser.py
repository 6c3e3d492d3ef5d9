"""Two people and a bot at one table in two real browsers (``panda-core serve``, issue 22).

Marked slow (whole games): a game of each kind with two headless Chromium pages and a bot at one
table; one page closes in the middle (the stand-in takes the seat after the hold), the
spectators' link opens in its place, then the seat's link again (the seat comes back), and
everything the server sent is checked. In a file of its own so that a parallel run
(``--dist loadfile``) can put it on another worker than the API tests of
``tests/test_web_people.py``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from browser_support import LiveServer, Page, chromium, tid
from hidden_cards import secret_cards
from panda_core.table import Replay
from people_support import SharedTable, check_table_traffic, poll

GAMES = ("head", "year", "spin")


# ---- real browsers (slow: whole games) -----------------------------------------------------------


@pytest.fixture(scope="module")
def live_server() -> Iterator[Any]:
    server = LiveServer(bot_delay=0).start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def two_browsers() -> Iterator[tuple[Any, Any]]:
    first = chromium()
    try:
        second = chromium()
        try:
            yield first, second
        finally:
            second.quit()
    finally:
        first.quit()


@pytest.mark.slow
@pytest.mark.parametrize("game", GAMES)
def test_two_people_and_a_bot_finish_a_game_in_two_browsers(
    game: str, live_server: Any, two_browsers: tuple[Any, Any]
) -> None:
    """Ada makes the table in the lobby and takes her seat, Bob opens his invite; they play.
    Bob's page closes in the middle: after the hold the stand-in plays his seat (Ada is told,
    the log says so), Bob opens the spectators' link meanwhile (no hand), then his own link
    again (his seat is his again); they finish the game. Nothing the server sent showed a seat
    another seat's cards or a spectator a hidden card."""
    ada, bob = (Page(d, live_server) for d in two_browsers)
    shared = SharedTable(ada, bob, game, hold=1.0)
    assert shared.presence(1) == "here"
    shared.play([ada, bob], moves=6)
    ada.screenshot(f"people-{game}-3-playing")

    bob.driver.get("about:blank")  # Bob's page is gone: his seat is held, then stood in for
    poll(lambda: shared.presence(1) == "stand_in", "the stand-in taking Bob's seat")
    ada.wait(lambda d: "Bob is away" in shared.message(ada), "the notice to Ada")
    shared.play([ada], moves=4)
    lines = [e["text"] for e in shared.watched()["events"] if e["type"] == "stand_in"]
    assert lines and lines[-1] == "the heuristic bot plays for seat 1 (Bob) while away"
    ada.screenshot(f"people-{game}-4-bob-away")

    bob.driver.get(shared.spectator_link)  # Bob watches meanwhile: no hand, no moves
    bob.wait(
        lambda d: bob.js("return document.querySelector('[data-testid=table-view]')"
                         "?.dataset.seat") == "spectator",
        "the spectator's view",
    )  # fmt: skip
    bob.find("board")
    assert not bob.all('[data-testid="hand"] [data-card-id]') and not bob.all(tid("move"))
    bob.screenshot(f"people-{game}-5-spectator")

    bob.driver.get(shared.bob_link)  # and back to his seat: it is his again
    poll(lambda: shared.presence(1) == "here", "Bob back at his seat")
    ada.wait(lambda d: "Bob" in shared.message(ada), "the news that Bob is back")
    shared.play([ada, bob])
    ada.screenshot(f"people-{game}-6-ada-over")
    bob.screenshot(f"people-{game}-7-bob-over")

    record = live_server.get_text(
        f"/api/tables/{shared.table}/record?spectator={shared.spectator_token}"
    )
    seen = check_table_traffic(live_server.traffic, shared.table, record)
    assert seen.get("0", 0) > 3 and seen.get("1", 0) > 3 and seen.get("spectator", 0) > 3, seen
    final = Replay(record).position(len(Replay(record)) - 1)
    for page, seat in ((ada, 0), (bob, 1)):
        assert not page.shown_card_ids() & secret_cards(final, seat)
    assert shared.clicks > 5
