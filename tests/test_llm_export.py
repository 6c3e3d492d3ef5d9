"""The chat export of self-play decisions (panda_core.llm.export, ``panda-core llm export-chat``):
one JSON line per decision, the prompt an llm: seat is shown there and the move played; the
lines replay the dataset's games exactly, no prompt holds a hidden card, and a dataset that does
not check is refused with nothing written."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("pyarrow")

import panda_core
from hidden_cards import secret_cards
from panda_core import ArgumentError
from panda_core.cli import main
from panda_core.llm import LlmError, export_chat
from panda_core.llm.answer import read_answer
from panda_core.llm.prompt import decision
from panda_core.selfplay import DatasetError, iter_batches, selfplay
from test_llm_hidden import tokens_shown

BOTS = ["heuristic", "random", "heuristic"]


@pytest.fixture(scope="module")
def datasets(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = {}
    for game in ("head", "year", "spin"):
        folder = tmp_path_factory.mktemp(f"selfplay-{game}")
        selfplay(
            folder, game=game, players=3, bots=BOTS, episodes=2, seed=5, workers=0, shard_episodes=1
        )
        out[game] = folder
    return out


def rows(folder: Path) -> list[dict[str, Any]]:
    out = []
    for batch in iter_batches(folder, columns=["episode", "deal", "step", "seat", "final_score"]):
        out += [
            dict(zip(batch, values, strict=True)) for values in zip(*batch.values(), strict=True)
        ]
    return out


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


@pytest.mark.parametrize("game", ["head", "year", "spin"])
@pytest.mark.slow
def test_every_decision_is_a_chat_example_that_replays_the_game(
    game: str, datasets: dict[str, Path], tmp_path: Path
) -> None:
    out = tmp_path / "chat.jsonl"
    info = export_chat(datasets[game], out)
    examples = lines(out)
    recorded = rows(datasets[game])
    assert info.decisions == len(examples) == len(recorded) > 0
    assert info.episodes == 2 and info.game == game and info.path == str(out)
    replay: Any = None
    episode = -1
    finals: list[int] = []
    for example, row in zip(examples, recorded, strict=True):
        messages = example["messages"]
        assert [m["role"] for m in messages] == ["system", "user", "assistant"]
        if row["episode"] != episode:
            if replay is not None:
                assert list(replay.scores) == finals  # the moves gave the dataset's ending
            episode = int(row["episode"])
            replay = panda_core.make(game, 3, seed=int(row["deal"]))
            finals = [0] * 3
        seat = int(row["seat"])
        assert replay.current_player == seat
        finals[seat] = int(row["final_score"])
        prompt = decision(replay, seat)
        assert messages[:2] == prompt.messages()  # the prompt of that very decision
        answer = read_answer(messages[2]["content"], prompt.notations)
        assert answer.kind == "move"  # the strict reader takes the export's answers
        move = prompt.notations[answer.index]  # type: ignore[index]
        assert messages[2]["content"] == f"MOVE: {move}"
        if game != "head":
            book = {c["id"]: c["token"] for c in replay.cards()}
            assert not tokens_shown(
                messages[1]["content"], {book[c] for c in secret_cards(replay, seat)}
            )
        replay.apply(move)
    assert replay.is_over and list(replay.scores) == finals


def test_the_limit_and_the_command_line(
    datasets: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "five.jsonl"
    assert export_chat(datasets["year"], out, limit=5).decisions == 5
    assert len(lines(out)) == 5
    assert export_chat(datasets["year"], out, limit=0).decisions == 0
    assert out.read_text() == ""
    code = main(["llm", "export-chat", str(datasets["head"]), str(out), "--limit", "7"])
    assert code == 0
    assert len(lines(out)) == 7
    assert "decisions=7 episodes=1" in capsys.readouterr().out


def test_a_damaged_dataset_is_refused_and_nothing_is_written(
    datasets: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    damaged = tmp_path / "damaged"
    damaged.mkdir()
    for f in datasets["spin"].iterdir():
        (damaged / f.name).write_bytes(f.read_bytes())
    shard = damaged / "part-00001.parquet"
    data = bytearray(shard.read_bytes())
    data[len(data) // 2] ^= 0xFF
    shard.write_bytes(bytes(data))
    out = tmp_path / "out.jsonl"
    out.write_text("kept\n")
    with pytest.raises(DatasetError, match=r"part-00001\.parquet"):
        export_chat(damaged, out)
    assert out.read_text() == "kept\n"  # written whole or not at all
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".out")] == []
    assert main(["llm", "export-chat", str(damaged), str(out)]) == 2
    assert "part-00001.parquet" in capsys.readouterr().err


def test_bad_arguments(tmp_path: Path, datasets: dict[str, Path]) -> None:
    with pytest.raises(ArgumentError, match="nothing there"):
        export_chat(tmp_path / "missing", tmp_path / "x.jsonl")
    with pytest.raises(TypeError):
        export_chat(datasets["head"], tmp_path / "x.jsonl", limit=-1)
    with pytest.raises(TypeError):
        export_chat(datasets["head"], 5)  # type: ignore[arg-type]
    with pytest.raises(OSError):
        export_chat(datasets["head"], tmp_path / "no" / "such" / "x.jsonl")
    assert (
        main(["llm", "export-chat", str(datasets["head"]), str(tmp_path / "no" / "x.jsonl")]) == 2
    )


def test_a_decision_that_is_not_legal_is_refused() -> None:
    from panda_core.llm.export import chat_example

    game = panda_core.make("head", 3, seed=1)
    seat = game.current_player
    assert seat is not None
    with pytest.raises(LlmError, match="not a legal move"):
        chat_example(game, seat, "not-a-move")
    example = chat_example(game, seat, game.legal_moves()[0].notation)
    assert example["messages"][2]["content"].startswith("MOVE: ")
