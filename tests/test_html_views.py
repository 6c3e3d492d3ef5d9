"""The notebook and file views (``panda_core.html``), read as text: the bundle, the scoped style,
what ``_repr_html_`` of a game and of a seat embeds (a seat: only what it may know), escaping of
hostile names, the replay file (lossless frames, self-contained, bounded) and its refusals.

The same outputs opened in Chromium: tests/test_html_browser.py.
"""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

import panda_core
import panda_core.html as views
from hidden_cards import hidden_cards_shown, private_events_leak, secret_cards
from panda_core._registry import spec_of
from panda_core.html import HtmlError, bundle
from panda_core.html.replay_file import unpacked
from panda_core.table import Replay, TableError
from panda_core.table.cards import CardBook
from panda_core.table.seat_state import SeatStateBuilder

GAMES = ("head", "year", "spin")
FIXTURES = Path(__file__).parent / "fixtures" / "html"
LONG_RECORD = FIXTURES / "spin_5p_1079_moves.json"

DATA = re.compile(
    r'<script type="application/json" id="(pc-html-[0-9a-f]{16})-data">(.*?)</script>', re.S
)
HOSTILE = [
    "</script><script>window.pwned = 1</script>",
    "<!-- <script>",
    '"quoted" & <b>bold</b> \u2028 line',
    "</SCRIPT >",
    "]]> ${x} `tick`",
]


def embedded(text: str) -> list[tuple[str, Any]]:
    """Every view's id and data in an HTML text."""
    return [(m.group(1), json.loads(m.group(2))) for m in DATA.finditer(text)]


def played(name: str, players: int = 3, moves: int = 25, seed: int = 5) -> Any:
    game = panda_core.make(name, players=players, seed=seed)
    for k in range(moves):
        if game.is_over:
            break
        game.apply(game.bot_move("heuristic", seed=k))
    return game


SHORT = {"head": {"bust_threshold": 3}}
"""Rules that keep a whole game short (Panda Head to a low threshold: about 40 to 100 moves)."""


def finished(name: str, players: int = 3, seed: int = 11) -> Any:
    game = panda_core.make(name, players=players, seed=seed, **SHORT.get(name, {}))
    k = 0
    while not game.is_over:
        game.apply(game.bot_move("random" if k % 3 else "heuristic", seed=k))
        k += 1
    return game


# ---- the bundle and the style ----------------------------------------------------------------


def test_the_bundle_is_one_classic_script_of_the_page_modules() -> None:
    text = bundle.script()
    assert not re.search(r"^\s*(import|export)\b", text, re.M)
    for name in bundle.MODULES:
        assert text.count(f'__pandaModules["{name}"] = (function () {{') == 1
    assert "window.PandaCoreHtml[__pandaKey] = { show, replay };" in text
    assert text.startswith("(function () {")
    assert f'const __pandaKey = "{bundle.script_key()}";' in text
    # read at call time: the page's current board is the one bundled
    assert "class Board" in text and bundle.read_static("board.js").count("class Board") == 1


def test_the_bundle_parses_as_a_script() -> None:
    node = shutil.which("node")
    if node is None:
        pytest.skip("no node to parse with (the browser test runs the bundle)")
    done = subprocess.run(
        [node, "--check"], input=bundle.script(), text=True, capture_output=True, timeout=60
    )
    assert done.returncode == 0, done.stderr


def test_the_bundler_rewrites_imports_and_exports() -> None:
    out = bundle.bundle(
        {
            "a.js": "export const x = 1;\nexport function f() { return x; }\nexport class K {}\n",
            "b.js": 'import { f, x as y } from "./a.js";\n'
            "export async function g() { return f() + y; }\n",
        }
    )
    assert 'const { f, x: y } = __pandaModules["a.js"];' in out
    assert "return { x, f, K };" in out and "return { g };" in out
    assert "export" not in out and "import" not in out


@pytest.mark.parametrize(
    ("sources", "said"),
    [
        ({"a.js": "export default 3;\n"}, "cannot be bundled"),
        ({"a.js": 'import * as b from "./b.js";\n'}, "only `import {...}"),
        ({"a.js": 'import { q } from "https://x.example/q.js";\n'}, "only `import {...}"),
        ({"a.js": 'import { q } from "./b.js";\n'}, "not bundled before it"),
        ({"a.js": "export { a, b };\n"}, "cannot be bundled"),
        ({"a.js": 'import { 3x } from "./b.js";\n'}, "cannot bundle the import"),
    ],
)
def test_the_bundler_refuses_what_it_cannot_rewrite(sources: dict[str, str], said: str) -> None:
    with pytest.raises(HtmlError, match=re.escape(said)):
        bundle.bundle(sources)


def _selectors(css: str) -> list[str]:
    """Every selector of the rules (not inside @keyframes), from a scoped sheet."""
    out = []
    for head in re.findall(
        r"([^{}]+)\{[^{}]*\}", re.sub(r"@keyframes[^{]*\{(?:[^{}]*\{[^{}]*\})*\s*\}", "", css)
    ):
        head = head.strip()
        if head.startswith("@"):
            continue
        out += [s.strip() for s in head.split(",")]
    return out


def test_the_page_style_applies_only_inside_the_view() -> None:
    css = bundle.scoped_css()
    selectors = _selectors(css)
    assert len(selectors) > 100
    outside = [
        s
        for s in selectors
        if not (
            s == ".pc-html"
            or s.startswith(".pc-html ")
            or s.startswith(".pc-html:")
            or s.startswith(".pc-html[")
        )
    ]
    assert not outside, outside[:10]
    assert "--felt" in css and ":root" not in css and not re.search(r"(^|[\s,}])body\b", css)
    assert "@media" in css  # kept, with its rules scoped too


def test_the_style_scoper_reads_at_rules_and_refuses_loads() -> None:
    css = (
        ":root { --a: 1; } body { margin: 0 } * { box-sizing: border-box }\n"
        "h3, .x > p:not(.y, .z) { color: red }\n"
        "@media (max-width: 9px) { .a { b: c } }\n@keyframes k { from { a: b } to { a: c } }\n"
    )
    out = bundle.scoped_css(css, "s")
    assert ".s {" in out and ".s, .s * {" in out
    assert ".s h3, .s .x > p:not(.y, .z) {" in out
    assert "@media (max-width: 9px) {\n.s .a {" in out
    assert "@keyframes k { from { a: b } to { a: c } }" in out
    for bad in (
        '@import "x.css";',
        ".a { background: url(https://x.example/a.png) }",
        "@font-face { src: url(//x.example/f.woff) }",
        ".a { b: c",
        ".a { content: '</style>' }",
        "@page { margin: 0 }",
    ):
        with pytest.raises(HtmlError):
            bundle.scoped_css(bad, "s")


# ---- a game's and a seat's view --------------------------------------------------------------


@pytest.mark.parametrize("name", GAMES)
def test_a_game_shows_every_hand(name: str) -> None:
    game = played(name)
    text = game._repr_html_()
    [(view_id, data)] = embedded(text)
    state = data["state"]
    assert state["seat"] is None and state["frame"] is None and data["moves"] is False
    assert len(state["hands"]) == game.players
    for p, hand in enumerate(state["hands"]):
        assert sorted(c["id"] for c in hand) == sorted(game.view(p)["hand"])
    assert state["scores"] == list(game.scores)
    assert f'id="{view_id}"' in text and 'class="pc-html__text"' in text
    assert game._repr_html_() != text  # a fresh element id every time
    assert text.count("<script") == text.count("</script>") == 3


def _table_state(game: Any, seat: int) -> dict[str, Any]:
    """What the table model shows ``seat`` of ``game`` (built from the game object)."""
    spec = spec_of(game)
    names = [f"seat {p}" for p in range(game.players)]
    builder = SeatStateBuilder(spec, CardBook(game), names)
    return builder.build(
        game,
        seat,
        seat_kinds=[{"kind": "player", "name": n} for n in names],
        seed=None,
        notes=(),
        since=0,
    )


@pytest.mark.parametrize("name", GAMES)
def test_a_seat_shows_only_what_it_may_know(name: str) -> None:
    game = panda_core.make(name, players=3, seed=21)
    checked = 0
    k = 0
    while not game.is_over and k < 80:
        if k % 9 == 0:
            for seat in range(game.players):
                text = game.seat(seat)._repr_html_()
                [(_, data)] = embedded(text)
                state = data["state"]
                assert state["seat"] == seat and state["hands"] is None
                assert sorted(c["id"] for c in state["hand"]) == sorted(game.view(seat)["hand"])
                assert not hidden_cards_shown(state, game, seat)
                assert not private_events_leak(state["events"], seat)
                assert bool(state["legal"]) == (game.current_player == seat)
                # the same state the table builds from the game object for that seat
                table = json.loads(json.dumps(_table_state(game, seat)))
                assert {**state, "since_last_turn": 0} == table
                # the fallback names the seat's own cards, no hidden one
                fallback = re.search(r'data-testid="html-text">(.*?)</pre>', text, re.S)
                assert fallback and "Your hand: " in fallback.group(1)
                checked += 1
        game.apply(game.bot_move("heuristic", seed=k))
        k += 1
    assert checked >= 21


def test_a_seat_fallback_lists_its_hand_and_not_the_others() -> None:
    game = played("year", players=4, moves=9)
    seat = game.current_player
    text = game.seat(seat)._repr_html_()
    fallback = re.search(r'data-testid="html-text">(.*?)</pre>', text, re.S)
    assert fallback
    lines = fallback.group(1).splitlines()
    book = CardBook(game)
    [hand_line] = [line for line in lines if line.startswith("Your hand: ")]
    for card in game.view(seat)["hand"]:
        assert book.info(card)["label"] in hand_line
    secret = secret_cards(game, seat)
    own_labels = {book.info(c)["label"] for c in game.view(seat)["hand"]}
    for card in secret:
        label = str(book.info(card)["label"])
        if label not in own_labels:
            assert label not in hand_line


@pytest.mark.parametrize("name", GAMES)
def test_hostile_names_cannot_leave_the_data(name: str) -> None:
    game = played(name, players=5, moves=12)
    for obj in (game, game.seat(2)):
        text = views.repr_html(obj, names=HOSTILE)
        [(_, data)] = embedded(text)
        assert [s["name"] for s in data["state"]["seats"]] == HOSTILE
        assert text.count("<script") == text.count("</script>") == 3
        assert text.lower().count("</script") == 3 and "<!-- <script>" not in text
        assert "window.pwned = 1</script>" not in text
        assert "&lt;/script&gt;&lt;script&gt;window.pwned" in text  # the fallback, escaped


def test_views_refuse_what_is_not_a_game() -> None:
    for bad in (3, "head", None, object(), [panda_core.make("head", players=2)]):
        with pytest.raises(TypeError, match="game or a seat object"):
            views.repr_html(bad)
    with pytest.raises(TypeError, match="a state is a dict"):
        views.state_html([1, 2])  # type: ignore[arg-type]
    game = panda_core.make("year", players=3)
    with pytest.raises(TypeError, match="one name per seat"):
        views.repr_html(game, names=["a", "b"])


def test_embedded_json_escapes_what_could_end_the_element() -> None:
    from panda_core.html.page import embed_json

    value = {"a": "</script><!--<script>&\u2028\u2029", "b": [1.5, None, True]}
    text = embed_json(value)
    assert not set("<>&\u2028\u2029") & set(text)
    assert json.loads(text) == value
    with pytest.raises(ValueError):
        embed_json(float("nan"))


# ---- the replay file -------------------------------------------------------------------------


def frames_of(data: dict[str, Any]) -> list[dict[str, Any]]:
    """The frames a replay file's page rebuilds (the same steps as driver.js)."""

    def patched(obj: Any, patch: list[Any]) -> Any:
        path = patch[0]
        top = dict(obj)
        node = top
        for key in path[:-1]:
            node[key] = dict(node[key])
            node = node[key]
        if len(patch) == 1:
            del node[path[-1]]
        elif len(patch) == 3:
            node[path[-1]] = node[path[-1]][: patch[2]] + patch[1]
        else:
            node[path[-1]] = patch[1]
        return top

    frames = [data["first"]]
    for patches in data["patches"]:
        frame = frames[-1]
        for p in patches:
            frame = patched(frame, p)
        frames.append(frame)
    out = []
    for frame in frames:
        full = {k: v for k, v in frame.items() if k != "events_n"}
        full["events"] = data["events"][: frame["events_n"]]
        out.append(full)
    return out


def file_data(path: Path) -> dict[str, Any]:
    [(_, data)] = embedded(path.read_text(encoding="utf-8"))
    return unpacked(data)


CLIMBING_SLOW = [
    "head",
    pytest.param("year", marks=pytest.mark.slow),
    pytest.param("spin", marks=pytest.mark.slow),
]
"""A whole climbing game's frames take a second or more to build (Panda Head's short game, less)."""


@pytest.mark.parametrize("name", CLIMBING_SLOW)
def test_a_replay_file_holds_every_frame_as_the_seat_saw_it(name: str, tmp_path: Path) -> None:
    game = finished(name)
    replay = Replay(game.to_json())
    for seat in (1, None):
        path = replay.to_html(tmp_path / f"{name}-{seat}.html", seat=seat)
        data = file_data(path)
        assert data["seat"] == seat
        seen = replay.for_seat(seat)
        frames = frames_of(data)
        assert len(frames) == len(seen)
        for k in range(0, len(seen), max(1, len(seen) // 40)):
            assert frames[k] == json.loads(json.dumps(seen.frame(k)))
        assert frames[-1] == json.loads(json.dumps(seen.frame(len(seen) - 1)))
        if seat is not None:
            for k in range(0, len(seen), max(1, len(seen) // 15)):
                assert not hidden_cards_shown(frames[k], replay.position(k), seat)
                assert not private_events_leak(frames[k]["events"], seat)


def test_to_html_takes_the_replays_seat_unless_told(tmp_path: Path) -> None:
    record = finished("head", players=2).to_json()
    assert file_data(Replay(record, seat=1).to_html(tmp_path / "a.html"))["seat"] == 1
    assert file_data(Replay(record, seat=1).to_html(tmp_path / "b.html", seat=None))["seat"] is None
    assert file_data(Replay(record).to_html(tmp_path / "c.html", seat=0))["seat"] == 0
    view = views.replay_view(Replay(record, seat=1))
    assert view._repr_html_() == str(view) and "pc-html" in str(view)


# the only URL a view's text may hold: SVG's namespace name, which names and loads nothing
ALLOWED_URLS = {"http://www.w3.org/2000/svg"}


def test_a_replay_file_is_self_contained(tmp_path: Path) -> None:
    names = ["Ada", "https://evil.example/x.js"]
    record = finished("head", players=2).to_json()
    path = Replay(record, seat=0, names=names).to_html(tmp_path / "r.html")
    text = path.read_text(encoding="utf-8")
    # a name is text: in the fallback (escaped) and in the data, never in the markup or code
    fallback = re.search(r'data-testid="html-text">(.*?)</pre>', text, re.S)
    assert fallback and names[1] in fallback.group(1)
    markup = DATA.sub("", text.replace(fallback.group(1), ""))
    assert names[1] not in markup
    urls = set(re.findall(r"https?://[^\s\"'`)<>]+", markup))
    assert urls <= ALLOWED_URLS, urls - ALLOWED_URLS
    # nothing in the markup refers to another file: every src/href is data:
    for attr in re.findall(r"""(?:src|href)\s*=\s*["']?([^"'\s>]*)""", markup):
        assert attr.startswith("data:"), attr
    assert not re.search(r"@import|url\((?!data:)", markup)
    assert "default-src 'none'" in text  # and the page may load nothing, by its own policy
    assert text.count("<script") == text.count("</script>") == 3
    assert [s["name"] for s in file_data(path)["first"]["seats"]] == names


def test_to_html_refusals(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    replay = Replay(finished("head", players=2).to_json())
    with pytest.raises(HtmlError, match="is a folder"):
        replay.to_html(tmp_path)
    with pytest.raises(TableError):
        replay.to_html(tmp_path / "x.html", seat=7)
    with pytest.raises(TypeError):
        replay.to_html(tmp_path / "x.html", seat="one")
    with pytest.raises(TypeError, match="path is a file name"):
        replay.to_html(3)  # type: ignore[arg-type]
    with pytest.raises(OSError):
        replay.to_html(tmp_path / "no" / "such" / "dir.html")
    monkeypatch.setattr("panda_core.html.replay_file.MAX_HTML_FRAMES", 5)
    with pytest.raises(HtmlError, match="at most 5 frames"):
        replay.to_html(tmp_path / "long.html")
    monkeypatch.setattr("panda_core.html.replay_file.MAX_HTML_FRAMES", 10_000)
    monkeypatch.setattr("panda_core.html.replay_file.MAX_HTML_BYTES", 1000)
    with pytest.raises(HtmlError, match="over the 1000"):
        replay.to_html(tmp_path / "big.html")
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # nothing half-written


def test_a_repeated_write_replaces_the_file(tmp_path: Path) -> None:
    replay = Replay(finished("head", players=2).to_json())
    path = tmp_path / "r.html"
    path.write_text("old")
    replay.to_html(path, seat=0)
    first = path.read_text()
    replay.to_html(path, seat=0)
    assert path.read_text() != "old" and len(path.read_text()) == len(first)


def test_the_command_writes_a_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from panda_core.html.__main__ import main

    record = tmp_path / "game.json"
    record.write_text(finished("head").to_json())
    out = tmp_path / "game.html"
    assert main([str(record), str(out), "--seat", "1"]) == 0
    assert file_data(out)["seat"] == 1 and "wrote" in capsys.readouterr().out
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "nothing"}')
    assert main([str(bad), str(out)]) == 2
    assert "not a panda-core game record" in capsys.readouterr().err
    assert main([str(tmp_path / "missing.json"), str(out)]) == 2


@pytest.mark.slow
def test_a_long_game_makes_a_small_file(tmp_path: Path) -> None:
    """The size bound: a 1,079-move climbing game (5 random seats) in one file per seat."""
    replay = Replay(LONG_RECORD.read_text())
    assert len(replay) == 1080
    seat_file = replay.to_html(tmp_path / "seat.html", seat=1)
    assert seat_file.stat().st_size < 500_000  # 240 KB when measured (1.6 MB of JSON)
    data = file_data(seat_file)
    assert len(data["patches"]) == 1079 and data["first"]["frame"] == 0


@pytest.mark.parametrize("name", GAMES)
def test_the_fallback_of_a_finished_game_gives_the_places(name: str) -> None:
    game = finished(name)
    for text in (game._repr_html_(), game.seat(0)._repr_html_()):
        fallback = re.search(r'data-testid="html-text">(.*?)</pre>', text, re.S)
        assert fallback and "game over" in fallback.group(1)
        assert "Places: 1st: " in html.unescape(fallback.group(1))
