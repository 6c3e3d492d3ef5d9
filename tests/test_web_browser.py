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


def check_the_servers_words(page: Page) -> None:
    """On a live table, as the server sends it: the moves in groups of non-decreasing order,
    each with words and the chips of its cards; every hand card with its help tooltip."""
    groups = page.js(
        """return [...document.querySelectorAll('[data-testid=move-group]')].map(g =>
          [Number(g.dataset.order), g.dataset.label, g.querySelectorAll('[data-testid=move]')
            .length])"""
    )
    assert groups and [g[0] for g in groups] == sorted(g[0] for g in groups), groups
    assert all(label and n for _, label, n in groups)
    buttons = page.js(
        """return [...document.querySelectorAll('[data-testid=move]')].map(b =>
          [b.dataset.cards, [...b.querySelectorAll('.chip')].map(c => c.dataset.cardId).join(' '),
           b.querySelector('.move__text').textContent.trim()])"""
    )
    for cards, chips, text in buttons:
        assert chips == cards and text, (cards, chips, text)
    helps = page.js(
        """return [...document.querySelectorAll('[data-testid=hand] [data-card-id]')].map(c =>
          [c.dataset.help, (document.getElementById(c.getAttribute('aria-describedby')) || {})
            .textContent])"""
    )
    assert helps and all(flag == "true" and text for flag, text in helps), helps


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
        if clicks == 0:
            check_the_servers_words(page)
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
    # The replay keeps the table's names: the bot's seat is named, in the seat choice and on
    # the board.
    options = [o.text for o in page.all(f"{tid('replay-seat')} option")]
    assert options[2] == "as seat 1 (heuristic) saw it"
    assert "Seat 1 (heuristic)" in page.find("seat-1").text
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


# ---- the board's layouts and what it shows (issue 22) -------------------------------------------

SIZES = ((1280, 800), (1024, 768), (412, 915))
"""The screens the page must fit: two laptop windows and a phone (412 px wide)."""


def _api_post(server: LiveServer, path: str, body: dict[str, Any]) -> Any:
    import httpx

    answer = httpx.post(server.url + path, json=body, headers={"Origin": server.url}, timeout=20)
    assert answer.status_code < 300, answer.text
    return answer.json()


def _my_state(server: LiveServer, made: dict[str, Any]) -> dict[str, Any]:
    """The seat's state once it is to move (the bots move at once: ``bot_delay=0``)."""
    import time

    query = f"seat={made['seat']}&token={made['token']}"
    deadline = time.monotonic() + 20
    while True:
        state: dict[str, Any] = server.get(f"/api/tables/{made['table']}?{query}")
        if state["your_turn"] or state["is_over"] or time.monotonic() > deadline:
            return state
        time.sleep(0.02)  # polling the server's table over HTTP, not the page


def a_table_in_play(server: LiveServer, game: str, moves: int) -> tuple[dict[str, Any], Any]:
    """A 4-seat table (3 for ``spin``) where seat 0 has made ``moves`` moves (the first legal
    move, a pass when it may: tricks end and a last trick exists) and is to move again, with
    the most moves on offer its position gives; ``(table, state)``."""
    players = 3 if game == "spin" else 4
    made = _api_post(
        server,
        "/api/tables",
        {
            "game": game,
            "players": players,
            "seat": 0,
            "bots": ["heuristic"] * (players - 1),
            "seed": 5,
        },
    )
    state = _my_state(server, made)
    for _ in range(moves):
        assert state["your_turn"], "the game ended before the position wanted"
        body = {"seat": 0, "token": made["token"], "move": state["legal"][0]["index"]}
        _api_post(server, f"/api/tables/{made['table']}/moves", body)
        state = _my_state(server, made)
    return made, state


def boxes(page: Page, *names: str) -> dict[str, dict[str, float]]:
    """The bounding boxes of ``data-testid`` elements (the first of each), and the viewport's."""
    found: dict[str, dict[str, float]] = page.js(
        """const out = {viewport: {top: 0, left: 0, bottom: innerHeight, right: innerWidth,
             width: innerWidth, height: innerHeight,
             scrollWidth: document.documentElement.scrollWidth}};
        for (const name of arguments[0]) {
          const el = document.querySelector(`[data-testid="${name}"]`);
          if (!el) continue;
          const b = el.getBoundingClientRect();
          out[name] = {top: b.top, left: b.left, bottom: b.bottom, right: b.right,
                       width: b.width, height: b.height};
        }
        return out;""",
        list(names),
    )
    return found


def inside(box: dict[str, float], view: dict[str, float], what: str) -> None:
    assert box["left"] >= -0.5 and box["right"] <= view["right"] + 0.5, (
        f"{what} sticks out sideways: {box} in {view}"
    )
    assert box["top"] >= -0.5 and box["bottom"] <= view["bottom"] + 0.5, (
        f"{what} is not on screen: {box} in {view}"
    )


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.slow
def test_the_hand_and_the_moves_fit_every_screen(game: str, page: Page, server: LiveServer) -> None:
    """At 1280x800 and 1024x768 the hand and the legal moves (the list, its first move, the
    notation box) are on screen without scrolling, and nothing sticks out sideways; at 412 px
    (a phone) nothing sticks out sideways and the hand and the first moves come after at most
    a short scroll. Screenshots of each size are kept."""
    made, state = a_table_in_play(server, game, moves=2)
    assert state["your_turn"] and state["legal"]
    try:
        for width, height in SIZES:
            page.resize(width, height)
            page.open(f"#table={made['table']}&seat=0&token={made['token']}")
            page.wait(lambda d: page.all(tid("move")), "the moves")
            page.wait_quiet()
            check_fits(page, width, height, len(state["hand"]))
            page.screenshot(f"layout-{game}-{width}x{height}")
    finally:
        page.resize(1280, 900)


def check_fits(page: Page, width: int, height: int, hand_size: int) -> None:
    """The layout checks of one screen: nothing wider than the screen; on a laptop screen the
    hand, the moves, the first move and the notation box inside the window; on a phone the
    hand soon after the top and the moves right after the hand."""
    found = boxes(page, "hand", "moves", "move", "move-notation", "table-area", "status")
    view = found["viewport"]
    assert view["scrollWidth"] <= width, f"the page is wider than {width} px"
    for name in ("hand", "moves", "move", "move-notation", "table-area", "status"):
        assert name in found, f"no {name} on the page"
        box = dict(found[name])
        if width < 900:  # a phone scrolls: only the sides must fit
            box["top"], box["bottom"] = 0, 0
        inside(box, view, f"{name} at {width}x{height}")
    hand = page.all(f"{tid('hand')} [data-card-id]")
    assert len(hand) == hand_size
    for card in hand:  # every card of the hand is whole on screen (sideways on a phone)
        b = card.rect
        assert b["x"] >= 0 and b["x"] + b["width"] <= width + 0.5, f"a card cut at {width}"
        if width >= 900:
            assert b["y"] + b["height"] <= height + 0.5, f"a card cut at {width}x{height}"
    if width < 900:
        # The hand begins within the first two screens, and the moves right after it.
        assert found["hand"]["top"] < 2 * height
        assert found["moves"]["top"] - found["hand"]["bottom"] < 40


@pytest.mark.slow
def test_a_crowded_board_still_fits_every_screen(page: Page) -> None:
    """A lead with many moves in several groups, a last trick, seat badges and the line of what
    the seat's move caused: the same checks at the three sizes."""
    state = _dressed(_year_lead())
    assert len(state["legal"]) > 15
    try:
        for width, height in SIZES:
            page.resize(width, height)
            page.draw(state)
            page.wait_quiet()
            check_fits(page, width, height, len(state["hand"]))
            page.screenshot(f"layout-crowded-year-{width}x{height}")
    finally:
        page.resize(1280, 900)


def _year_lead(seed: int = 3) -> dict[str, Any]:
    """A real seat state of ``year`` where seat 0 leads (many moves, several groups)."""
    table = Table("year", players=3, seats=["human", "heuristic", "heuristic"], seed=seed)
    table.advance()
    while not table.state(0)["table"]["plays"] == [] or not table.state(0)["your_turn"]:
        table.play(0, 0)
        table.advance()
    state: dict[str, Any] = table.state(0)
    table.close()
    return state


def drawn_groups(page: Page) -> list[tuple[str, list[str]]]:
    """The move groups on the page in order: (label, [data-move-index...])."""
    found = page.js(
        """return [...document.querySelectorAll('[data-testid=move-group]')].map(g =>
          [g.dataset.label, [...g.querySelectorAll('[data-testid=move]')]
            .map(b => b.dataset.moveIndex)])"""
    )
    return [(label, list(indices)) for label, indices in found]


@pytest.mark.slow
def test_moves_are_listed_in_the_servers_group_order(page: Page) -> None:
    state = _year_lead()
    legal = state["legal"]
    assert len(legal) > 8
    # The server's groups, shuffled into the list: the page orders them by group.order.
    rng = random.Random(4)
    shuffled = legal[:]
    rng.shuffle(shuffled)
    if not all("group" in m for m in legal):  # an older server: make groups up for the check
        for m in shuffled:
            n = len(m["cards"])
            m["group"] = {"order": 10 * (n or 99), "label": f"group of {n}"}
    page.draw({**state, "legal": shuffled})
    expected: dict[tuple[int, str], list[str]] = {}
    for m in shuffled:
        expected.setdefault((m["group"]["order"], m["group"]["label"]), []).append(str(m["index"]))
    order = sorted(expected)
    assert drawn_groups(page) == [(label, expected[(o, label)]) for o, label in order]
    # Each move button shows the move's words and a chip per card, with the card's help.
    for m in legal[:12]:
        button = page.driver.find_element(
            "css selector", f'{tid("move")}[data-move-index="{m["index"]}"]'
        )
        assert m["text"] in button.text
        chips = button.find_elements("css selector", ".chip")
        assert [int(c.get_attribute("data-card-id")) for c in chips] == [
            c["id"] for c in m["cards"]
        ]
        for chip, card in zip(chips, m["cards"], strict=True):
            assert (
                chip.get_attribute("title") == card.get("help", card["label"])
                or card.get("help") is None
            )
    page.screenshot("moves-in-groups")

    # An older server sends no groups: by cards played, smallest first (not 1, 2, 4, 3).
    bare = [{k: v for k, v in m.items() if k != "group"} for m in shuffled]
    page.draw({**state, "legal": bare})
    sizes = [label for label, _ in drawn_groups(page)]
    counts = sorted({len(m["cards"]) for m in bare})
    assert sizes == [
        ("no cards" if n == 0 else "1 card" if n == 1 else f"{n} cards") for n in counts
    ]
    # A click plays the move's index.
    page.all(tid("move"))[-1].click()
    played = page.js("return window.__played")
    assert played == [int(page.all(tid("move"))[-1].get_attribute("data-move-index"))]


@pytest.mark.slow
def test_card_help_shows_on_hover_focus_and_tap(page: Page) -> None:
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    state = _year_lead()
    for card in state["hand"]:
        card.setdefault("help", f"{card['label']}: the help line of this card")
    state["your_turn"] = False  # hand cards are not buttons: focusable for their help
    state["legal"] = []
    page.draw(state)

    def tip_shown(card_id: int) -> bool:
        return bool(
            page.js(
                """const card = document.querySelector(
                     `[data-testid=hand] [data-card-id="${arguments[0]}"]`);
                const tip = document.getElementById(card.getAttribute('aria-describedby'));
                const box = tip.getBoundingClientRect();
                return getComputedStyle(tip).display !== 'none' && box.width > 0 &&
                  box.left >= 0 && box.right <= innerWidth;""",
                card_id,
            )
        )

    first, second = state["hand"][0], state["hand"][1]
    el = page.driver.find_element("css selector", f'{tid("hand")} [data-card-id="{first["id"]}"]')
    assert not el.get_attribute("title")  # one tooltip, not the browser's as well
    tip_id = el.get_attribute("aria-describedby")
    tip = page.driver.find_element("id", tip_id)
    assert tip.get_attribute("role") == "tooltip"
    assert tip.get_attribute("textContent") == first["help"]
    assert not tip_shown(first["id"])
    ActionChains(page.driver).move_to_element(el).perform()  # hover
    page.wait(lambda d: tip_shown(first["id"]), "the help on hover")
    page.screenshot("card-help-hover")
    ActionChains(page.driver).move_to_element(page.find("status")).perform()  # away
    # The keyboard: Tab reaches the cards, and focus shows the help.
    page.js("arguments[0].focus()", el)
    el.send_keys(Keys.TAB)
    page.wait(
        lambda d: page.js("return document.activeElement.dataset.cardId") == str(second["id"]),
        "the next card focused",
    )
    page.wait(lambda d: tip_shown(second["id"]), "the help on focus")
    # A tap (a click on a phone) focuses the card and shows its help.
    page.resize(412, 915)
    try:
        page.js("document.activeElement.blur()")
        third = state["hand"][2]
        target = page.driver.find_element(
            "css selector", f'{tid("hand")} [data-card-id="{third["id"]}"]'
        )
        page.js("arguments[0].scrollIntoView({block: 'center'})", target)
        target.click()
        page.wait(lambda d: tip_shown(third["id"]), "the help on a tap")
        page.screenshot("card-help-tap-412")
    finally:
        page.resize(1280, 900)


def _dressed(state: dict[str, Any]) -> dict[str, Any]:
    """``state`` with every issue-22 field the board shows, filled where the server left it
    out (so the check does not depend on which server this page is drawn against)."""
    out = dict(state)
    n = state["players"]
    out["seat_status"] = [[] for _ in range(n)]
    out["seat_status"][1] = [{"word": "Drowsy", "text": "Drowsy: score back to 5"}]
    out["seat_status"][2] = [{"word": "Pooped", "text": "is Pooped: out of the game"}]
    plays = [
        {"player": p, "text": f"seat {p}:", "describe": f"play {p}", "cards": [c]}
        for p, c in enumerate(state["hand"][:3])
    ]
    out["last_trick"] = {"title": "trick 3", "plays": plays, "winner": 2, "text": "won by seat 2"}
    events = state["events"]
    seqs = [e["seq"] for e in events]
    cut = len(seqs) // 2
    out["log"] = [
        {"title": "round 1 deal", "seqs": [seqs[0], seqs[cut - 1]], "current": False},
        {"title": "trick 4", "seqs": [seqs[cut], seqs[-1]], "current": True},
    ]
    out["consequences"] = [{"text": "you draw 2 cards: Fi3 Ea4"}]
    out["presence"] = [
        {"seat": 0, "kind": "person", "name": "Ada", "status": "here", "text": "Ada is here"},
        {
            "seat": 1,
            "kind": "person",
            "name": "Bo",
            "status": "stand_in",
            "text": "Bo is away: the heuristic bot plays for Bo until they return",
        },
        {"seat": 2, "kind": "bot", "name": "heuristic", "status": "bot", "text": "heuristic"},
    ]
    return out


def test_the_board_shows_status_the_last_trick_the_log_groups_and_places(page: Page) -> None:
    state = _dressed(_year_lead())
    page.draw(state)
    badges = page.js(
        """return [...document.querySelectorAll('[data-testid=seat-status]')].map(b =>
          [b.dataset.seat, b.dataset.word, b.title, b.textContent])"""
    )
    assert badges == [
        ["1", "Drowsy", "Drowsy: score back to 5", "Drowsy: Drowsy: score back to 5"],
        ["2", "Pooped", "is Pooped: out of the game", "Pooped: is Pooped: out of the game"],
    ]
    presence = page.js(
        """return [...document.querySelectorAll('[data-testid=seat-presence]')].map(b =>
          [b.dataset.seat, b.dataset.word, b.title])"""
    )
    assert presence == [
        ["1", "bot plays", "Bo is away: the heuristic bot plays for Bo until they return"]
    ]
    last = page.find("last-trick")
    assert last.get_attribute("data-winner") == "2"
    assert "Last finished: trick 3" in last.text and "won by seat 2" in last.text
    shown = [
        int(c.get_attribute("data-card-id")) for c in last.find_elements("css selector", ".chip")
    ]
    assert shown == [c["id"] for c in state["hand"][:3]]
    assert "play 1" in last.text
    assert "you draw 2 cards" in page.find("consequences").text
    groups = page.js(
        """return [...document.querySelectorAll('[data-testid=log-group]')].map(g =>
          [g.dataset.title, g.dataset.current,
           [...g.querySelectorAll('[data-testid=event]')].map(e => Number(e.dataset.seq))])"""
    )
    seqs = [e["seq"] for e in state["events"]]
    cut = len(seqs) // 2
    assert groups == [
        ["round 1 deal", "false", seqs[:cut]],
        ["trick 4", "true", seqs[cut:]],
    ]
    # The log's view holds the current group from its title down (or all of it, if it fits).
    top = page.js(
        """const list = document.querySelector('.log__list');
        const cur = list.querySelector('[data-current=true]');
        return [cur.getBoundingClientRect().top - list.getBoundingClientRect().top,
                list.scrollTop, list.scrollHeight - list.clientHeight];"""
    )
    assert top[0] >= -1, f"the current group's title is scrolled away: {top}"
    # Scrolled back to read, the log stays there when the board redraws the same position.
    kept = page.driver.execute_script(
        """const list = document.querySelector('.log__list');
        list.scrollTop = 40;
        const was = list.scrollTop;
        window.__board.render(arguments[0]);
        return [was, document.querySelector('.log__list').scrollTop];""",
        state,
    )
    assert kept[0] == 40 and kept[1] == kept[0]
    page.screenshot("board-status-last-trick")

    # Game over: the places in the server's order, with scores.
    over = {
        **state,
        "is_over": True,
        "your_turn": False,
        "legal": [],
        "winner": 2,
        "frame": 40,
        "frames": 41,
        "places": [
            {"place": 1, "seats": [2], "scores": [15], "text": "15 points"},
            {"place": 2, "seats": [0, 1], "scores": [9, 9], "text": "9 points each"},
        ],
    }
    page.draw(over, live=False)  # a replay's last frame (a live table has its game-over box)
    places = page.js(
        """return [...document.querySelectorAll('[data-testid=place]')].map(p =>
          [p.dataset.place, p.dataset.seats, p.textContent, p.title])"""
    )
    assert [p[:2] for p in places] == [["1", "2"], ["2", "0 1"]]
    assert places[0][2].startswith("1st Seat 2") and places[0][2].endswith(": 15")
    assert places[1][2].startswith("2nd Seat 0") and places[1][2].endswith(": 9")
    assert [p[3] for p in places] == ["15 points", "9 points each"]
    page.screenshot("board-places")


def test_a_state_from_an_older_server_still_draws(page: Page) -> None:
    """No help, groups, status, log groups, last trick or places: the board draws what there is."""
    state = _year_lead()
    keep = {
        "game",
        "title",
        "players",
        "seat",
        "seats",
        "to_move",
        "your_turn",
        "is_over",
        "winner",
        "round",
        "round_word",
        "scores",
        "hand_sizes",
        "draw_pile_size",
        "hand",
        "table",
        "legal",
        "events",
        "since_last_turn",
        "round_results",
        "last_move",
    }
    old = {k: v for k, v in state.items() if k in keep}
    strip = ("help", "group", "rule", "describe")

    def bare(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: bare(v) for k, v in value.items() if k not in strip}
        if isinstance(value, list):
            return [bare(v) for v in value]
        return value

    page.draw(bare(old))
    assert len(page.all(tid("move"))) == len(state["legal"])
    assert not page.all(tid("last-trick")) and not page.all(tid("places"))
    assert not page.all(tid("log-group")) and len(page.all(tid("event"))) == len(state["events"])
    assert not [m for m in page.console() if "SEVERE" in m or "Error" in m]


@pytest.mark.slow
def test_replay_auto_play_reaches_the_end_and_names_the_seats(
    page: Page, server: LiveServer, tmp_path: Path
) -> None:
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import Select

    table = Table("head", players=3, seats=["heuristic"] * 3, seed=8, bust_threshold=3)
    table.advance()
    record = table.record()
    table.close()
    path = tmp_path / "head-game.json"
    path.write_text(record, encoding="utf-8")
    n = len(Replay(record))

    page.open()
    page.find("replay-file").send_keys(str(path))
    page.find("replay-view")
    wait_frame(page, 0)
    rid = page.hash_params()["replay"]
    frame = server.get(f"/api/replays/{rid}/frames/0?seat=1")
    names = [s["name"] for s in frame["seats"]]
    # Every seat is named as the server's frames name it, in the seat choice and on the board.
    options = [o.text for o in page.all(f"{tid('replay-seat')} option")][1:]
    labels = [nm if nm == f"seat {s}" else f"seat {s} ({nm})" for s, nm in enumerate(names)]
    assert [o.lower() for o in options] == [f"as {label} saw it" for label in labels]
    Select(page.find("replay-seat")).select_by_value("1")
    page.wait(lambda d: page.hash_params().get("seat") == "1", "seat 1 chosen")
    for s, label in enumerate(labels):
        assert label in page.find(f"seat-{s}").text.lower()

    # Auto-play from a few frames before the end, at the fastest speed: it stops at the last.
    page.js("location.hash = arguments[0]", f"#replay={rid}&seat=1&frame={n - 6}")
    wait_frame(page, n - 6)
    Select(page.find("replay-speed")).select_by_index(
        len(page.all(f"{tid('replay-speed')} option")) - 1
    )
    play = page.find("replay-play")
    assert play.get_attribute("aria-pressed") == "false"
    play.click()
    page.wait(lambda d: play.get_attribute("aria-pressed") == "true", "auto-play on")
    page.wait(lambda d: frame_counter(page)[0] == n - 1, "the last frame", timeout=10)
    page.wait(
        lambda d: play.get_attribute("aria-pressed") == "false", "auto-play stopped at the end"
    )
    assert page.find("replay-next").get_attribute("disabled") is not None
    # The last frame: the places as the server ranks them, best first.
    last = server.get(f"/api/replays/{rid}/frames/{n - 1}?seat=1")
    shown = page.js(
        """return [...document.querySelectorAll('[data-testid=place]')].map(p =>
          [Number(p.dataset.place), p.dataset.seats])"""
    )
    assert shown == [[p["place"], " ".join(map(str, p["seats"]))] for p in last["places"]]
    page.screenshot("replay-auto-play-end")
    # The keyboard: P starts it (from the deal again, at the end) and stops it.
    body = page.driver.find_element("css selector", "body")
    body.send_keys("p")
    page.wait(lambda d: play.get_attribute("aria-pressed") == "true", "P starts auto-play")
    page.wait(lambda d: frame_counter(page)[0] >= 1, "auto-play moving")
    body.send_keys("p")
    page.wait(lambda d: play.get_attribute("aria-pressed") == "false", "P stops auto-play")
    stopped = frame_counter(page)[0]
    assert stopped < n - 1
    # Enter on the focused button works like a click.
    play.send_keys(Keys.ENTER)
    page.wait(lambda d: play.get_attribute("aria-pressed") == "true", "Enter starts auto-play")
    play.send_keys(Keys.ENTER)
    page.wait(lambda d: play.get_attribute("aria-pressed") == "false", "Enter stops it")


def test_a_spectator_is_shown_no_hand_and_told_it_is_watching(page: Page) -> None:
    state = _year_lead()
    watching = {
        **state,
        "seat": None,
        "spectator": True,
        "your_turn": False,
        "hand": [],
        "legal": [],
    }
    page.draw(watching)
    assert not page.all(tid("hand")) and not page.all(tid("move"))
    assert "watching" in page.find("moves").text
    assert all("You" not in page.find(f"seat-{p}").text for p in range(state["players"]))
    assert not page.all(".seat--you")


@pytest.mark.slow
def test_damaged_and_huge_states_draw_safely(page: Page) -> None:
    """The board reads what a server sends: fields of the wrong kind, markup in the words,
    and a huge state draw without an error, markup stays text, and a huge state draws fast."""
    state = _year_lead()
    markup = '<img src=x data-evil="1"><script>window.__evil = 1</script>'
    bad = {
        **state,
        "seat_status": "Drowsy",
        "log": [{"title": markup, "seqs": "0-9", "current": 1}, None, 7],
        "last_trick": "trick 3",
        "places": [{"place": "first", "seats": "0", "scores": None, "text": markup}],
        "consequences": {"text": "not a list"},
        "presence": [None, {"seat": 1, "kind": "person", "status": markup}],
        "legal": [
            {**m, "group": {"order": "soon", "label": markup}, "text": markup}
            for m in state["legal"]
        ],
        "hand": [{**c, "help": markup} for c in state["hand"]],
        "is_over": True,
        "frame": 3,
        "frames": 9,
    }
    page.draw(bad)
    assert page.js("return window.__evil === undefined")
    assert not page.all("[data-evil]") and not page.all(f"{tid('board')} script")
    assert markup in page.find("moves").text
    assert len(page.all(tid("move"))) == len(state["legal"])
    assert page.all(f"{tid('seat-presence')}")  # an unknown status is shown as given, as text
    assert not [m for m in page.console() if "SEVERE" in m]

    # Huge: 3,000 moves in 40 groups and 5,000 log lines in 500 groups draw in well under 2 s.
    one = state["legal"][1]
    moves = [
        {**one, "index": i, "text": f"move {i}", "group": {"order": i % 40, "label": f"g{i % 40}"}}
        for i in range(3000)
    ]
    events = [{"seq": i, "type": "note", "text": f"line {i}"} for i in range(5000)]
    log = [
        {"title": f"trick {g}", "seqs": [10 * g, 10 * g + 9], "current": g == 499}
        for g in range(500)
    ]
    huge = {**state, "legal": moves, "events": events, "log": log, "since_last_turn": 4990}
    page.draw(huge)
    took = page.driver.execute_script(
        "const t = performance.now(); window.__board.render(arguments[0]);"
        "return performance.now() - t;",
        huge,
    )
    print(f"a huge state drew in {took:.0f} ms")
    assert took < 2000, f"drawing a huge state took {took:.0f} ms"
    assert len(page.all(tid("move-group"))) == 40
    assert len(page.all(tid("log-group"))) == 500
