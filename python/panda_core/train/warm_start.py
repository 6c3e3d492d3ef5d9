"""The warm start: before its first self-play decision, a run's network is fitted to a search's
move values (issue 23: distillation from ISMCTS).

A self-play dataset written with search stats (``panda-core selfplay --bots ismcts:400
--search-stats --move-features ...``; docs/selfplay.md, "Columns") holds, for every decision a
search bot made, the root visits (``search_visits``) and mean value (``search_values``: for the
player to move, on the [-1, 1] scale of the vector env's ``round_results``) of each legal move
the network values: aligned with ``legal_actions`` in an action-values game (Panda Head), with
the ``move_features`` rows (``legal_moves()`` order) in a move-scores game, whose action ids name
classes of moves (a 4-player ``year`` deal: 56 moves, 30 ids); both lists are empty for the other
bots' decisions, which are skipped. The order is checked by the move played (``action``,
``move_index``): a search bot plays one of its most visited moves.

The warm start regresses the network's value of (observation, move) on the search's value of
each move the search visited at least ``warm_start_min_visits`` times, weighted by the move's
share of its decision's visits (how sure the search was of it). The value is exactly the
one self-play plays by (``actor.py``), as the game's policy kind gives it (``_game.py``): the
move's action-id column of the network's output (action-values), or the network's score of the
(observation, move features) row (move-scores). The optimizer is the run's: Adam at ``lr``,
``clip_grad``, ``batch_size`` rows a step, for ``warm_start_epochs`` passes over the dataset.

Checked before any work, each refusal a :class:`WarmStartError` naming the dataset, what is
wrong and what is allowed: the path exists and is a finished self-play dataset (its manifest
``_dataset.json``) of this format version, written with search stats, of the run's game, player
count, observation size and layout, actions and move-features size and layout, with move
features when the game's policy scores moves (:func:`open_dataset`); then every shard is read
once (:meth:`WarmStartData.check`) with the self-play reader's checks (its sha256 against its
checksum file and the manifest, its format, its settings' identity, its columns, the ids in
range) and the search columns' own (aligned with the legal actions, visits not negative, values
finite and in [-1, 1]), and the dataset must hold search decisions with a move visited often
enough.

Memory is bounded: the dataset is streamed row group by row group (each at most
:data:`MAX_ROW_GROUP_BYTES` uncompressed, checked from the footer before it is read),
:data:`READ_DECISIONS` decisions (with their legal moves' feature rows) decoded at a time, and
the input rows are built from them a batch at a time (rows short of a batch wait for the next
read's: fewer than two batches of rows are held); nothing held grows with the dataset.

Deterministic: each pass visits the shards and their row groups in an order drawn from the run's
seed, and each read's (decision, move) rows in a shuffled order drawn from it too; the same seed
and dataset give the same weights, byte for byte. The reader's private helpers are used because
its public ``iter_batches`` checks the columns of a dataset without search stats (the
``selfplay`` package's change that adds them lets its schema include the two columns; the check
here accepts them either way).
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import numpy.typing as npt

from panda_core._args import shown
from panda_core._core import ArgumentError
from panda_core.train._game import GameInfo
from panda_core.train.errors import TrainError
from panda_core.train.interrupt import StopOnInterrupt
from panda_core.train.learner import Learner
from panda_core.train.network import Params
from panda_core.train.samples import Samples
from panda_core.train.settings import TrainSettings

__all__ = [
    "READ_DECISIONS",
    "SEARCH_COLUMNS",
    "WarmStartData",
    "WarmStartError",
    "WarmStartResult",
    "open_dataset",
]

READ_DECISIONS = 1024
"""Decisions read from a row group at a time: with their legal moves' feature rows (a climbing
decision has about 4.5 legal moves of 326 floats, a deal some hundreds), a few MB a read."""
MAX_ROW_GROUP_BYTES = 256 << 20
"""Largest row group read (its uncompressed size, as the file's footer gives it): pyarrow reads
a row group's column chunks whole. The writer cuts row groups at 64 MB (``ROW_GROUP_BYTES``);
a larger one is refused, not read."""
SEARCH_COLUMNS = ("search_visits", "search_values")
_SEARCH_TYPES = {"search_visits": "int32", "search_values": "float"}
_VALUE_SLACK = 1e-6
"""Values are means of results in [-1, 1]; float rounding may pass the bound by this much."""


class WarmStartError(TrainError):
    """The warm start dataset cannot be used for this run; the message names the dataset, what is
    wrong and what is allowed."""


@dataclass(frozen=True)
class WarmStartResult:
    """What a warm start did (recorded in the train state)."""

    dataset_sha256: str
    epochs: int
    steps: int
    rows: int
    """(decision, move) rows learned from over every pass."""
    loss_sum: float
    seconds: float

    def record(self) -> dict[str, Any]:
        """The train state's ``warm_start`` entry (no seconds: the state says what was
        computed, the curve says how long it took)."""
        return {
            "dataset_sha256": self.dataset_sha256,
            "epochs": self.epochs,
            "steps": self.steps,
            "rows": self.rows,
        }


@dataclass(frozen=True)
class _Read:
    """Up to :data:`READ_DECISIONS` decisions of a row group, as the warm start needs them: the
    dense observations, every legal move (its id and, for move-scores, its features) and the
    (decision, legal move) pairs learned from, with their targets and weights."""

    observation: npt.NDArray[np.float32]
    actions: npt.NDArray[np.int32]
    moves: npt.NDArray[np.float32] | None
    decision: npt.NDArray[np.int64]
    move: npt.NDArray[np.int64]
    target: npt.NDArray[np.float32]
    weight: npt.NDArray[np.float32]
    searched: int
    """Decisions of a search in this read."""


class _Batcher:
    """Rows gathered into batches of exactly ``size`` (one compiled step): the rows of one read
    that do not fill a batch wait for the next read's (fewer than ``size`` rows wait), and the
    last ones are padded with rows of weight 0, so that no step learns from a handful of rows
    as from a whole batch."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._parts: list[tuple[Samples, npt.NDArray[np.float32]]] = []
        self._count = 0

    def add(self, rows: Samples, weights: npt.NDArray[np.float32]) -> None:
        self._parts.append((rows, weights))
        self._count += len(rows)

    def take(self) -> tuple[Samples, npt.NDArray[np.float32]] | None:
        """The next full batch, or None while fewer than ``size`` rows wait."""
        if self._count < self.size:
            return None
        rows = Samples.concat([p[0] for p in self._parts])
        weights = np.concatenate([p[1] for p in self._parts])
        self._parts = [(rows[self.size :], weights[self.size :])]
        self._count -= self.size
        return rows[: self.size], weights[: self.size]

    def rest(self) -> tuple[Samples, npt.NDArray[np.float32]] | None:
        """The rows left, padded to a batch (None if none are left)."""
        if not self._count:
            return None
        rows = Samples.concat([p[0] for p in self._parts])
        weights = np.concatenate([p[1] for p in self._parts])
        pad = self.size - self._count
        inputs = np.concatenate([rows.inputs, np.zeros((pad, rows.inputs.shape[1]), np.float32)])
        columns = np.concatenate([rows.columns, np.zeros(pad, np.int32)])
        targets = np.concatenate([rows.targets, np.zeros(pad, np.float32)])
        self._parts, self._count = [], 0
        padded = np.concatenate([weights, np.zeros(pad, np.float32)])
        return Samples(inputs, columns, targets), padded


def _pyarrow_modules() -> tuple[Any, Any, Any, Any]:
    try:
        import pyarrow as pa  # type: ignore[import-untyped]

        from panda_core.selfplay import integrity, reader, schema
    except ImportError as err:
        raise WarmStartError(
            f"the warm start reads a self-play dataset, which needs pyarrow: pip install "
            f"'panda-core[dataset]' ({err})"
        ) from None
    return pa, integrity, reader, schema


def open_dataset(settings: TrainSettings, info: GameInfo) -> WarmStartData:
    """The warm start dataset of ``settings`` (``warm_start``), its manifest checked to fit the
    run ``info`` describes (module docstring; :meth:`WarmStartData.check` reads the shards)."""
    pa, integrity, reader, schema = _pyarrow_modules()
    import pyarrow.fs as pafs  # type: ignore[import-untyped]

    from panda_core.selfplay.run import MANIFEST, filesystem

    path = settings.warm_start
    assert path is not None
    where = f"warm start dataset {path!r}"
    try:
        fs, folder = filesystem(path)
        kind = fs.get_file_info(folder).type
    except (OSError, ValueError, pa.ArrowException) as err:
        raise WarmStartError(f"{where}: cannot be reached ({err})") from None
    if kind == pafs.FileType.NotFound:
        raise WarmStartError(
            f"{where}: nothing there; give the folder panda-core selfplay --search-stats wrote"
        )
    if kind != pafs.FileType.Directory:
        raise WarmStartError(
            f"{where} is not a folder: give the folder of a self-play dataset (with its "
            f"{MANIFEST}), not one of its files"
        )
    manifest_path = f"{folder}/{MANIFEST}"
    if fs.get_file_info(manifest_path).type == pafs.FileType.NotFound:
        raise WarmStartError(
            f"{where} has no {MANIFEST}: not a finished self-play dataset (an unfinished one "
            "is finished by running the same panda-core selfplay command again)"
        )
    try:
        handle, _ = integrity.open_input(fs, manifest_path, integrity.MAX_JSON_BYTES, "manifest")
        with handle:
            raw = handle.read(integrity.MAX_JSON_BYTES + 1)
    except (ArgumentError, OSError, pa.ArrowException) as err:
        raise WarmStartError(f"{where}: {err}") from None
    if len(raw) > integrity.MAX_JSON_BYTES:
        raise WarmStartError(f"{where}: its {MANIFEST} is too large to be a manifest")
    try:
        document = json.loads(raw)
    except (UnicodeDecodeError, ValueError) as err:
        raise WarmStartError(f"{where}: its {MANIFEST} is not JSON ({err})") from None
    if not isinstance(document, dict) or document.get("format") != schema.FORMAT:
        found = document.get("format") if isinstance(document, dict) else document
        raise WarmStartError(
            f"{where} is not a self-play dataset (its {MANIFEST} says format "
            f"{str(found)[:40]!r}, not {schema.FORMAT!r})"
        )
    try:
        # The reader's own look at the folder: its manifest's shards checked to be shard names.
        _, _, names, checked = reader._where(path)
    except (ArgumentError, OSError, pa.ArrowException) as err:
        raise WarmStartError(f"{where}: {err}") from None
    if checked != document:
        raise WarmStartError(f"{where}: its {MANIFEST} changed while it was read")
    data = WarmStartData(
        where=where,
        fs=fs,
        folder=folder,
        names=tuple(names),
        manifest=document,
        sha256=hashlib.sha256(raw).hexdigest(),
        info=info,
        min_visits=settings.warm_start_min_visits,
    )
    data.check_manifest(settings, schema.FORMAT, schema.FORMAT_VERSION)
    return data


@dataclass(frozen=True)
class WarmStartData:
    """A warm start dataset whose manifest fits the run (:func:`open_dataset`)."""

    where: str
    fs: Any
    folder: str
    names: tuple[str, ...]
    manifest: dict[str, Any]
    sha256: str
    """Of ``_dataset.json``'s bytes: the dataset's identity (``warm_start_sha256``)."""
    info: GameInfo
    min_visits: int

    def check_manifest(self, settings: TrainSettings, fmt: str, version: int) -> None:
        """``WarmStartError`` unless the manifest is a search-stats dataset of this run's game
        and layouts."""
        doc, info, where = self.manifest, self.info, self.where
        if doc.get("format") != fmt:
            raise WarmStartError(
                f"{where} is not a self-play dataset (its manifest says format "
                f"{str(doc.get('format'))[:40]!r}, not {fmt!r})"
            )
        if doc.get("format_version") != version:
            raise WarmStartError(
                f"{where} has self-play format version {str(doc.get('format_version'))[:20]}; "
                f"this panda-core reads version {version}: write it again with this panda-core"
            )
        if doc.get("search_stats") is not True:
            raise WarmStartError(
                f"{where} was written without search stats (no search_visits, search_values): "
                "the warm start learns a search's move values; write the dataset with a search "
                "bot and --search-stats, e.g. panda-core selfplay --bots ismcts:400 "
                "--search-stats --move-features"
            )
        layouts: dict[str, object] = {
            "game": info.name,
            "players": settings.players,
            "observation_size": info.observation_size,
            "num_actions": info.num_actions,
            "move_feature_size": info.move_features,
        }
        # Layout names, when the dataset records them (its sizes always say the layout's size).
        for key, name in (
            ("observation_layout", info.observation_layout),
            ("move_features_layout", info.move_features_layout),
        ):
            if key in doc:
                layouts[key] = name
        for key, mine in layouts.items():
            if doc.get(key) != mine:
                raise WarmStartError(
                    f"{where} is a dataset of {key} {shown(doc.get(key))}; this run has "
                    f"{mine!r}: the warm start needs a dataset of the run's game, players and "
                    "layouts"
                )
        if info.kind == "move-scores" and doc.get("move_features") is not True:
            raise WarmStartError(
                f"{where} was written without move features: a {info.name} network scores "
                "each legal move's features, so the warm start needs them; write the dataset "
                "with --move-features (selfplay(..., move_features=True))"
            )
        if not self.names:
            raise WarmStartError(f"{where} holds no shards")

    def identify(self, settings: TrainSettings) -> TrainSettings:
        """``settings`` with ``warm_start_sha256`` this dataset's; ``WarmStartError`` if they
        name another dataset already (the run was started with another one)."""
        known = settings.warm_start_sha256
        if known is not None and known != self.sha256:
            raise WarmStartError(
                f"{self.where} is not the dataset the run was started with (its _dataset.json "
                f"has sha256 {self.sha256[:12]}…, the run's {known[:12]}…): give that dataset"
            )
        return replace(settings, warm_start_sha256=self.sha256)

    # ---- reading ----------------------------------------------------------------------------

    def _open(self, name: str) -> Any:
        """The shard ``name`` open, checked as the reader checks it, with the search columns."""
        pa, _, reader, _ = _pyarrow_modules()
        try:
            shard = reader._Shard(self.fs, self.folder, name, self.manifest, True)
        except (ArgumentError, OSError, pa.ArrowException) as err:
            raise WarmStartError(f"{self.where}: {err}") from None
        try:
            if shard.identity != self.manifest.get("settings_sha256"):
                raise WarmStartError(
                    f"{self.where}: {shard.path} belongs to another dataset than its manifest "
                    "says: it is not mixed in"
                )
            try:
                expected = reader._expected_schema(shard)
            except ArgumentError as err:
                raise WarmStartError(f"{self.where}: {err}") from None
            found = shard.schema.remove_metadata()
            base = pa.schema([f for f in found if f.name not in SEARCH_COLUMNS])
            if not base.equals(pa.schema([f for f in expected if f.name not in SEARCH_COLUMNS])):
                raise WarmStartError(
                    f"{self.where}: {shard.path}: its columns are not those of a self-play shard"
                )
            for column, item in _SEARCH_TYPES.items():
                kind = found.field(column).type if column in found.names else None
                if kind is None or not pa.types.is_list(kind) or str(kind.value_type) != item:
                    raise WarmStartError(
                        f"{self.where}: {shard.path} has no {column} column of list<{item}> "
                        "(a dataset with search stats has search_visits list<int32> and "
                        "search_values list<float>)"
                    )
        except BaseException:
            shard.close()
            raise
        return shard

    def _reads(self, shard: Any, group: int) -> Iterator[_Read]:
        """Row group ``group`` of ``shard``, :data:`READ_DECISIONS` decisions at a time."""
        pa, _, reader, _ = _pyarrow_modules()
        columns = ["observation_index", "observation_value", "legal_actions", "action"]
        columns += SEARCH_COLUMNS
        if self.info.kind == "move-scores":
            columns += ["move_index", "move_features"]
        where = f"{self.where}: {shard.path}, row group {group}"
        size = shard.file.metadata.row_group(group).total_byte_size
        if size > MAX_ROW_GROUP_BYTES:
            raise WarmStartError(
                f"{where}: {size:,} bytes uncompressed, more than the {MAX_ROW_GROUP_BYTES:,} a "
                "row group is read at (the self-play writer cuts them at 64 MB)"
            )
        batches = shard.file.iter_batches(
            batch_size=READ_DECISIONS, row_groups=[group], columns=columns
        )
        row = 0
        while True:
            try:
                batch = next(batches)
            except StopIteration:
                return
            except (OSError, pa.ArrowException, ValueError) as err:
                raise WarmStartError(f"{where}: cannot be read ({err})") from None
            if not batch.num_rows:
                continue
            try:
                # The reader's id checks on the columns it knows; the search columns are checked
                # here (_pairs), against the moves the network values (in a climbing game the
                # legal moves, not the legal action ids).
                known = [n for n in batch.schema.names if n not in SEARCH_COLUMNS]
                reader._check_ids(batch.select(known), shard.settings)
                out = reader.to_numpy(batch, shard.settings)
            except (ArgumentError, pa.ArrowException, ValueError) as err:
                raise WarmStartError(f"{where}, from row {row}: damaged values ({err})") from None
            yield self._pairs(out, f"{where}, from row {row}")
            row += batch.num_rows

    def _pairs(self, out: dict[str, Any], where: str) -> _Read:
        """The (decision, legal move) pairs of one read learned from, its columns checked.

        The search's lists hold one entry per legal move the network values: per legal action
        id (``legal_actions``) in an action-values game, per legal move (``move_features``
        rows, ``legal_moves()`` order) in a move-scores game, where an action id names a class
        of moves (docs/selfplay.md, "Columns") and so cannot be valued as one move."""
        moves = None
        if self.info.kind == "move-scores":
            moves = out["move_features"]
            legal = out["move_features_offsets"]
            unit = "legal moves (move_features rows)"
        else:
            legal = out["legal_actions_offsets"]
            unit = "legal actions"
        counts = np.diff(legal)
        visits, values = out["search_visits"], out["search_values"]
        offsets = out["search_visits_offsets"]
        found = np.diff(offsets)
        if not np.array_equal(out["search_values_offsets"], offsets):
            raise WarmStartError(f"{where}: search_values and search_visits differ in length")
        searched = found > 0
        bad = np.flatnonzero(searched & (found != counts))
        if bad.size:
            r = int(bad[0])
            raise WarmStartError(
                f"{where}: row {r} has {int(found[r])} search entries for {int(counts[r])} "
                f"{unit} (the search lists have one entry per legal move, or none)"
            )
        if visits.size and int(visits.min()) < 0:
            raise WarmStartError(f"{where}: search_visits holds a negative count")
        if values.size and not (
            np.isfinite(values).all() and float(np.abs(values).max()) <= 1.0 + _VALUE_SLACK
        ):
            raise WarmStartError(f"{where}: search_values holds a value outside [-1, 1]")
        rows = np.flatnonzero(searched)
        self._check_played(out, rows, offsets, where, unit)
        decision = np.repeat(rows, counts[rows])
        # Entry j of the search lists is legal move (j + start of its row's legal moves - start
        # of its row's search entries): the lists of the searched rows are aligned.
        move = np.arange(visits.size) + np.repeat(
            legal[:-1][rows] - offsets[:-1][rows], counts[rows]
        )
        total = np.bincount(decision, weights=visits, minlength=len(counts))
        keep = (visits >= self.min_visits) & (total[decision] > 0)
        weight = (visits[keep] / total[decision[keep]]).astype(np.float32)
        return _Read(
            observation=out["observation"],
            actions=out["legal_actions"],
            moves=moves,
            decision=decision[keep].astype(np.int64),
            move=move[keep].astype(np.int64),
            target=values[keep].astype(np.float32),
            weight=weight,
            searched=int(rows.size),
        )

    def _check_played(
        self,
        out: dict[str, Any],
        rows: npt.NDArray[np.intp],
        offsets: npt.NDArray[np.int64],
        where: str,
        unit: str,
    ) -> None:
        """``WarmStartError`` unless each search decision's move played has the most visits of
        its lists (a search bot plays its most visited move): what shows the lists follow the
        order of the moves the network values, not another (a climbing game's ``legal_actions``
        order is not its ``legal_moves()`` order, and its ids name classes of moves)."""
        if not rows.size:
            return
        counts = np.diff(offsets)[rows]
        if self.info.kind == "move-scores":
            played = out["move_index"][rows].astype(np.int64)
            what = "move_index"
        else:  # the position of the action played among the row's legal actions
            legal = out["legal_actions_offsets"]
            ids = out["legal_actions"]
            hit = np.flatnonzero(ids == np.repeat(out["action"], np.diff(legal)))
            owner = np.searchsorted(legal, hit, side="right") - 1
            position = np.full(len(legal) - 1, -1, dtype=np.int64)
            position[owner] = hit - legal[owner]
            played = position[rows]
            what = "action"
        visits = out["search_visits"]
        starts = offsets[:-1][rows]
        best = np.maximum.reduceat(visits, starts)
        inside = (played >= 0) & (played < counts)
        chosen = visits[starts + np.where(inside, played, 0)]
        bad = np.flatnonzero(~inside | (chosen != best))
        if bad.size:
            r = int(rows[bad[0]])
            raise WarmStartError(
                f"{where}: row {r}: the move played (its {what}) is not the one the search "
                f"visited most, as a search bot's always is: the search lists do not follow "
                f"the order of the {unit}"
            )

    def _groups(self, shard: Any) -> int:
        return int(shard.file.num_row_groups)

    def check(self) -> tuple[int, int]:
        """Read every shard once with every check (module docstring): the search decisions
        and the (decision, move) rows learned from per pass; ``WarmStartError`` if there are
        none."""
        searched = rows = 0
        for name in self.names:
            shard = self._open(name)
            try:
                for group in range(self._groups(shard)):
                    for read in self._reads(shard, group):
                        searched += read.searched
                        rows += len(read.decision)
            finally:
                shard.close()
        if not searched:
            raise WarmStartError(
                f"{self.where} holds no decision of a search bot (every search_visits list is "
                "empty): write it with a search bot, e.g. --bots ismcts:400"
            )
        if not rows:
            raise WarmStartError(
                f"{self.where}: no move of its {searched:,} search decisions was visited "
                f"{self.min_visits} times or more (warm_start_min_visits): lower it"
            )
        return searched, rows

    # ---- fitting ----------------------------------------------------------------------------

    def _rows(
        self, read: _Read, chosen: npt.NDArray[np.int64]
    ) -> tuple[Samples, npt.NDArray[np.float32]]:
        """The rows ``chosen`` of ``read``: the inputs and output columns self-play gives the
        same moves (``actor.py``), their targets and weights."""
        decision, move = read.decision[chosen], read.move[chosen]
        observation = read.observation[decision]
        if read.moves is not None:  # move-scores: the move's features after the observation
            inputs = np.concatenate([observation, read.moves[move]], axis=1)
            columns = np.zeros(len(chosen), dtype=np.int32)
        else:  # action-values: the move's action id is its output column
            inputs = observation
            columns = read.actions[move].astype(np.int32)
        return Samples(inputs, columns, read.target[chosen]), read.weight[chosen]

    def fit(
        self, learner: Learner, params: Params, settings: TrainSettings, stop: StopOnInterrupt
    ) -> tuple[Params, WarmStartResult]:
        """The network ``params`` fitted over ``settings.warm_start_epochs`` passes (module
        docstring); ``KeyboardInterrupt`` between two steps or reads once ``stop`` is
        requested (nothing is kept: the resumed run does the warm start again, exactly)."""
        start = time.perf_counter()
        state = learner.init(params)
        rng = np.random.default_rng(np.random.SeedSequence([settings.seed, 2]))
        size = settings.batch_size
        total: jax.Array = jnp.float32(0.0)
        steps = rows = 0
        batcher = _Batcher(size)
        for _ in range(settings.warm_start_epochs):
            for index in rng.permutation(len(self.names)):
                if stop.requested:
                    raise KeyboardInterrupt
                shard = self._open(self.names[int(index)])
                try:
                    for group in rng.permutation(self._groups(shard)):
                        for read in self._reads(shard, int(group)):
                            order = rng.permutation(len(read.decision))
                            rows += len(order)
                            for first in range(0, len(order), size):
                                batcher.add(*self._rows(read, order[first : first + size]))
                                while (full := batcher.take()) is not None:
                                    if stop.requested:
                                        raise KeyboardInterrupt
                                    params, state, loss = learner.fit_step(params, state, *full)
                                    total = total + loss
                                    steps += 1
                finally:
                    shard.close()
        last = batcher.rest()
        if last is not None:  # the rows short of a batch, padded with rows of no weight
            params, state, loss = learner.fit_step(params, state, *last)
            total = total + loss
            steps += 1
        result = WarmStartResult(
            dataset_sha256=self.sha256,
            epochs=settings.warm_start_epochs,
            steps=steps,
            rows=rows,
            loss_sum=float(np.asarray(total)),
            seconds=time.perf_counter() - start,
        )
        return params, result
