"""The arena's report (panda_core.arena.report): table, JSON, CSV, plot, on real games of every
game kind (played with panda_core.bots.play_game), forfeits and interrupted arenas."""

from __future__ import annotations

import csv
import json
import random
from pathlib import Path

import pytest

from panda_core._registry import GAMES, spec
from panda_core.arena.model import ArenaSettings, Entrant, Forfeit, MatchResult
from panda_core.arena.report import ArenaReport
from panda_core.bots import play_game

ENTRANTS = (
    Entrant("heuristic", "heuristic", True),
    Entrant("random", "random", True),
    Entrant("rnd-2", "random", True),
)


def settings_for(game: str, players: int = 3, deals: int = 3) -> ArenaSettings:
    return ArenaSettings(
        game=game,  # type: ignore[arg-type]
        players=players,
        entrants=ENTRANTS,
        deals=deals,
        seed=7,
        permutations="rotations",
        rules=None,  # type: ignore[arg-type]
        move_time=10.0,
        game_time=600.0,
    )


def play_arena(settings: ArenaSettings) -> list[MatchResult]:
    """Every deal under the three rotations of the three entrants, played for real; game 4
    replaced by a forfeit of the entrant in seat 1."""
    out: list[MatchResult] = []
    n = settings.players
    for deal in range(settings.deals):
        seed = 100 + deal
        for r in range(n):
            lineup = tuple((s + r) % len(settings.entrants) for s in range(n))
            index = len(out)
            if index == 4:
                f = Forfeit(1, lineup[1], "illegal", "bad move 99\nlegal: [1, 2]", '{"x": 1}')
                ranks = tuple(1 if s == 1 else 0 for s in range(n))
                out.append(
                    MatchResult(index, deal, seed, lineup, None, (0,) * n, ranks, (0,) * n, 0, 3, f)
                )
                continue
            g = play_game(settings.game, [settings.entrants[e].spec for e in lineup], seed=seed)
            left = spec(settings.game).left_of(g.state)
            ranks = spec(settings.game).placements(g.winner, g.scores, left)
            out.append(
                MatchResult(
                    index,
                    deal,
                    seed,
                    lineup,
                    g.winner,
                    g.scores,
                    ranks,
                    left,
                    g.rounds,
                    g.decisions,
                )
            )
    return out


@pytest.fixture(scope="module", params=GAMES)
def arena(request: pytest.FixtureRequest) -> tuple[ArenaSettings, list[MatchResult]]:
    s = settings_for(request.param)
    return s, play_arena(s)


def test_report_of_a_complete_arena(arena: tuple[ArenaSettings, list[MatchResult]]) -> None:
    s, results = arena
    report = ArenaReport.from_results(s, results, scheduled=len(results))
    assert report.complete
    assert [r.index for r in report.results] == list(range(9))
    assert [st.label for st in report.standings] == list(s.labels)
    assert [r.label for r in report.ratings] == list(s.labels)
    assert [r.index for r in report.forfeits] == [4]
    assert sum(st.games for st in report.standings) == 9 * 3
    # Every finished game has exactly one winner seat; the forfeit has none.
    assert sum(st.wins for st in report.standings) == 8
    assert sum(st.forfeits for st in report.standings) == 1
    data = report.to_json()
    assert list(data) == [
        "settings",
        "deals",
        "scheduled",
        "played",
        "complete",
        "contained",
        "full_information",
        "standings",
        "ratings",
        "head_to_head",
        "forfeits",
    ]
    assert data["settings"] == s.identity()
    assert (data["deals"], data["scheduled"], data["played"]) == (3, 9, 9)
    forfeit = data["forfeits"][0]
    assert forfeit["game"] == 4 and forfeit["kind"] == "illegal" and "record" not in forfeit
    assert forfeit["entrant"] == s.labels[results[4].lineup[1]]


def test_json_is_byte_identical_for_shuffled_input(
    arena: tuple[ArenaSettings, list[MatchResult]],
) -> None:
    s, results = arena
    texts = set()
    for seed in range(4):
        shuffled = results[:]
        random.Random(seed).shuffle(shuffled)
        texts.add(json.dumps(ArenaReport.from_results(s, shuffled, 9).to_json(), indent=2))
    assert len(texts) == 1
    # And through the JSON form of the results (what games.jsonl keeps).
    reloaded = [MatchResult.from_json(json.loads(json.dumps(r.to_json()))) for r in results]
    assert json.dumps(ArenaReport.from_results(s, reloaded, 9).to_json(), indent=2) in texts


def test_table(arena: tuple[ArenaSettings, list[MatchResult]]) -> None:
    s, results = arena
    report = ArenaReport.from_results(s, results, 9)
    text = report.table()
    assert "\x1b" not in text  # no colour codes
    assert max(len(line) for line in text.splitlines()) <= 100
    assert spec(s.game).title in text and "games played 9 / 9" in text and "seed 7" in text
    for label in s.labels:
        assert label in text
    assert "illegal" in text and "bad move 99" in text and "legal: [1, 2]" not in text
    # Best rating first.
    best = report.ratings[report.by_rating[0]].label
    rows = [line for line in text.splitlines() if line.strip().startswith("| 1 ")]
    assert rows and best in rows[0]


def test_write_files(arena: tuple[ArenaSettings, list[MatchResult]], tmp_path: Path) -> None:
    import matplotlib.image

    s, results = arena
    report = ArenaReport.from_results(s, results, 9)
    report.write(tmp_path)
    assert json.loads((tmp_path / "results.json").read_text()) == json.loads(
        json.dumps(report.to_json())
    )
    with (tmp_path / "standings.csv").open(newline="") as f:
        rows = list(csv.DictReader(f))
    assert [r["entrant"] for r in rows] == list(s.labels)
    for row, st, rating in zip(rows, report.standings, report.ratings, strict=True):
        assert int(row["games"]) == st.games and int(row["wins"]) == st.wins
        assert float(row["win_rate"]) == st.win_rate  # exact: floats written with repr
        assert st.win_interval is not None and float(row["win_low"]) == st.win_interval.low
        assert float(row["mu"]) == rating.mu and float(row["sigma"]) == rating.sigma
        assert st.mean_place is not None and float(row["mean_place"]) == st.mean_place
    with (tmp_path / "head_to_head.csv").open(newline="") as f:
        pairs = list(csv.DictReader(f))
    assert len(pairs) == len(report.head_to_head.pairs) == 6
    for row, p in zip(pairs, report.head_to_head.pairs, strict=True):
        assert (row["entrant"], row["opponent"]) == (p.entrant, p.opponent)
        assert float(row["score"]) == p.score and int(row["games"]) == p.games
    assert (tmp_path / "forfeits" / "game-4.json").read_text() == '{"x": 1}'
    png = (tmp_path / "ratings.png").read_bytes()
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    image = matplotlib.image.imread(tmp_path / "ratings.png")
    assert image.shape[0] > 100 and image.shape[1] > 300
    assert not [p for p in tmp_path.rglob("*") if p.name.endswith(".tmp")]  # no leftovers


def test_partial_report_of_an_interrupted_arena(tmp_path: Path) -> None:
    s = settings_for("year", deals=4)
    results = play_arena(s)[:7]
    random.Random(3).shuffle(results)
    report = ArenaReport.from_results(s, results, scheduled=12)
    assert not report.complete
    data = report.to_json()
    assert (data["scheduled"], data["played"], data["complete"]) == (12, 7, False)
    assert "games played 7 / 12 (incomplete)" in report.table()
    report.write(tmp_path)
    assert json.loads((tmp_path / "results.json").read_text())["played"] == 7
    # The arena goes on: writing again replaces every file.
    full = play_arena(s)
    ArenaReport.from_results(s, full, scheduled=12).write(tmp_path)
    assert json.loads((tmp_path / "results.json").read_text())["complete"] is True


def test_report_before_any_game(tmp_path: Path) -> None:
    s = settings_for("head")
    report = ArenaReport.from_results(s, [], scheduled=9)
    assert not report.complete and report.forfeits == ()
    for st in report.standings:
        assert st.win_rate is None and st.win_interval is None and st.mean_score is None
    data = report.to_json()
    assert data["standings"][0]["win_interval"] is None and data["head_to_head"] == []
    text = report.table()
    assert "games played 0 / 9" in text
    report.write(tmp_path)
    assert (tmp_path / "ratings.png").read_bytes().startswith(b"\x89PNG")
    rows = list(csv.DictReader((tmp_path / "standings.csv").open(newline="")))
    assert rows[0]["win_rate"] == ""


def test_void_forfeit_in_the_report() -> None:
    s = settings_for("spin", players=2)
    void = Forfeit(None, None, "dead_worker", "worker died (signal 9)", "{}")
    r = MatchResult(0, 0, 1, (0, 1), None, (0, 0), (0, 0), (0, 0), 0, 0, void)
    report = ArenaReport.from_results(s, [r], scheduled=2)
    assert report.forfeits == (r,)
    assert report.to_json()["forfeits"][0]["entrant"] is None
    assert "(void)" in report.table() and "dead_worker" in report.table()
    assert all(st.games == 0 for st in report.standings)


def test_an_interrupted_write_keeps_the_previous_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    s = settings_for("head")
    ArenaReport.from_results(s, [], scheduled=9).write(tmp_path)
    before = (tmp_path / "results.json").read_bytes()

    def crash(src: object, dst: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr("os.replace", crash)
    with pytest.raises(KeyboardInterrupt):
        ArenaReport.from_results(s, play_arena(s), scheduled=9).write(tmp_path)
    assert (tmp_path / "results.json").read_bytes() == before
    assert not [p for p in tmp_path.rglob("*") if p.name.endswith(".tmp")]
