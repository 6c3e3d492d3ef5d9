"""The browser front-end of ``panda-core serve`` in a real headless Chromium (Debian's, through
selenium): complete games of Panda Head, ``year`` and ``spin`` played by clicking the page's
legal-move buttons, a reload in the middle of a game, replays of a record from one seat (the
just-finished game and an uploaded file), and the no-hidden-card property checked on everything
the server sent to the page and on everything the page's DOM shows.

The server is the real app (``create_app(bot_delay=0, traffic=...)``) under uvicorn on
127.0.0.1; ``tests/browser_support.py`` starts it and the browser. Screenshots of each stage are
kept under ``$PANDA_ARTIFACTS/web`` (default ``test-artifacts/web``). Every wait is explicit and
bounded (``WebDriverWait``); a missing Chromium fails the tests with what to install.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pytest
from selenium.common.exceptions import StaleElementReferenceException

from browser_support import LiveServer, Page, chromium, tid
from hidden_cards import hidden_cards_shown, private_events_leak, secret_cards
from panda_core.table import Replay, Table

GAMES = ("head", "year", "spin")


@pytest.fixture(scope="module")
def server() -> Iterator[LiveServer]:
    live = LiveServer(bot_delay=0).start()
    try:
        yield live
    finally:
        live.stop()


@pytest.fixture(scope="module")
def driver() -> Iterator[Any]:
    browser = chromium()
    try:
        yield browser
    finally:
        browser.quit()


@pytest.fixture
def page(driver: Any, server: LiveServer) -> Page:
    return Page(driver, server)


# ---- what the page shows ---------------------------------------------------------------------


def event_count(page: Page) -> int:
    return int(page.js("return document.querySelectorAll('[data-testid=event]').length"))


def moves_played(page: Page) -> int:
    """Moves so far, read off the page's log (every move is public, so every seat logs it)."""
    return int(
        page.js("return document.querySelectorAll('[data-testid=event][data-type=move]').length")
    )


def my_turn_or_over(page: Page, after_events: int) -> str | None:
    """``"turn"`` when the page offers moves (and shows something newer than ``after_events``),
    ``"over"`` once the game-over summary is up, else None (keep waiting)."""
    found = page.js(
        """
        if (document.querySelector('[data-testid=game-over]')) return 'over';
        const status = document.querySelector('[data-testid=status]');
        const moves = document.querySelectorAll('[data-testid=move]');
        const events = document.querySelectorAll('[data-testid=event]').length;
        if (status && status.dataset.yourTurn === 'true' && moves.length && events > arguments[0])
          return 'turn';
        return null;
        """,
        after_events,
    )
    return str(found) if found else None


def hand_ids(page: Page) -> list[int]:
    ids = page.js(
        "return [...document.querySelectorAll('[data-testid=hand] [data-card-id]')]"
        ".map(e => e.dataset.cardId)"
    )
    return [int(i) for i in ids]


def assert_hand_shows(page: Page, cards: list[dict[str, Any]]) -> None:
    """The hand on the page is ``cards`` (the server's card dicts), each with its current face
    and its label as the accessible name."""
    shown = page.js(
        """return [...document.querySelectorAll('[data-testid=hand] [data-card-id]')].map(e =>
          [Number(e.dataset.cardId), e.dataset.face || null, e.getAttribute('aria-label')])"""
    )
    assert [s[0] for s in shown] == [c["id"] for c in cards]
    for (_, face, label), card in zip(shown, cards, strict=True):
        assert face == card["face"]
        assert label.startswith(card["label"])
        if card["face"] == "blue":
            assert card["face_label"] in label


def frame_counter(page: Page) -> tuple[int, int]:
    el = page.find("replay-frame")
    return int(el.get_attribute("data-frame")), int(el.get_attribute("data-frames"))


def wait_frame(page: Page, k: int) -> None:
    page.wait(lambda d: frame_counter(page)[0] == k, f"frame {k}")


# ---- the no-hidden-card check ----------------------------------------------------------------


@dataclass
class Seen:
    """What one page of one game showed: DOM card ids at known positions (moves so far)."""

    seat: int
    dom: list[tuple[int, set[int]]] = field(default_factory=list)

    def look(self, page: Page) -> None:
        self.dom.append((moves_played(page), page.shown_card_ids()))


def positions(record: str) -> Replay:
    return Replay(record)


def check_dom(seen: Seen, record: str) -> int:
    replay = positions(record)
    for k, ids in seen.dom:
        secret = secret_cards(replay.position(k), seen.seat)
        assert not ids & secret, f"the page showed hidden cards {ids & secret} after {k} moves"
    return len(seen.dom)


def check_traffic(server: LiveServer, records: dict[str, str]) -> int:
    """Every seat state and replay frame the server sent to a page, for a table or replay whose
    record is in ``records`` (keyed by table id or replay id): nothing the seat may not know."""
    replays = {key: positions(text) for key, text in records.items()}
    checked = 0
    for channel, path, value in server.messages():
        key = next((k for k in replays if f"/{k}" in path), None)
        if key is None:
            continue
        state = value.get("state") if channel == "ws" else value
        if not isinstance(state, dict) or "events" not in state:
            continue
        seat = state.get("seat")
        if seat is None:  # a full-information replay frame (the whole record is public to it)
            assert "frame" in state, f"a live state for no seat on {path}"
            continue
        k = (
            state["frame"]
            if "frame" in state
            else sum(e["type"] == "move" for e in state["events"])
        )
        game = replays[key].position(k)
        leaked = hidden_cards_shown(state, game, seat)
        assert not leaked, f"{channel} {path}: seat {seat} was sent hidden cards {leaked}"
        assert not private_events_leak(state["events"], seat), f"{channel} {path}: private event"
        checked += 1
    return checked


# ---- playing through the page ----------------------------------------------------------------


def start_from_lobby(page: Page, game: str, seed: int, rules: dict[str, str]) -> dict[str, str]:
    from selenium.webdriver.support.ui import Select

    page.open()
    Select(page.find("lobby-game")).select_by_value(game)
    Select(page.find("lobby-players")).select_by_value("2")
    Select(page.find("lobby-seat")).select_by_value("0")
    Select(page.find("lobby-bot-1")).select_by_value("heuristic")
    page.find("lobby-seed").send_keys(str(seed))
    for name, value in rules.items():
        box = page.find(f"lobby-rule-{name}")
        box.clear()
        box.send_keys(value)
    page.screenshot(f"{game}-1-lobby")
    page.find("lobby-start").click()
    page.find("table-view")
    params = page.hash_params()
    assert set(params) == {"table", "seat", "token"} and params["seat"] == "0"
    return params


def try_card_filter(page: Page) -> bool:
    """Click a hand card that some move uses: the moves left on show are those that use it."""
    every = page.js(
        "return [...document.querySelectorAll('[data-testid=move]')].map(b => b.dataset.cards)"
    )
    used = {c for cards in every for c in cards.split()}
    hand = [
        b
        for b in page.all(f"{tid('hand')} button[data-card-id]")
        if b.get_attribute("data-card-id") in used
    ]
    if len(every) < 2 or not hand:
        return False
    card = hand[0]
    cid = card.get_attribute("data-card-id")
    card.click()  # the hand redraws: look the card up again
    page.find("move-filter-clear")
    again = page.all(f'{tid("hand")} [data-card-id="{cid}"]')
    assert again and again[0].get_attribute("aria-pressed") == "true"
    shown = [b.get_attribute("data-cards").split() for b in page.all(tid("move"))]
    assert shown and all(cid in cards for cards in shown)
    assert len(shown) == sum(cid in cards.split() for cards in every)
    page.find("move-filter-clear").click()
    page.wait(lambda d: len(page.all(tid("move"))) == len(every), "every move again")
    return True


def refuse_then_type_a_move(page: Page) -> None:
    """A typed move the server refuses shows its message and changes nothing; a typed legal
    notation is played."""
    before = event_count(page)
    box = page.find("move-notation")
    box.send_keys("no such move")
    page.find("move-notation-play").click()
    message = page.find("message")
    page.wait(lambda d: message.is_displayed() and message.text.strip(), "the refusal")
    page.screenshot("refused-move")
    assert event_count(page) == before and my_turn_or_over(page, before - 1) == "turn"
    notation = page.all(tid("move"))[0].get_attribute("data-notation")
    box = page.find("move-notation")
    box.clear()
    box.send_keys(notation)
    page.find("move-notation-play").click()
    page.wait(lambda d: event_count(page) > before or page.all(tid("game-over")), "a typed move")
    assert not page.find("message").is_displayed()


def play_game(
    page: Page, seen: Seen, *, game: str, rng: random.Random, reload_after: int | None
) -> int:
    """Clicks legal-move buttons until the game-over summary shows; returns the clicks."""
    clicks = 0
    last_events = -1
    filtered = False
    shot_blue = False
    while True:
        after = last_events
        outcome = page.wait(lambda d, after=after: my_turn_or_over(page, after), "the seat's turn")
        if outcome == "over":
            return clicks
        seen.look(page)
        if not filtered:
            filtered = try_card_filter(page)
        if not shot_blue and page.all(f"{tid('hand')} [data-face=blue]"):
            shot_blue = bool(page.screenshot(f"{game}-2b-blue-card"))
        if clicks == 0:
            refuse_then_type_a_move(page)
            last_events = event_count(page) - 1  # the typed move was played: wait past it
            clicks += 1
            continue
        if reload_after is not None and clicks == reload_after:
            before = (page.hash_params(), event_count(page), hand_ids(page))
            page.screenshot("reload-before")
            page.driver.refresh()
            page.wait(lambda d: my_turn_or_over(page, -1) == "turn", "the table after a reload")
            after = (page.hash_params(), event_count(page), hand_ids(page))
            assert after == before, "a reload did not resume the same table and position"
            page.screenshot("reload-after")
        buttons = page.all(tid("move"))
        button = rng.choice(buttons)
        last_events = event_count(page)
        try:
            button.click()
        except StaleElementReferenceException:  # redrawn between the lookup and the click
            last_events = -1
            continue
        clicks += 1


def record_of(page: Page, server: LiveServer) -> str:
    href = page.find("download-record").get_attribute("href")
    url = urlparse(href)
    assert url.hostname == "127.0.0.1" and url.path.endswith("/record")
    return server.get_text(f"{url.path}?{url.query}")


# ---- the tests -------------------------------------------------------------------------------


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.slow
def test_a_person_plays_a_whole_game_and_replays_it(
    game: str, page: Page, server: LiveServer
) -> None:
    rules = {"bust_threshold": "12"} if game == "head" else {}
    params = start_from_lobby(page, game, seed=11 + GAMES.index(game), rules=rules)
    seen = Seen(seat=0)
    page.wait(lambda d: page.all(f"{tid('hand')} [data-card-id]"), "the hand")
    page.screenshot(f"{game}-2-table")
    rng = random.Random(game)
    clicks = play_game(page, seen, game=game, rng=rng, reload_after=3 if game == "head" else None)
    assert clicks > 3
    seen.look(page)
    summary = page.find("game-over")
    page.screenshot(f"{game}-3-game-over")

    record = record_of(page, server)
    parsed = json.loads(record)
    replay = Replay(record)
    final = replay.position(len(replay) - 1)
    assert final.is_over
    assert summary.get_attribute("data-winner") == str(final.winner)
    if final.winner == 0:
        assert "You win" in summary.text
    else:
        assert f"Seat {final.winner}" in summary.text
    if game == "head":
        assert parsed["rules"]["bust_threshold"] == 12  # the lobby's rule input reached the game
    # The table area, scores and hand sizes show the final position.
    scores = [page.find(f"score-{s}").text for s in range(2)]
    assert scores == [f"score {v}" for v in final.scores]

    # Replay the game just finished, as this seat saw it.
    page.find("replay-this-game").click()
    page.find("replay-view")
    rid = page.hash_params()["replay"]
    assert page.hash_params()["seat"] == "0"
    wait_frame(page, 0)
    assert frame_counter(page) == (0, len(replay))
    mine = replay.for_seat(0)
    assert hand_ids(page) == [c["id"] for c in mine.frame(0)["hand"]]
    page.find("replay-next").click()
    wait_frame(page, 1)
    page.find("replay-last").click()
    wait_frame(page, len(replay) - 1)
    assert_hand_shows(page, mine.frame(len(replay) - 1)["hand"])
    seen.dom.append((len(replay) - 1, page.shown_card_ids()))
    # Somewhere in the middle, with cards in the hand (a climbing hand may show blue faces).
    middle = len(replay) // 2
    page.js("location.hash = arguments[0]", f"#replay={rid}&seat=0&frame={middle}")
    wait_frame(page, middle)
    assert_hand_shows(page, mine.frame(middle)["hand"])
    seen.dom.append((middle, page.shown_card_ids()))
    page.screenshot(f"{game}-4-replay")

    assert check_dom(seen, record) >= 3
    assert check_traffic(server, {params["table"]: record, rid: record}) > clicks


@pytest.mark.slow
def test_an_uploaded_record_replays_from_a_seat(
    page: Page, server: LiveServer, tmp_path: Path
) -> None:
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import Select

    table = Table("spin", players=3, seats=["heuristic", "random", "heuristic"], seed=21)
    table.advance()
    record = table.record()
    path = tmp_path / "spin-game.json"
    path.write_text(record, encoding="utf-8")
    replay = Replay(record)
    n = len(replay)

    page.open()
    page.find("replay-file").send_keys(str(path))
    page.find("replay-view")
    wait_frame(page, 0)
    assert page.hash_params()["seat"] == "all"
    assert frame_counter(page) == (0, n)
    # Full information: every hand.
    for s in range(3):
        row = page.find(f"hands-{s}")
        ids = [
            int(e.get_attribute("data-card-id"))
            for e in row.find_elements("css selector", "[data-card-id]")
        ]
        assert ids == [c["id"] for c in replay.frame(0)["hands"][s]]

    Select(page.find("replay-seat")).select_by_value("1")
    page.wait(lambda d: page.hash_params().get("seat") == "1", "seat 1 chosen")
    seat1 = replay.for_seat(1)
    page.wait(
        lambda d: hand_ids(page) == [c["id"] for c in seat1.frame(0)["hand"]], "seat 1's hand"
    )
    assert not page.all(tid("hands-0")), "a seat's replay showed every hand"

    body = page.driver.find_element("css selector", "body")
    for k in (1, 2, 3):
        body.send_keys(Keys.ARROW_RIGHT)
        wait_frame(page, k)
    body.send_keys(Keys.ARROW_LEFT)
    wait_frame(page, 2)
    page.find("replay-prev").click()
    wait_frame(page, 1)
    page.find("replay-next").click()
    wait_frame(page, 2)
    assert_hand_shows(page, seat1.frame(2)["hand"])
    assert page.hash_params()["frame"] == "2"

    # Jump to the last round, then reload: the replay resumes at the same frame and seat.
    # The first frame of each round: the first position whose round counter says so (the
    # position right after a round's last move already shows the next round's deal).
    rounds = [replay.frame(k)["round"] for k in range(n)]
    starts = [0] + [k for k in range(1, n) if rounds[k] != rounds[k - 1]]
    page.wait(lambda d: len(page.all(f"{tid('replay-round')} option")) == len(starts), "rounds")
    Select(page.find("replay-round")).select_by_value(str(len(starts) - 1))
    wait_frame(page, starts[-1])
    page.screenshot("upload-replay-seat-1")
    page.driver.refresh()
    wait_frame(page, starts[-1])
    assert page.hash_params()["seat"] == "1"
    assert hand_ids(page) == [c["id"] for c in seat1.frame(starts[-1])["hand"]]

    seen = Seen(seat=1, dom=[(starts[-1], page.shown_card_ids())])
    check_dom(seen, record)
    # The check can fail: a card of another hand, planted among those the page shows, is caught.
    planted = next(c["id"] for c in replay.frame(starts[-1])["hands"][0] if c["face"] != "blue")
    with pytest.raises(AssertionError, match="hidden cards"):
        check_dom(Seen(seat=1, dom=[(starts[-1], page.shown_card_ids() | {planted})]), record)
    rid = page.hash_params()["replay"]
    assert check_traffic(server, {rid: record}) >= 5


@pytest.mark.slow
def test_the_lobby_offers_a_bot_for_every_other_seat_and_the_rules(
    page: Page, server: LiveServer
) -> None:
    from selenium.webdriver.support.ui import Select

    catalogue = server.get("/api/games")
    page.open()
    for game in catalogue["games"]:
        Select(page.find("lobby-game")).select_by_value(game["name"])
        for name, value in game["rules"].items():
            box = page.find(f"lobby-rule-{name}")
            if isinstance(value, bool):
                assert box.is_selected() == value
            else:
                assert box.get_attribute("value") == ("" if value is None else str(value))
    Select(page.find("lobby-players")).select_by_value("4")
    Select(page.find("lobby-seat")).select_by_value("2")
    page.wait(lambda d: not page.all(tid("lobby-bot-2")), "no bot for your seat")
    for s in (0, 1, 3):
        options = [o.get_attribute("value") for o in page.all(f"{tid(f'lobby-bot-{s}')} option")]
        assert options == catalogue["bots"]
    page.screenshot("lobby-4-players")


def test_bad_records_and_closed_tables_show_the_servers_message(page: Page, tmp_path: Path) -> None:
    bad = tmp_path / "not-a-record.json"
    bad.write_text('{"format": "panda-core/head", "version": 1, "players": 9}', encoding="utf-8")
    page.open()
    page.find("replay-file").send_keys(str(bad))
    message = page.find("message")
    page.wait(lambda d: message.is_displayed() and "422" in message.text, "the upload refused")
    assert page.find("lobby")  # still in the lobby
    page.screenshot("upload-refused")
    page.find("message-close").click()
    page.wait(lambda d: not message.is_displayed(), "the message dismissed")

    page.open("#table=no-such-table&seat=0&token=x")
    page.wait(lambda d: re.search(r"40[34]", page.find("message").text), "the table refused")
