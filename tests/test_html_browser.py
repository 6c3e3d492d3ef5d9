"""The notebook and file views opened in real Chromium (Debian's, tests/browser_support.py).

* A replay file opened from ``file://`` with the network off: stepped to the end with the
  buttons (no hidden card in the page at any frame), back, first, last, the slider, the keys and
  auto-play; nothing loaded, no console error.
* ``_repr_html_`` outputs of a game, a seat and a replay placed in a page that stands for a
  notebook: each drawn by the page's own board, the notebook's own look unchanged, hostile names
  inert, a seat showing no card it may not know, the replay's keys only while it has the focus.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import panda_core
import panda_core.html as views
from browser_support import WAIT, artifacts_dir, chromium, tid
from hidden_cards import secret_cards
from panda_core.table import Replay

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def driver() -> Iterator[Any]:
    d = chromium()
    try:
        yield d
    finally:
        d.quit()


def wait(driver: Any, condition: Callable[[Any], Any], what: str, timeout: float = WAIT) -> Any:
    from selenium.webdriver.support.ui import WebDriverWait

    try:
        return WebDriverWait(driver, timeout, poll_frequency=0.05).until(condition)
    except Exception as err:
        driver.save_screenshot(str(artifacts_dir() / f"html-failed-{what[:30]}.png"))
        raise AssertionError(f"the page did not show {what} within {timeout:g} s") from err


def find(driver: Any, css: str) -> Any:
    from selenium.webdriver.common.by import By

    return driver.find_element(By.CSS_SELECTOR, css)


def errors(driver: Any) -> list[str]:
    """The console's errors (a script error, a refused load)."""
    return [str(e["message"]) for e in driver.get_log("browser") if e.get("level") == "SEVERE"]


def shown_card_ids(driver: Any, root: str = "body") -> set[int]:
    """The cards the view shows as they lie now: every card element, less those of the last
    finished trick or pile (the past, as the log is: played in the open, possibly dealt anew to
    another hand since, which tests/hidden_cards.py counts as hidden now)."""
    ids = driver.execute_script(
        "return [...document.querySelectorAll(arguments[0] + ' [data-card-id]')]"
        ".filter(e => !e.closest('[data-testid=last-trick]'))"
        ".map(e => e.dataset.cardId)",
        root,
    )
    return {int(i) for i in ids}


def frame_shown(driver: Any) -> int:
    return int(find(driver, tid("replay-frame")).get_attribute("data-frame"))


def finished(name: str, players: int, seed: int, **rules: Any) -> Any:
    game = panda_core.make(name, players=players, seed=seed, **rules)
    k = 0
    while not game.is_over:
        game.apply(game.bot_move("random" if k % 3 else "heuristic", seed=k))
        k += 1
    return game


def offline(driver: Any) -> None:
    driver.execute_cdp_cmd("Network.enable", {})
    driver.execute_cdp_cmd(
        "Network.emulateNetworkConditions",
        {"offline": True, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1},
    )


# ---- the replay file -----------------------------------------------------------------------


def test_a_replay_file_steps_through_the_game_offline(driver: Any, tmp_path: Path) -> None:
    seat = 1
    record = finished("head", 3, 11, bust_threshold=3).to_json()
    replay = Replay(record, seat=seat, names=["Ada", "heuristic", "</script><b>x"])
    path = replay.to_html(tmp_path / "replay.html")
    offline(driver)
    driver.get_log("browser")  # forget what came before
    driver.get(path.as_uri())
    wait(
        driver, lambda d: find(d, tid("replay-frame")).get_attribute("data-frame") == "0", "frame 0"
    )
    last = len(replay) - 1
    assert find(driver, ".pc-html__text").get_attribute("hidden") is not None
    nxt = find(driver, tid("replay-next"))
    for k in range(1, last + 1):  # every frame, with the Forward button
        nxt.click()
        wait(driver, lambda d, k=k: frame_shown(d) == k, f"frame {k}")
        position = replay.position(k)
        shown = shown_card_ids(driver)
        assert not shown & secret_cards(position, seat), f"frame {k}"
        hand = driver.execute_script(
            "return [...document.querySelectorAll('[data-testid=hand] [data-card-id]')]"
            ".map(e => Number(e.dataset.cardId))"
        )
        assert sorted(hand) == sorted(position.view(seat)["hand"]), f"frame {k}"
    assert nxt.get_attribute("disabled") is not None
    assert find(driver, tid("replay-last")).get_attribute("disabled") is not None
    driver.save_screenshot(str(artifacts_dir() / "html-replay-end.png"))

    find(driver, tid("replay-prev")).click()
    wait(driver, lambda d: frame_shown(d) == last - 1, "back one frame")
    find(driver, tid("replay-first")).click()
    wait(driver, lambda d: frame_shown(d) == 0, "the first frame")
    find(driver, tid("replay-last")).click()
    wait(driver, lambda d: frame_shown(d) == last, "the last frame")
    driver.execute_script(
        "const s = arguments[0]; s.value = '5'; s.dispatchEvent(new Event('input'));",
        find(driver, tid("replay-slider")),
    )
    wait(driver, lambda d: frame_shown(d) == 5, "frame 5 from the slider")

    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    keys = ActionChains(driver)
    find(driver, "body").click()
    keys.send_keys(Keys.ARROW_RIGHT).perform()
    wait(driver, lambda d: frame_shown(d) == 6, "frame 6 from the right arrow key")
    keys.send_keys(Keys.HOME).perform()
    wait(driver, lambda d: frame_shown(d) == 0, "frame 0 from Home")
    keys.send_keys(Keys.END).perform()
    wait(driver, lambda d: frame_shown(d) == last, "the last frame from End")

    # auto-play, fastest, from the start to the end, where it stops by itself
    find(driver, tid("replay-first")).click()
    speed = find(driver, tid("replay-speed"))
    driver.execute_script(
        "arguments[0].value = '80'; arguments[0].dispatchEvent(new Event('change'));", speed
    )
    play = find(driver, tid("replay-play"))
    play.click()
    wait(driver, lambda d: play.get_attribute("data-playing") == "true", "auto-play started")
    wait(driver, lambda d: 0 < frame_shown(d) < last, "auto-play moving", timeout=5)
    wait(driver, lambda d: frame_shown(d) == last, "auto-play at the end", timeout=last * 0.2 + 10)
    wait(driver, lambda d: play.get_attribute("data-playing") == "false", "auto-play stopped")
    keys.send_keys(" ").perform()  # space plays again (from the start) and pauses
    wait(driver, lambda d: play.get_attribute("data-playing") == "true", "space plays")
    keys.send_keys(" ").perform()
    wait(driver, lambda d: play.get_attribute("data-playing") == "false", "space pauses")

    loaded = driver.execute_script("return performance.getEntriesByType('resource').length")
    assert loaded == 0  # nothing fetched: no script, style, font or image from anywhere
    assert driver.execute_script("return window.pwned === undefined")
    assert not errors(driver)


def test_a_full_information_replay_of_a_climbing_game(driver: Any, tmp_path: Path) -> None:
    replay = Replay(finished("year", 3, 4).to_json())
    path = replay.to_html(tmp_path / "all.html", seat=None)
    driver.get_log("browser")
    driver.get(path.as_uri())
    wait(
        driver, lambda d: find(d, tid("replay-frame")).get_attribute("data-frame") == "0", "frame 0"
    )
    k = len(replay) // 2
    driver.execute_script(
        "const s = arguments[0]; s.value = arguments[1]; s.dispatchEvent(new Event('input'));",
        find(driver, tid("replay-slider")),
        str(k),
    )
    wait(driver, lambda d: frame_shown(d) == k, "the middle frame")
    position = replay.position(k)
    for s in range(3):
        ids = driver.execute_script(
            "return [...document.querySelectorAll(`[data-testid=hands-${arguments[0]}] "
            "[data-card-id]`)].map(e => Number(e.dataset.cardId))",
            s,
        )
        assert sorted(ids) == sorted(position.view(s)["hand"])
    assert not errors(driver)


# ---- notebook outputs ----------------------------------------------------------------------

NOTEBOOK_STYLE = """
body { font-family: serif; color: rgb(1, 2, 3); background: rgb(250, 250, 240); margin: 8px; }
h3 { color: rgb(200, 0, 0); margin: 3px; font-size: 30px; }
button { background: rgb(0, 0, 200); padding: 1px; }
p, li { line-height: 2; }
"""
NOTEBOOK_CELLS = (
    '<h3 id="nb-h3">In [1]:</h3><button id="nb-button">run</button>'
    '<p id="nb-p">a notebook paragraph</p><ol id="nb-ol"><li>one</li></ol>'
)
LOOKS = ["color", "font-family", "font-size", "margin-top", "background-color", "padding-top",
         "line-height", "box-sizing"]  # fmt: skip


def notebook(outputs: list[str]) -> str:
    cells = "".join(f'<div class="output">{o}</div>' for o in outputs)
    return (
        f"<!doctype html><html><head><meta charset='utf-8'><style>{NOTEBOOK_STYLE}</style>"
        f"</head><body>{NOTEBOOK_CELLS}{cells}{NOTEBOOK_CELLS.replace('nb-', 'nb2-')}</body></html>"
    )


def looks(driver: Any) -> dict[str, dict[str, str]]:
    """The computed style of the notebook's own elements."""
    return dict(
        driver.execute_script(
            """const out = {};
            for (const id of ['nb-h3', 'nb-button', 'nb-p', 'nb-ol', 'nb2-h3', 'nb2-button',
                              'nb2-p', 'nb2-ol']) {
              const s = getComputedStyle(document.getElementById(id));
              out[id] = Object.fromEntries(arguments[0].map(k => [k, s.getPropertyValue(k)]));
            }
            const b = getComputedStyle(document.body);
            out.body = Object.fromEntries(arguments[0].map(k => [k, b.getPropertyValue(k)]));
            return out;""",
            LOOKS,
        )
    )


def board_looks(driver: Any) -> list[Any]:
    """The computed style of the board's headings, paragraphs, lists and buttons."""
    return list(
        driver.execute_script(
            """const els = document.querySelectorAll(
              '.pc-html :is(h2, h3, h4, p, ol, li, button, select, input)');
            return [...els].slice(0, 200).map(e => {
              const s = getComputedStyle(e);
              return [e.tagName, ...arguments[0].map(k => s.getPropertyValue(k))];
            });""",
            LOOKS,
        )
    )


def test_notebook_outputs_draw_the_board_and_keep_the_notebook_look(
    driver: Any, tmp_path: Path
) -> None:
    names = ["Ada", "</script><script>window.pwned = 1</script>", "<!-- x", "Bo"]
    game = panda_core.make("spin", players=4, seed=8)
    for k in range(14):
        game.apply(game.bot_move("heuristic", seed=k))
    seat = game.current_player
    assert seat is not None
    other = (seat + 1) % 4
    record = finished("head", 2, 3, bust_threshold=3).to_json()
    outputs = [
        views.repr_html(game, names=names),
        views.repr_html(game.seat(seat), names=names),
        views.repr_html(game.seat(other), names=names),
        str(views.replay_view(Replay(record, seat=0))),
    ]
    bare = tmp_path / "bare.html"  # the same outputs on a page with no style of its own
    bare.write_text(notebook(outputs).replace(NOTEBOOK_STYLE, ""), encoding="utf-8")
    plain = tmp_path / "plain.html"
    plain.write_text(notebook([]), encoding="utf-8")
    page = tmp_path / "notebook.html"
    page.write_text(notebook(outputs), encoding="utf-8")

    driver.get(plain.as_uri())
    before = looks(driver)
    driver.get_log("browser")
    driver.get(page.as_uri())
    wait(
        driver,
        lambda d: d.execute_script(
            "return [...document.querySelectorAll('.pc-html')]"
            ".every(e => e.dataset.drawn === 'true')"
        ),
        "every output drawn",
    )
    assert looks(driver) == before  # the notebook keeps its own look
    inside = board_looks(driver)
    driver.get(page.as_uri().replace("notebook.html", "bare.html"))
    wait(driver, lambda d: find(d, ".pc-html").get_attribute("data-drawn") == "true", "bare")
    assert board_looks(driver) == inside  # and does not restyle the board
    driver.get(page.as_uri())
    wait(driver, lambda d: find(d, ".pc-html").get_attribute("data-drawn") == "true", "again")
    assert driver.execute_script("return window.pwned === undefined")
    roots = driver.execute_script(
        "return [...document.querySelectorAll('.pc-html')].map(e => e.id)"
    )
    assert len(roots) == len(set(roots)) == 4
    game_id, seat_id, other_id, replay_id = (f"#{r}" for r in roots)

    # the game: every hand; a seat: its own hand, no card it may not know
    for s in range(4):
        ids = driver.execute_script(
            "return [...document.querySelectorAll(arguments[0] + ' [data-testid=hands-' + "
            "arguments[1] + '] [data-card-id]')].map(e => Number(e.dataset.cardId))",
            game_id,
            s,
        )
        assert sorted(ids) == sorted(game.view(s)["hand"])
    for root, s in ((seat_id, seat), (other_id, other)):
        assert not shown_card_ids(driver, root) & secret_cards(game, s)
        hand = driver.execute_script(
            "return [...document.querySelectorAll(arguments[0] + ' [data-testid=hand] "
            "[data-card-id]')].map(e => Number(e.dataset.cardId))",
            root,
        )
        assert sorted(hand) == sorted(game.view(s)["hand"])
    shown_names = find(driver, seat_id + " " + tid(f"seat-{1}")).text
    assert "</script>" in shown_names  # a name is text on the page, never markup

    # the seat to move lists its moves; clicking one says how to play it
    move = find(driver, seat_id + " " + tid("move"))
    notation = move.get_attribute("data-notation")
    move.click()
    note = find(driver, seat_id + " " + tid("html-note"))
    wait(driver, lambda d: note.is_displayed(), "the note on the move")
    assert json.dumps(notation) in note.text
    assert not driver.find_elements("css selector", other_id + " " + tid("move"))

    # the replay's keys work while it has the focus only (the notebook keeps its own keys)
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    counter = find(driver, replay_id + " " + tid("replay-frame"))
    find(driver, "#nb-p").click()
    ActionChains(driver).send_keys(Keys.ARROW_RIGHT).perform()
    assert counter.get_attribute("data-frame") == "0"
    find(driver, replay_id + " " + tid("replay-title")).click()
    ActionChains(driver).send_keys(Keys.ARROW_RIGHT).perform()
    wait(driver, lambda d: counter.get_attribute("data-frame") == "1", "the replay's own key")
    assert not errors(driver)


def test_docs_screenshots(driver: Any, tmp_path: Path) -> None:
    """The picture of docs/notebooks.md (docs/img/notebook_seat.png is a copy of the
    artefact html-seat.png): a seat's view in a notebook cell."""
    game = panda_core.make("year", players=4, seed=7)
    for k in range(10):
        game.apply(game.bot_move("heuristic", seed=k))
    seat = game.current_player
    assert seat is not None
    page = tmp_path / "seat.html"
    cell = '<pre style="font: 14px monospace; margin: 8px">In [3]: game.seat({})</pre>'
    page.write_text(
        "<!doctype html><html><head><meta charset='utf-8'></head><body style='margin: 0'>"
        f"{cell.format(seat)}{game.seat(seat)._repr_html_()}</body></html>",
        encoding="utf-8",
    )
    driver.set_window_size(1100, 1000)
    try:
        driver.get(page.as_uri())
        wait(driver, lambda d: find(d, ".pc-html").get_attribute("data-drawn") == "true", "drawn")
        driver.save_screenshot(str(artifacts_dir() / "html-seat.png"))
    finally:
        driver.set_window_size(1280, 900)
