"""``llm:`` entrants in full arenas of all three games against the scripted server: the games are
played, the telemetry adds up to what the server saw, a seat that fails forfeits with its reason
recorded, and the key is in no result, file or message.

An LLM entrant is given as an :class:`LlmBot` object (the arena's Python API takes bot objects);
as spec text ``llm:MODEL?base_url=…`` too once the arena routes the ``llm:`` prefix
(``panda_core.bot_import``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from llm_server import Answer, Received, Slow, Status, first_legal, legal_moves_of, serve
from panda_core.arena import arena
from panda_core.bot_import import bot_spec_kind
from panda_core.llm import LlmBot, telemetry_of

KEY = "sk-test-SECRET-0123456789abcdef"


class Recording(LlmBot):
    """An LlmBot that keeps each game's telemetry (read at the next game's start)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.games: list[dict[str, Any]] = []

    def reset(self, seed: int) -> None:
        if self.telemetry()["decisions"]:
            self.games.append(self.telemetry())
        super().reset(seed)

    def all_games(self) -> list[dict[str, Any]]:
        last = self.telemetry()
        return [*self.games, last] if last["decisions"] else list(self.games)


class EveryNth:
    """A model that plays the first legal move, but answers ``bad`` every ``n``-th request."""

    def __init__(self, n: int, bad: str) -> None:
        self.n, self.bad, self.count = n, bad, 0

    def __call__(self, received: Received) -> Answer:
        self.count += 1
        if self.count % self.n == 0:
            return Answer(self.bad, usage=(50, 3))
        moves = legal_moves_of(received.prompt)
        return Answer(f"MOVE: {moves[-1]}", usage=(len(received.prompt) // 4, 4))


def spec_routed() -> bool:
    try:
        return bot_spec_kind("llm:probe?base_url=http://127.0.0.1:9/v1") == "llm"
    except Exception:
        return False


def files_text(folder: Path) -> str:
    return "\n".join(
        p.read_text(encoding="utf-8", errors="replace") for p in folder.rglob("*") if p.is_file()
    )


@pytest.mark.parametrize(
    ("game", "players", "deals"),
    [
        ("head", 3, 1),
        ("year", 3, 1),
        ("spin", 3, 1),
        pytest.param("head", 4, 2, marks=pytest.mark.slow),
        pytest.param("year", 4, 2, marks=pytest.mark.slow),
        pytest.param("spin", 2, 3, marks=pytest.mark.slow),
    ],
)
@pytest.mark.slow
def test_an_llm_entrant_plays_an_arena_with_telemetry(
    game: str, players: int, deals: int, tmp_path: Path
) -> None:
    model = EveryNth(9, "MOVE: no-such-move")
    with serve(default=model) as server:
        bot = Recording("scripted", base_url=server.base_url, api_key=KEY, backoff=0.0)
        entrants = {"llm": bot, "heuristic": "heuristic", "random": "random"}
        report = arena(
            entrants, game=game, players=players, deals=deals, workers=0, out=tmp_path / "out"
        )
        received = list(server.requests)
    assert len(report.results) == report.scheduled > 0
    assert all(r.forfeit is None for r in report.results)
    games = bot.all_games()
    seated = [r for r in report.results if 0 in r.lineup]  # the games the llm entrant played
    assert len(games) == len(seated) > 0
    total = {k: sum(g[k] for g in games) for k in games[0] if isinstance(games[0][k], int)}
    assert total["requests"] == len(received)
    assert total["prompt_tokens"] == sum(r.usage[0] for r in received if r.usage)
    assert total["completion_tokens"] == sum(r.usage[1] for r in received if r.usage)
    illegal = sum(1 for r in received if r.answer == "MOVE: no-such-move")
    assert total["illegal"] == total["retries"] == illegal > 0
    assert total["decisions"] == len(received) - illegal
    assert total["unparsable"] == total["errors"] == total["timeouts"] == total["fallbacks"] == 0
    for g in games:
        assert g["model"] == "scripted" and g["endpoint"] == server.base_url
        assert g["latency_s"] > 0 and g["forfeit"] is None
        json.dumps(g)
    assert telemetry_of(bot) == games[-1]
    standings = {s.label: s for s in report.standings}
    assert standings["llm"].games == len(seated) and standings["llm"].forfeits == 0
    assert KEY not in files_text(tmp_path / "out")


def test_a_seat_that_gives_no_legal_move_forfeits_with_its_reason(tmp_path: Path) -> None:
    with serve(default=lambda r: Answer("I pass on answering.")) as server:
        bot = LlmBot("scripted", base_url=server.base_url, api_key=KEY, max_retries=1)
        report = arena(
            [bot, "heuristic"], game="year", players=2, deals=1, workers=0, out=tmp_path / "out"
        )
    assert len(report.results) == 2
    for result in report.results:
        assert result.forfeit is not None
        assert result.forfeit.kind == "exception"
        assert "LlmForfeit" in result.forfeit.message
        assert "gave no legal move for its decision 0 (unparsable)" in result.forfeit.message
        assert result.lineup[result.forfeit.seat] == 0
    assert KEY not in files_text(tmp_path / "out")


def test_a_key_the_server_echoes_is_in_no_result(tmp_path: Path) -> None:
    body = json.dumps({"error": {"message": f"Incorrect API key provided: {KEY}."}})
    with serve(default=lambda r: Status(401, body)) as server:
        bot = LlmBot("scripted", base_url=server.base_url, api_key=KEY)
        report = arena(
            [bot, "random"], game="head", players=2, deals=1, workers=0, out=tmp_path / "out"
        )
        assert all(r.headers["authorization"] == f"Bearer {KEY}" for r in server.requests)
    assert all(r.forfeit is not None and "HTTP 401" in r.forfeit.message for r in report.results)
    text = files_text(tmp_path / "out")
    assert KEY not in text and KEY[:8] not in text
    assert "***" in text
    assert KEY not in repr(report) and KEY not in repr(bot) and KEY not in str(bot.telemetry())


def test_the_fallback_bot_plays_on_and_is_counted(tmp_path: Path) -> None:
    model = EveryNth(3, "no move here")
    with serve(default=model) as server:
        bot = Recording(
            "scripted", base_url=server.base_url, max_retries=0, on_failure="fallback:heuristic"
        )
        report = arena([bot, "heuristic"], game="spin", players=2, deals=1, workers=0)
        received = len(server.requests)
    assert all(r.forfeit is None for r in report.results)
    games = bot.all_games()
    fallbacks = sum(g["fallbacks"] for g in games)
    assert fallbacks == sum(g["unparsable"] for g in games) == received // 3
    assert sum(len(g["fallback_moves"]) for g in games) == min(fallbacks, 20 * len(games))
    assert all(m["why"].startswith("unparsable: ") for g in games for m in g["fallback_moves"])


def test_a_model_slower_than_the_move_time_forfeits_on_time_and_the_next_game_plays(
    tmp_path: Path,
) -> None:
    """The arena's move timer stops the request where it waits (SIGALRM in this process); the
    connection pool and the concurrency slot are left usable for the next game."""
    script = [*([first_legal] * 3), Slow(5.0)]
    with serve(script) as server:
        bot = LlmBot("scripted", base_url=server.base_url, timeout=30, concurrency=1)
        report = arena(
            [bot, "heuristic"], game="head", players=2, deals=1, workers=0, move_time=0.5
        )
        requests = len(server.requests)
    first, second = sorted(report.results, key=lambda r: r.index)
    assert first.forfeit is not None and first.forfeit.kind == "timeout"
    assert "move time (0.5 s)" in first.forfeit.message
    assert second.forfeit is None  # the next game asked the model again and got answers
    assert requests > 4


@pytest.mark.slow
def test_an_llm_entrant_in_worker_processes(tmp_path: Path) -> None:
    """The bot object pickles to the workers (its key with it) and plays over the loopback."""
    with serve() as server:
        bot = LlmBot("scripted", base_url=server.base_url, api_key=KEY)
        report = arena(
            [bot, "heuristic", "random"],
            game="year",
            players=3,
            deals=1,
            workers=2,
            out=tmp_path / "out",
        )
        assert server.requests and all(
            r.headers["authorization"] == f"Bearer {KEY}" for r in server.requests
        )
    assert all(r.forfeit is None for r in report.results)
    assert KEY not in files_text(tmp_path / "out")


@pytest.mark.skipif(not spec_routed(), reason="the arena does not route llm: specs yet")
@pytest.mark.parametrize("workers", [0, pytest.param(2, marks=pytest.mark.slow)])
def test_an_llm_spec_plays_an_arena(
    workers: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SCRIPTED_KEY", KEY)
    with serve() as server:
        spec = f"llm:scripted?base_url={server.base_url}&api_key_env=SCRIPTED_KEY&timeout=5"
        report = arena(
            {"llm": spec, "h": "heuristic"},
            game="head",
            players=2,
            deals=1,
            workers=workers,
            out=tmp_path / "out",
        )
        assert server.requests
        assert all(r.headers["authorization"] == f"Bearer {KEY}" for r in server.requests)
    assert all(r.forfeit is None for r in report.results)
    assert KEY not in files_text(tmp_path / "out")
    # Every game records its LLM seat's telemetry, in the results and in the folder's lines.
    telemetry = [r.telemetry for r in report.results]
    assert all(t is not None and len(t) == 1 for t in telemetry)
    assert sum(seat["requests"] for t in telemetry if t for seat in _seats(t)) == len(
        server.requests
    )
    lines = [json.loads(x) for x in (tmp_path / "out" / "games.jsonl").read_text().splitlines()]
    assert all("telemetry" in line for line in lines)
    again = arena(
        {"llm": spec, "h": "heuristic"}, game="head", players=2, deals=1, out=tmp_path / "out"
    )  # the folder is read back (resumed): its telemetry passes the checks
    assert [r.telemetry for r in again.results] == telemetry


def _seats(telemetry: Any) -> list[dict[str, Any]]:
    if isinstance(telemetry, dict):
        return [v for v in telemetry.values() if isinstance(v, dict)]
    return [t for t in telemetry if isinstance(t, dict)]
