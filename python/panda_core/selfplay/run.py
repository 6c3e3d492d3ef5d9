"""``panda_core.selfplay.selfplay``: a dataset of bot games, sharded over a backend.

Shard ``k`` holds episodes ``[k·S, (k+1)·S)`` (``S = shard_episodes``) and is written by the
task that plays them, wherever it runs (this process, a worker process, a Ray task). Episode
``e`` is dealt from ``nth_output(seed, e)`` and its bots are reset from that deal, so every
episode, and so the whole dataset, is the same for any shard size, worker count or backend.

Resuming: a shard's file exists only once it is complete (written under a temporary name, then
renamed), and it carries the settings it was written with; a rerun with the same settings skips
every shard already there and plays only the missing ones.
"""

from __future__ import annotations

import math
import os
import pickle
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import pyarrow.fs as pafs  # type: ignore[import-untyped]

from panda_core._args import count_arg, cut, int_arg, players_arg, seed_arg, shown
from panda_core._core import ArgumentError, PandaCoreError, __version__, nth_output
from panda_core._registry import DEFAULT_GAME, GAMES, AnyRules, GameName, spec
from panda_core.bot_import import bot_spec_kind
from panda_core.bots import bot_name
from panda_core.move_timer import MoveTimer
from panda_core.parallel.backend import Backend, SerialBackend, TaskFailure
from panda_core.selfplay.episodes import BotFailure, SeatBots, play_episode
from panda_core.selfplay.integrity import (
    DatasetError,
    identity,
    open_input,
    parquet_file,
    read_checksum,
    verify_shard,
    write_json,
)
from panda_core.selfplay.limits import (
    GAME_TIME,
    MAX_EPISODES,
    MAX_SECONDS,
    MAX_SHARDS,
    MOVE_TIME,
)
from panda_core.selfplay.schema import FORMAT, FORMAT_VERSION, schema, schema_json, settings_of
from panda_core.selfplay.writer import (
    ROW_GROUP_DECISIONS,
    ShardWriter,
    shard_name,
    temp_name,
)

__all__ = [
    "GAME_TIME",
    "MANIFEST",
    "MAX_EPISODES",
    "MAX_SECONDS",
    "MAX_SHARDS",
    "MOVE_TIME",
    "SHARD_EPISODES",
    "DatasetInfo",
    "SelfPlayError",
    "ShardFailure",
    "selfplay",
]

SHARD_EPISODES = 100
"""Default episodes per shard: a few MB of Panda Head, some tens of MB of a climbing game."""
MANIFEST = "_dataset.json"
"""The file that lists a finished dataset's shards and settings. The underscore keeps it out of
what Parquet readers take for data when they are given the folder (pyarrow, pandas, Spark skip
names starting with "_" or ".")."""

Progress = Callable[[int, int], None]
"""``progress(episodes done, episodes in all)``, called as each shard completes."""


class SelfPlayError(PandaCoreError):
    """Some shards could not be written (a bot raised or played an illegal move, a worker
    died), or the output folder holds another dataset. The other shards are written; a rerun
    plays only what is missing. ``failures`` lists each failed shard and why."""

    failures: tuple[ShardFailure, ...] = ()


@dataclass(frozen=True)
class ShardFailure:
    """Why shard ``shard`` (episodes ``first .. first + episodes - 1``) was not written."""

    shard: int
    first: int
    episodes: int
    message: str

    def __str__(self) -> str:
        last = self.first + self.episodes - 1
        return f"shard {self.shard} (episodes {self.first}-{last}): {self.message}"


@dataclass(frozen=True)
class ShardInfo:
    """One written shard (``_dataset.json``'s ``shards``)."""

    file: str
    first: int
    episodes: int
    decisions: int
    bytes: int
    sha256: str = ""
    """Of the whole file, as its checksum file ``_part-NNNNN.json`` records it."""

    def to_json(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "episodes": [self.first, self.first + self.episodes],
            "decisions": self.decisions,
            "bytes": self.bytes,
            "sha256": self.sha256,
        }


@dataclass(frozen=True)
class DatasetInfo:
    """What :func:`selfplay` wrote: the folder, its settings and shards."""

    path: str
    settings: dict[str, Any]
    shards: tuple[ShardInfo, ...]
    skipped: int
    """Shards already complete from an earlier run (kept, not played again)."""
    seconds: float

    @property
    def episodes(self) -> int:
        return sum(s.episodes for s in self.shards)

    @property
    def decisions(self) -> int:
        return sum(s.decisions for s in self.shards)

    @property
    def bytes(self) -> int:
        return sum(s.bytes for s in self.shards)

    @property
    def files(self) -> list[str]:
        return [f"{self.path}/{s.file}" for s in self.shards]


@dataclass(frozen=True)
class _Task:
    """Everything one shard needs, picklable (worker processes, Ray tasks)."""

    out: str
    shard: int
    first: int
    episodes: int
    game: GameName
    players: int
    rules: AnyRules
    bots: tuple[object, ...]
    seed: int
    settings: dict[str, Any] = field(repr=False)
    row_group_decisions: int = ROW_GROUP_DECISIONS
    move_features: bool = False
    move_time: float = MOVE_TIME
    search_stats: bool = False


class _ShardTasks(Sequence[_Task]):
    """The shards' tasks, made when asked for (``len`` and indexing: what a backend needs):
    nothing proportional to the number of shards is built up front."""

    def __init__(self, template: _Task, episodes: int, shard_episodes: int, skip: set[int]) -> None:
        self._template = template
        self._episodes = episodes
        self._size = shard_episodes
        self._shards = [k for k in range(-(-episodes // shard_episodes)) if k not in skip]

    def __len__(self) -> int:
        return len(self._shards)

    def __getitem__(self, k: int) -> _Task:  # type: ignore[override]  # no slices needed
        shard = self._shards[k]
        first = shard * self._size
        count = min(self._size, self._episodes - first)
        return replace(self._template, shard=shard, first=first, episodes=count)


@dataclass(frozen=True)
class _Outcome:
    """A task's result: the shard written, or why not."""

    shard: ShardInfo | None
    failure: str | None


def filesystem(out: str) -> tuple[pafs.FileSystem, str]:
    """The filesystem and path of ``out``: a URI pyarrow understands (``s3://bucket/dir``,
    ``gs://…``, ``file:///…``) or a local folder."""
    if "://" in out:
        found: tuple[pafs.FileSystem, str] = pafs.FileSystem.from_uri(out)
        return found
    return pafs.LocalFileSystem(), os.path.abspath(out).replace(os.sep, "/")


def _shard_settings(
    task_settings: Mapping[str, Any], shard: int, first: int, n: int
) -> dict[str, Any]:
    return {**task_settings, "shard": shard, "episodes": [first, first + n]}


def _run_shard(task: _Task) -> _Outcome:
    """Play and write one shard (module-level: worker processes import it by name)."""
    fs, folder = filesystem(task.out)
    game = spec(task.game)
    settings = _shard_settings(task.settings, task.shard, task.first, task.episodes)
    table_schema = schema(game, settings, task.move_features, task.search_stats)
    try:
        bots = SeatBots(task.bots)
    except PandaCoreError as err:  # an import path that no longer imports in this worker
        return _Outcome(None, str(err))
    writer = ShardWriter(fs, folder, task.shard, table_schema, task.row_group_decisions)
    try:
        with MoveTimer(task.move_time) as timer:
            for e in range(task.first, task.first + task.episodes):
                deal = nth_output(task.seed, e)
                ep = play_episode(
                    game, task.players, task.rules, bots, e, deal, task.move_features, timer,
                    task.search_stats,
                )  # fmt: skip
                writer.add_episode(game.name, ep)
        size = writer.close()
    except BotFailure as err:
        writer.abort()
        return _Outcome(None, str(err))
    except BaseException:  # Ctrl-C or a bug: no half-written shard is left behind
        writer.abort()
        raise
    name = shard_name(task.shard)
    return _Outcome(
        ShardInfo(name, task.first, task.episodes, writer.decisions, size, writer.sha256), None
    )


def _seat_specs(bots: object, players: int) -> tuple[object, ...]:
    """One bot per seat: a spec for all seats, or one per seat; each checked here (a name the
    engine's bot parser accepts, an import path that imports, or a callable bot object)."""
    if isinstance(bots, str) or callable(bots):
        seats: list[object] = [bots] * players
    elif isinstance(bots, Sequence):
        seats = list(bots)
        if len(seats) == 1:
            seats *= players
        if len(seats) != players:
            raise ArgumentError(
                f"bots: give one bot for every seat or one per seat ({players} players), got "
                f"{len(seats)}"
            )
    else:
        raise TypeError(f"bots must be a bot spec, a bot or a list of them, got {shown(bots)}")
    for item in seats:
        if isinstance(item, str):
            if bot_spec_kind(item) is None:  # an import path is imported: BotImportError now
                raise ArgumentError(
                    f"unknown bot {cut(item)!r}: a built-in bot (random, heuristic, ismcts, "
                    "ismcts:N, neural, neural:PATH), a protocol bot 'exec:COMMAND', a language "
                    "model 'llm:MODEL' or a Python bot 'package.module:Name'"
                )
        elif not callable(item):
            raise TypeError(
                f"a bot is a built-in bot name, an import path or a callable bot(game, "
                f"player), got {shown(item)}"
            )
    return tuple(seats)


def _seconds(value: object, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"{what} must be a number of seconds, got {shown(value)}")
    seconds = float(value)
    if not (0 < seconds <= MAX_SECONDS) or math.isnan(seconds):
        raise ArgumentError(
            f"{what} must be more than 0 and at most {MAX_SECONDS:g} s, got {value}"
        )
    return seconds


def _rules(game: GameName, rules: object) -> AnyRules:
    if isinstance(rules, Mapping):
        return spec(game).rules(**rules)
    return spec(game).rules(rules)


def _existing(fs: pafs.FileSystem, folder: str, task: _Task) -> ShardInfo | None:
    """The shard ``task`` would write, if a complete one with the same settings is there.

    Nothing of a stored shard is trusted before its size and sha256 match its checksum file
    (``DatasetError`` otherwise: a damaged shard is not silently kept, nor silently replaced).
    A shard of another dataset (other game, bots, seed …) is an error, not something to
    overwrite or to mix in; one with the same settings but another episode range (the last
    shard of a shorter run) is written again."""
    name = shard_name(task.shard)
    path = f"{folder}/{name}"
    kind = fs.get_file_info(path).type
    if kind == pafs.FileType.NotFound:
        return None
    if kind != pafs.FileType.File:
        raise DatasetError(f"{path} is not a regular file (a folder, a FIFO …); move it away")
    recorded = read_checksum(fs, folder, name)
    handle, size = open_input(fs, path, None, "self-play shard")
    with handle:
        verify_shard(handle, size, path, recorded)
        meta = parquet_file(handle, size, path).metadata
    found = settings_of(meta.schema.to_arrow_schema()) or {}
    mine = _shard_settings(task.settings, task.shard, task.first, task.episodes)
    if found.get("format") == FORMAT and found.get("format_version") != FORMAT_VERSION:
        raise DatasetError(
            f"{path} was written in self-play format version {found.get('format_version')}; "
            f"this panda-core writes version {FORMAT_VERSION} and does not mix them: use "
            "another folder, or remove the old shards to start afresh"
        )
    if found.get("format") == FORMAT and found.get("move_features") != mine["move_features"]:
        how = (
            "with move features: resume it with move_features=True (--move-features)"
            if found.get("move_features")
            else "without move features: resume it without move_features=True (--move-features)"
        )
        raise DatasetError(f"{path} was written {how}, or use another folder")
    if found.get("format") == FORMAT and bool(found.get("search_stats")) != bool(
        mine.get("search_stats")
    ):
        how = (
            "with search statistics: resume it with search_stats=True (--search-stats)"
            if found.get("search_stats")
            else "without search statistics: resume it without search_stats=True (--search-stats)"
        )
        raise DatasetError(f"{path} was written {how}, or use another folder")
    if identity(found) != identity(mine):
        raise DatasetError(
            f"{path} belongs to another dataset (other settings); use another folder, or "
            "remove it to start afresh"
        )
    if recorded["settings_sha256"] != identity(found):
        raise DatasetError(f"{path}: its checksum file is of another dataset's shard")
    if found.get("episodes") != mine["episodes"]:
        return None
    return ShardInfo(name, task.first, task.episodes, meta.num_rows, size, recorded["sha256"])


def _remove(fs: pafs.FileSystem, path: str) -> None:
    try:
        fs.delete_file(path)
    except OSError:  # not there (the task cleaned up), or already gone
        pass


def _remove_temporary_files(fs: pafs.FileSystem, folder: str) -> None:
    """Delete the unfinished shards an interrupted run left (workers stopped mid-shard): the
    shards they were writing are played again anyway."""
    for entry in fs.get_file_info(pafs.FileSelector(folder)):
        name = entry.base_name
        if name.endswith(".tmp") and name.startswith((".part-", "_part-", MANIFEST)):
            _remove(fs, entry.path)


def _backend(backend: object, workers: int | None, address: str | None) -> Backend:
    from panda_core.parallel.factory import make_backend

    return make_backend(backend, workers=workers, address=address)  # type: ignore[arg-type]


def _write_manifest(fs: pafs.FileSystem, folder: str, info: DatasetInfo, body: Any) -> None:
    document = {
        **info.settings,
        "settings_sha256": identity(info.settings),
        "episodes": info.episodes,
        "decisions": info.decisions,
        "bytes": info.bytes,
        "shards": [s.to_json() for s in info.shards],
        "schema": body,
    }
    write_json(fs, f"{folder}/{MANIFEST}", document)


def selfplay(
    out: str | os.PathLike[str],
    *,
    game: GameName | str = DEFAULT_GAME,
    players: int = 4,
    bots: object = "heuristic",
    episodes: int = 1000,
    seed: int = 0,
    rules: object = None,
    shard_episodes: int = SHARD_EPISODES,
    row_group_decisions: int = ROW_GROUP_DECISIONS,
    workers: int | None = None,
    backend: object = "local",
    address: str | None = None,
    progress: Progress | None = None,
    move_features: bool = False,
    move_time: float = MOVE_TIME,
    game_time: float = GAME_TIME,
    search_stats: bool = False,
) -> DatasetInfo:
    """Play ``episodes`` games of ``game`` with ``bots`` and write every decision to ``out``.

    ``out``: a folder (created), or a URI of a filesystem pyarrow knows (``s3://bucket/dir``;
    what a Ray cluster whose nodes share no disk needs). ``bots``: one spec for every seat or
    one per seat — a built-in bot (``"heuristic"``, ``"random"``, ``"ismcts:200"``), a Python
    bot by import path (``"mybots:Greedy"``; a class is instantiated for every episode) or a
    bot object (it must pickle unless ``workers=0``). ``rules``: the game's rules object or a
    mapping of its options. ``shard_episodes`` episodes per file (``part-00000.parquet``, …),
    row groups of ``row_group_decisions`` decisions at most. ``workers`` / ``backend`` /
    ``address``: where the shards are played (``panda_core.parallel.make_backend``; ``workers=0``
    plays them in this process). ``progress(done, total)`` counts episodes as shards finish.
    ``move_features``: also write every legal move's features (``move_features`` column; the
    climbing games only), which multiplies a climbing dataset's size and writing time.
    ``move_time``: seconds a Python bot's move may take (the bot is interrupted and its shard
    fails); ``game_time``: seconds per episode after which a shard's worker is stopped (for a
    bot that cannot be interrupted; worker processes only). ``search_stats``: every decision of a
    built-in search bot (``ismcts:N``, ``ismcts+neural:N``) is made by one
    ``game.search_stats`` call, the move played its best (the same move as without), and its
    root visits and values (round scale, ``[-1, 1]``) are written per legal action
    (``search_visits``, ``search_values``; empty for the other bots). At most :data:`MAX_EPISODES`
    episodes in at most :data:`MAX_SHARDS` shards.

    A shard whose bot raised, overran its time, played an illegal move or whose worker died is
    not written; once every other shard is, :class:`SelfPlayError` names each failed shard and
    why. Rerunning the same call skips the shards already written (each checked against its
    sha256 first). Ctrl-C stops the run (``KeyboardInterrupt``), keeping the finished shards.
    Columns and layout: docs/selfplay.md.
    """
    if not isinstance(out, str | os.PathLike):
        raise TypeError(f"out must be a folder path or a URI, got {shown(out)}")
    out = os.fspath(out)
    game_spec = spec(game)
    players = players_arg(players)
    seed = seed_arg(seed)
    episodes = count_arg(episodes, "episodes")
    if episodes > MAX_EPISODES:
        raise ArgumentError(f"episodes must be <= {MAX_EPISODES:,}, got {episodes:,}")
    shard_episodes = int_arg(shard_episodes, "shard_episodes")
    if shard_episodes < 1:
        raise ArgumentError(f"shard_episodes must be >= 1, got {shard_episodes}")
    shards = -(-episodes // shard_episodes)
    if shards > MAX_SHARDS:
        raise ArgumentError(
            f"{episodes:,} episodes in shards of {shard_episodes:,} make {shards:,} shards, more "
            f"than {MAX_SHARDS:,}: use shard_episodes >= {-(-episodes // MAX_SHARDS):,}"
        )
    move_time = _seconds(move_time, "move_time")
    game_time = _seconds(game_time, "game_time")
    row_group_decisions = int_arg(row_group_decisions, "row_group_decisions")
    if row_group_decisions < 1:
        raise ArgumentError(f"row_group_decisions must be >= 1, got {row_group_decisions}")
    if not isinstance(move_features, bool):
        raise TypeError(f"move_features must be True or False, got {shown(move_features)}")
    if move_features and not game_spec.move_features:
        having = ", ".join(g for g in GAMES if spec(g).move_features)
        raise ArgumentError(
            f"{game_spec.name} has no move features (its action ids name its moves exactly): "
            f"move_features=True is for {having}"
        )
    if not isinstance(search_stats, bool):
        raise TypeError(f"search_stats must be True or False, got {shown(search_stats)}")
    if search_stats and game_spec.move_features and not move_features:
        raise ArgumentError(
            f"search_stats=True (--search-stats) in {game_spec.name} needs move_features=True "
            "(--move-features): the statistics are one per legal move, and the move features "
            "are the rows that say which move each is (an action id names a class of moves)"
        )
    if progress is not None and not callable(progress):
        raise TypeError(f"progress must be a callable progress(done, total), got {shown(progress)}")
    the_rules = _rules(game_spec.name, rules)
    seats = _seat_specs(bots, players)
    fs, folder = filesystem(out)
    if "://" not in out:
        out = folder  # workers may run elsewhere (another cwd): give them the absolute path
    settings: dict[str, Any] = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "panda_core_version": __version__,
        "game": game_spec.name,
        "players": players,
        "rules": game_spec.rules_dict(the_rules),
        "bots": [bot_name(b) for b in seats],
        "seed": seed,
        "observation_size": game_spec.observation_size,
        "num_actions": game_spec.num_actions,
        "move_features": move_features,
        "move_feature_size": game_spec.move_features,
    }
    if search_stats:  # only then: a dataset without them is what it was before the option
        settings["search_stats"] = True
    template = _Task(
        out=out, shard=0, first=0, episodes=0, game=game_spec.name, players=players,
        rules=the_rules, bots=seats, seed=seed, settings=settings,
        row_group_decisions=row_group_decisions, move_features=move_features,
        move_time=move_time, search_stats=search_stats,
    )  # fmt: skip
    every = _ShardTasks(template, episodes, shard_episodes, set())
    with _backend(backend, workers, address) as chosen:  # closed on every way out
        if not isinstance(chosen, SerialBackend):
            _check_pickles(seats)
        start = time.perf_counter()
        fs.create_dir(folder, recursive=True)
        _remove_temporary_files(fs, folder)
        written: dict[int, ShardInfo] = {}
        present = {i.base_name for i in fs.get_file_info(pafs.FileSelector(folder))}
        for k in range(len(every)):
            if shard_name(k) in present:  # one listing, not a look-up per shard
                found = _existing(fs, folder, every[k])
                if found is not None:
                    written[k] = found
        skipped = len(written)
        todo = _ShardTasks(template, episodes, shard_episodes, set(written))
        try:
            failures = _play_shards(chosen, todo, written, episodes, progress, game_time)
        except KeyboardInterrupt:
            chosen.close()  # the workers stop first: then what they were writing goes too
            _remove_temporary_files(fs, folder)
            raise
    for failure in failures:  # a dead worker leaves its unfinished file
        _remove(fs, f"{folder}/{temp_name(failure.shard)}")
    if failures:
        error = SelfPlayError(
            f"{len(failures)} of {len(every)} shards failed (the others are written in "
            f"{folder}; rerun to retry the failed ones): " + "; ".join(map(str, failures))
        )
        error.failures = tuple(failures)
        raise error
    info = DatasetInfo(
        path=folder if "://" not in out else out.rstrip("/"),
        settings=settings,
        shards=tuple(written[k] for k in sorted(written)),
        skipped=skipped,
        seconds=time.perf_counter() - start,
    )
    body = schema_json(schema(game_spec, None, move_features, search_stats))
    _write_manifest(fs, folder, info, body)
    return info


def _check_pickles(seats: Sequence[object]) -> None:
    """Bot objects travel to worker processes and Ray tasks by pickle: refuse early (a clear
    ``TypeError``) those that cannot, rather than fail every shard."""
    for item in seats:
        if isinstance(item, str):
            continue
        try:
            pickle.dumps(item)
        except Exception as err:
            raise TypeError(
                f"the bot {bot_name(item)!r} does not pickle ({err}), so it cannot run in "
                "worker processes: use workers=0, or name it by import path"
            ) from err


class _Bounds(Sequence[float]):
    """Each task's time bound (``game_time`` per episode), computed when asked for."""

    def __init__(self, tasks: Sequence[_Task], game_time: float) -> None:
        self._tasks = tasks
        self._game_time = game_time

    def __len__(self) -> int:
        return len(self._tasks)

    def __getitem__(self, k: int) -> float:  # type: ignore[override]  # no slices needed
        return self._game_time * max(self._tasks[k].episodes, 1)


def _play_shards(
    backend: Backend,
    todo: Sequence[_Task],
    written: dict[int, ShardInfo],
    episodes: int,
    progress: Progress | None,
    game_time: float,
) -> list[ShardFailure]:
    """Run ``todo`` on ``backend``, adding each shard written to ``written``; the failures, in
    shard order. A shard's worker is stopped after ``game_time`` per episode."""
    done = sum(s.episodes for s in written.values())
    if progress is not None:
        progress(done, episodes)
    failures: list[ShardFailure] = []
    bounds = _Bounds(todo, game_time)
    for k, result in backend.run(_run_shard, todo, bounds):
        task = todo[k]
        if isinstance(result, TaskFailure) and result.kind == "timeout":
            message = (
                f"timeout: its worker was stopped after {bounds[k]:g} s ({task.episodes} "
                f"episodes of game_time {game_time:g} s): a bot that never answered and that "
                "move_time could not interrupt"
            )
        elif isinstance(result, TaskFailure):
            message = f"{result.kind.replace('_', ' ')}: {result.message}"
        elif result.shard is None:
            message = result.failure or "failed"
        else:
            written[task.shard] = result.shard
            done += task.episodes
            if progress is not None:
                progress(done, episodes)
            continue
        failures.append(ShardFailure(task.shard, task.first, task.episodes, message))
    return sorted(failures, key=lambda f: f.shard)
