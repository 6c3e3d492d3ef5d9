"""``train_state.safetensors``: everything a run needs to go on exactly where it stopped — the
parameters, the Adam state, the counters and the self-play state (the envs mid-game, the
decisions waiting for their games to end, the random generators).

The format cannot run code: a safetensors file (tensors and a string-to-string header, nothing
else; docs/train_your_agent.md, "The train state"). Its tensors are the network's and Adam's
arrays, named by their place in the tree (``params['params']['Dense_0']['kernel']``,
``opt_state[0].mu['params']…``; with ``ema``, the averaged weights ``ema['params']…``), and the
self-play arrays (``actor.*``, ``pending.*``; with a round target, ``actor.rounds``,
``actor.buffer.round_ids`` and ``actor.buffer.round_values``; with opponents,
``actor.opponents.draws`` and the past selves' weights ``past.G['params']…``, ``G`` each kept
snapshot's generation); its header metadata holds

* ``format`` / ``format_version`` (:data:`STATE_FORMAT`, :data:`STATE_VERSION`);
* ``state``: a JSON document with the game, the sha256 of the run's settings
  (:meth:`TrainSettings.identity`), the counters, the generators' states and the engine's own
  JSON document of the vector envs;
* ``sha256``: of the ``state`` document and every tensor (name, dtype, shape, bytes), in name
  order.

Reading checks, before anything is trusted: a regular file of bounded size, a bounded header,
the format and version, the sha256, the game and settings hash against the run's, every tensor
present with the dtype and shape the settings give (no other tensor), and the values used as
indices in range; the engine checks its env document. The tree structure of the parameters and
of Adam's state comes from the code (fresh ones of the run's settings), never from the file.
Anything wrong is a :class:`TrainError` naming the file and what is wrong. A pickle (the
``train_state`` of panda-core before this format) is recognised and refused unread.

The file is written whole under a temporary name, synced and renamed, so a crash leaves the
previous checkpoint.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import struct
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

import jax
import numpy as np
import numpy.typing as npt

from panda_core._files import open_regular
from panda_core.train._game import GameInfo
from panda_core.train.errors import TrainError
from panda_core.train.network import Params
from panda_core.train.settings import PAST_SELVES, TrainSettings

__all__ = [
    "MAX_HEADER_BYTES",
    "MAX_STATE_BYTES",
    "STATE_FORMAT",
    "STATE_VERSION",
    "Counters",
    "TrainState",
    "load_state",
    "save_state",
]

STATE_FORMAT = "panda-core-train-state"
STATE_VERSION = "2"
"""Version 1 was a pickle (refused unread); version 2 is this safetensors file."""
MAX_HEADER_BYTES = 64 << 20
"""Largest header read (the env document of 16,384 climbing envs is about 12 MB)."""
MAX_STATE_BYTES = 16 << 30
"""Largest train state read: the biggest network the settings allow, its Adam state and a
buffer of unfinished games fit far below it."""
_DTYPES = {"F32": np.float32, "I32": np.int32, "I64": np.int64, "BOOL": np.bool_}
_PICKLE_PROTOCOL = 0x80  # the first byte of every pickle of protocol 2 and later
_PICKLE_VERSIONS = frozenset(bytes([v]) for v in range(2, 6))  # the protocol byte after it
SETTINGS_NAME = "settings.json"


@dataclass(frozen=True)
class Counters:
    """How far a run got."""

    decisions: int = 0
    """Self-play decisions played."""
    seconds: float = 0.0
    """Training wall time so far, over every session (evaluations excluded)."""
    steps: int = 0
    """Gradient steps taken."""
    loss_sum: float = 0.0
    loss_count: int = 0
    """Sum and count of the losses since the last curve row (its ``loss`` column)."""
    row_due: bool = True
    """This state is a point of the curve (the start, every ``eval_every`` decisions, the end)
    whose row is not written yet: true from the checkpoint before an evaluation until the row is
    written, so a resumed run evaluates an interrupted row again."""


@dataclass
class TrainState:
    """A run's state between two steps."""

    params: Params
    opt_state: Any
    counters: Counters
    actor: Any
    """The self-play :class:`~panda_core.train.actor.Actor` (None before the first step)."""
    pending: Any = None
    """Finished decisions not learned from yet (fewer than a shuffle's worth), or None."""
    ema: Any = None
    """The moving average of the parameters (settings ``ema``), or None."""
    warm_start: dict[str, Any] | None = None
    """What the warm start did (settings ``warm_start``; ``WarmStartResult.record``), or None:
    a state of a warm-started run always has it (it is written only once the warm start is
    done)."""


# ---- writing ------------------------------------------------------------------------------------


def _leaves(prefix: str, tree: Any) -> dict[str, npt.NDArray[Any]]:
    """The arrays of a parameter or optimizer tree, named by their path in it."""
    pairs, _ = jax.tree_util.tree_flatten_with_path(jax.device_get(tree))
    return {prefix + jax.tree_util.keystr(path): np.asarray(leaf) for path, leaf in pairs}


def _digest(document: str, tensors: dict[str, npt.NDArray[Any]]) -> str:
    digest = hashlib.sha256(document.encode())
    for name in sorted(tensors):
        array = np.asarray(tensors[name], order="C")  # (ascontiguousarray makes 0-d 1-d)
        digest.update(f"\0{name}\0{array.dtype.str}\0{array.shape}\0".encode())
        digest.update(array.tobytes())
    return digest.hexdigest()


def save_state(path: str | os.PathLike[str], state: TrainState, settings: TrainSettings) -> None:
    """Write ``state`` of the run ``settings`` to ``path`` atomically."""
    from safetensors.numpy import save

    tensors = {**_leaves("params", state.params), **_leaves("opt_state", state.opt_state)}
    if settings.ema is not None:
        tensors.update(_leaves("ema", state.ema))
    actor: dict[str, Any] | None = None
    if state.actor is not None:
        actor, arrays = state.actor.snapshot()
        tensors.update({f"actor.{name}": array for name, array in arrays.items()})
        if state.actor.opponents is not None:
            for generation, past in state.actor.opponents.past.items():
                tensors.update(_leaves(f"past.{generation}", past))
    if state.pending is not None:
        pending = state.pending
        tensors.update(
            {
                "pending.inputs": pending.inputs,
                "pending.columns": pending.columns,
                "pending.targets": pending.targets,
            }
        )
    tensors = {
        name: np.asarray(a, dtype=a.dtype.newbyteorder("<"), order="C")
        for name, a in tensors.items()
    }
    fields_ = {
        "game": settings.game,
        "settings_sha256": settings.identity(),
        "counters": asdict(state.counters),
        "actor": actor,
        "pending": state.pending is not None,
    }
    if state.warm_start is not None:  # absent otherwise: a run without one writes what it did
        fields_["warm_start"] = state.warm_start
    document = json.dumps(
        fields_,
        sort_keys=True,
        separators=(",", ":"),
    )
    metadata = {
        "format": STATE_FORMAT,
        "format_version": STATE_VERSION,
        "state": document,
        "sha256": _digest(document, tensors),
    }
    target = Path(path)
    temporary = target.with_name(target.name + ".tmp")
    with temporary.open("wb") as out:
        out.write(save(tensors, metadata=metadata))
        out.flush()
        os.fsync(out.fileno())
    os.replace(temporary, target)


# ---- reading ------------------------------------------------------------------------------------


def _expected(
    info: GameInfo,
    settings: TrainSettings,
    params: Params,
    opt_state: Any,
    document: dict[str, Any],
    generations: list[int],
) -> dict[str, tuple[str, tuple[int | str, ...]]]:
    """Every tensor the file must hold: name -> (safetensors dtype, shape), a ``str`` in a shape
    being a length the file decides (the same letter, the same length); ``generations``: the
    past selves the document lists (checked by :func:`_generations`), each a tree of
    ``params``'s shapes."""
    kinds = {np.dtype(v): k for k, v in _DTYPES.items()}
    expected: dict[str, tuple[str, tuple[int | str, ...]]] = {}
    trees = [("params", params), ("opt_state", opt_state)]
    if settings.ema is not None:
        trees.append(("ema", params))
    trees += [(f"past.{generation}", params) for generation in generations]
    for prefix, tree in trees:
        for name, leaf in _leaves(prefix, tree).items():
            expected[name] = (kinds[leaf.dtype], tuple(leaf.shape))
    envs, players = settings.num_envs, settings.players
    if document["actor"] is not None:
        expected.update(
            {
                "actor.obs": ("F32", (envs, info.observation_size)),
                "actor.mask": ("BOOL", (envs, info.num_actions)),
                "actor.player": ("I64", (envs,)),
                "actor.games": ("I64", (envs,)),
                "actor.lengths": ("I64", (envs,)),
                "actor.buffer.rows": ("F32", ("n", info.input_size)),
                "actor.buffer.columns": ("I32", ("n",)),
                "actor.buffer.seats": ("I64", ("n",)),
                "actor.buffer.games": ("I64", ("n",)),
                "actor.buffer.finished": ("BOOL", ("g",)),
                "actor.buffer.rewards": ("F32", ("g", players)),
            }
        )
        if settings.opponents != "self":
            expected["actor.opponents.draws"] = ("I64", (envs,))
        if settings.target != "game":
            expected.update(
                {
                    "actor.rounds": ("I64", (envs,)),
                    "actor.buffer.round_ids": ("I64", ("n",)),
                    "actor.buffer.round_values": ("F32", ("r", players)),
                }
            )
    if document["pending"]:
        expected.update(
            {
                "pending.inputs": ("F32", ("p", info.input_size)),
                "pending.columns": ("I32", ("p",)),
                "pending.targets": ("F32", ("p",)),
            }
        )
    return expected


def _check_tensors(
    where: str, header: dict[str, Any], expected: dict[str, tuple[str, tuple[int | str, ...]]]
) -> int:
    """Check the header's tensors against ``expected`` before any data is read; the bytes of
    tensor data the header declares."""
    missing = sorted(set(expected) - set(header))
    if missing:
        raise TrainError(f"{where}: tensors missing: {', '.join(missing[:5])}")
    extra = sorted(set(header) - set(expected))
    if extra:
        raise TrainError(f"{where}: unexpected tensors: {', '.join(x[:60] for x in extra[:5])}")
    lengths: dict[str, int] = {}
    end = 0
    for name, (dtype, shape) in expected.items():
        entry = header[name]
        found = entry.get("shape") if isinstance(entry, dict) else None
        if not isinstance(entry, dict) or entry.get("dtype") != dtype:
            got = entry.get("dtype") if isinstance(entry, dict) else entry
            raise TrainError(f"{where}: tensor {name} has dtype {str(got)[:20]!r}, not {dtype}")
        dims: list[Any] = found if isinstance(found, list) else []
        ok = isinstance(found, list) and len(dims) == len(shape)
        for want, got in zip(shape, dims if ok else [], strict=False):
            if isinstance(got, bool) or not isinstance(got, int) or got < 0:
                ok = False
            elif isinstance(want, str):
                ok = ok and lengths.setdefault(want, got) == got
            else:
                ok = ok and want == got
        if not ok:
            raise TrainError(
                f"{where}: tensor {name} has shape {str(found)[:40]}, the run's settings give "
                f"{list(shape)}"
            )
        offsets = entry.get("data_offsets")
        if isinstance(offsets, list) and len(offsets) == 2 and isinstance(offsets[1], int):
            end = max(end, offsets[1])
    return end


def _header(where: str, handle: Any, size: int) -> tuple[bytes, dict[str, Any]]:
    """The raw prefix (length and header) and the parsed header, bounded and checked."""
    prefix = handle.read(8)
    length = struct.unpack("<Q", prefix)[0] if len(prefix) == 8 else None
    plausible = length is not None and length <= MAX_HEADER_BYTES and length <= size - 8
    raw = handle.read(length) if plausible else b""
    # A pickle starts with the PROTO opcode and its protocol; a safetensors file with its header's
    # length, whose low byte may be that same opcode (a 1,152-byte header is 80 04 00 ...). So a
    # file is a pickle only when it does not read as safetensors: no plausible length, or no JSON
    # object after it.
    looks_pickled = prefix[:1] == bytes([_PICKLE_PROTOCOL]) and prefix[1:2] in _PICKLE_VERSIONS
    if looks_pickled and not raw.startswith(b"{"):
        raise TrainError(
            f"{where}: a pickle (the train state of an older panda-core), not a safetensors train "
            "state: it is not read, since unpickling can run any code. Resume the run with the "
            "panda-core that wrote it, or start afresh (docs/train_your_agent.md, 'Resuming')"
        )
    if length is None:
        raise TrainError(f"{where}: truncated ({size} bytes): not a train state")
    if not plausible:
        raise TrainError(
            f"{where}: header of {length} bytes in a file of {size} (at most "
            f"{MAX_HEADER_BYTES}): truncated or not a train state"
        )
    try:
        header = json.loads(raw)
    except (UnicodeDecodeError, ValueError) as err:
        raise TrainError(f"{where}: damaged header (not JSON: {err})") from None
    if not isinstance(header, dict):
        raise TrainError(f"{where}: damaged header (not a JSON object)")
    return prefix + raw, header


def _document(where: str, metadata: Any, settings: TrainSettings) -> dict[str, Any]:
    """The ``state`` document of the header metadata, checked to belong to this run."""
    if not isinstance(metadata, dict) or metadata.get("format") != STATE_FORMAT:
        raise TrainError(f"{where}: not a train state (no {STATE_FORMAT!r} metadata)")
    if metadata.get("format_version") != STATE_VERSION:
        raise TrainError(
            f"{where}: train state version {str(metadata.get('format_version'))[:20]!r}; this "
            f"trainer reads version {STATE_VERSION}"
        )
    try:
        document = json.loads(str(metadata.get("state")))
    except ValueError as err:
        raise TrainError(f"{where}: damaged state document ({err})") from None
    if not (
        isinstance(document, dict)
        and {"game", "settings_sha256", "counters", "actor", "pending"} <= set(document)
        and isinstance(document["pending"], bool)
        and (document["actor"] is None or isinstance(document["actor"], dict))
    ):
        raise TrainError(f"{where}: damaged state document (missing or bad fields)")
    if document["game"] != settings.game:
        raise TrainError(
            f"{where}: a train state of a {str(document['game'])[:20]!r} run, not of this "
            f"{settings.game!r} run"
        )
    if document["settings_sha256"] != settings.identity():
        raise TrainError(
            f"{where}: the train state of a run with other settings than {SETTINGS_NAME} says "
            "(its settings hash differs): it does not belong to this run folder"
        )
    return document


def _generations(where: str, document: dict[str, Any], settings: TrainSettings) -> list[int]:
    """The past selves' generations the self-play state lists (opponents of kind ``past``),
    checked before they name any tensor: increasing, below ``next_generation``, at most
    :data:`PAST_SELVES` plus one per env (a game in progress keeps its past self)."""
    actor = document["actor"]
    if actor is None or settings.opponents == "self":
        return []
    opponents = actor.get("opponents")
    if not isinstance(opponents, dict) or set(opponents) != {
        "rng",
        "generations",
        "next_generation",
    }:
        raise TrainError(f"{where}: damaged opponents state (fields)")
    generations, next_generation = opponents["generations"], opponents["next_generation"]
    past = "past" in settings.opponent_envs()
    ok = (
        isinstance(next_generation, int)
        and not isinstance(next_generation, bool)
        and 0 <= next_generation < 2**62
        and isinstance(generations, list)
        and all(isinstance(g, int) and not isinstance(g, bool) for g in generations)
        and generations == sorted(set(generations))
        and all(0 <= g < next_generation for g in generations)
        and (1 <= len(generations) <= PAST_SELVES + settings.num_envs if past else not generations)
    )
    if not ok:
        raise TrainError(
            f"{where}: damaged opponents state (past selves {str(generations)[:60]}, next "
            f"{str(next_generation)[:30]})"
        )
    return list(generations)


def _counters(where: str, value: object) -> Counters:
    names = {f.name: f.type for f in fields(Counters)}
    if not isinstance(value, dict) or set(value) != set(names):
        raise TrainError(f"{where}: damaged counters")
    for name, kind in names.items():
        v = value[name]
        if kind == "bool":
            ok = isinstance(v, bool)
        elif kind == "int":
            ok = isinstance(v, int) and not isinstance(v, bool) and 0 <= v < 2**62
        else:
            ok = isinstance(v, int | float) and not isinstance(v, bool)
            ok = ok and (math.isfinite(v) or name == "loss_sum") and (name != "seconds" or v >= 0)
        if not ok:
            raise TrainError(f"{where}: damaged counters ({name} = {str(v)[:30]})")
    return Counters(**value)


def _generator(where: str, state: object) -> np.random.Generator:
    generator = np.random.Generator(np.random.PCG64())
    try:
        if not isinstance(state, dict) or state.get("bit_generator") != "PCG64":
            raise ValueError("not a PCG64 state")
        generator.bit_generator.state = state
    except (TypeError, ValueError, KeyError, OverflowError) as err:
        raise TrainError(f"{where}: damaged random generator state ({err})") from None
    return generator


def _in_range(where: str, name: str, array: npt.NDArray[Any], low: int, high: int) -> None:
    if array.size and (int(array.min()) < low or int(array.max()) >= high):
        raise TrainError(f"{where}: tensor {name} holds values outside {low}..{high - 1}")


def _actor(
    where: str,
    values: dict[str, Any],
    tensors: dict[str, npt.NDArray[Any]],
    info: GameInfo,
    settings: TrainSettings,
    params: Params,
    generations: list[int],
) -> Any:
    from panda_core._core import PandaCoreError
    from panda_core.train.actor import Actor
    from panda_core.train.buffer import EpisodeBuffer

    rounds = settings.target != "game"
    names = {"env", "rng", "shuffle_rng", "next_game", "ready"}
    if rounds:
        names |= {"next_round", "round_base"}
    if settings.opponents != "self":
        names.add("opponents")
    if set(values) != names:
        raise TrainError(f"{where}: damaged self-play state (fields)")
    next_game, ready = values["next_game"], values["ready"]
    arrays = {k[len("actor.") :]: v for k, v in tensors.items() if k.startswith("actor.")}
    rows = arrays["buffer.rows"].shape[0]
    tables = arrays["buffer.finished"].shape[0]
    checked = [("next_game", next_game, 2**62), ("ready", ready, rows + 1)]
    next_round = round_base = None
    if rounds:
        next_round, round_base = values["next_round"], values["round_base"]
        checked += [("next_round", next_round, 2**62), ("round_base", round_base, 2**62)]
    for name, value, high in checked:
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < high:
            raise TrainError(f"{where}: damaged self-play state ({name} = {str(value)[:30]})")
    if rounds:
        assert isinstance(next_round, int) and isinstance(round_base, int)
        known = round_base + arrays["buffer.round_values"].shape[0]
        _in_range(where, "actor.rounds", arrays["rounds"], round_base, next_round)
        _in_range(where, "actor.buffer.round_ids", arrays["buffer.round_ids"], round_base, known)
    _in_range(where, "actor.player", arrays["player"], 0, settings.players)
    _in_range(where, "actor.buffer.seats", arrays["buffer.seats"], 0, settings.players)
    _in_range(where, "actor.buffer.games", arrays["buffer.games"], 0, tables)
    _in_range(where, "actor.games", arrays["games"], 0, next_game)
    _in_range(where, "actor.lengths", arrays["lengths"], 0, 2**62)
    if info.kind == "action-values":
        _in_range(where, "actor.buffer.columns", arrays["buffer.columns"], 0, info.num_actions)
    else:
        _in_range(where, "actor.buffer.columns", arrays["buffer.columns"], 0, 1)
    if not isinstance(values["env"], str):
        raise TrainError(f"{where}: damaged self-play state (env)")
    kind = type(info.new_vector_env(1, settings.players, 1))
    try:
        env = kind._from_state(values["env"])  # the engine checks its own document
    except PandaCoreError as err:
        raise TrainError(f"{where}: damaged self-play envs ({err})") from None
    if env.num_envs != settings.num_envs or env.players != settings.players:
        raise TrainError(
            f"{where}: self-play envs of {env.num_envs} games of {env.players} players; the "
            f"settings say {settings.num_envs} of {settings.players}"
        )
    generators = (_generator(where, values["rng"]), _generator(where, values["shuffle_rng"]))
    buffer_arrays = {k[len("buffer.") :]: v for k, v in arrays.items() if k.startswith("buffer.")}
    buffer = EpisodeBuffer.restore(buffer_arrays, ready, round_base)
    opponents = None
    if settings.opponents != "self":
        past = {g: _tree(params, f"past.{g}", tensors) for g in generations}
        opponents = _opponents(where, values["opponents"], arrays, settings, past)
    return Actor.restore(
        info,
        env,
        generators,
        next_game,
        buffer,
        arrays,
        settings.skip_forced,
        next_round,
        opponents,
    )


def _opponents(
    where: str,
    values: dict[str, Any],
    arrays: dict[str, npt.NDArray[Any]],
    settings: TrainSettings,
    past: dict[int, Params],
) -> Any:
    """The opponents of the self-play state (their fields checked by :func:`_generations`;
    ``past``: the past selves it lists): each past env's draw is a kept past self, every other
    env's none."""
    from panda_core.train.opponents import NO_DRAW, PAST, Opponents

    kinds = settings.opponent_envs()
    draws = np.array(arrays["opponents.draws"], dtype=np.int64)
    is_past = np.array([k == PAST for k in kinds], dtype=np.bool_)
    if not (
        np.isin(draws[is_past], np.array(sorted(past), dtype=np.int64)).all()
        and (draws[~is_past] == NO_DRAW).all()
    ):
        raise TrainError(
            f"{where}: tensor actor.opponents.draws names past selves the state does not hold"
        )
    rng = _generator(where, values["rng"])
    return Opponents(kinds, rng, past, values["next_generation"], draws)


def load_state(
    path: str | os.PathLike[str],
    settings: TrainSettings,
    info: GameInfo,
    params: Params,
    opt_state: Any,
) -> TrainState:
    """The state at ``path`` of the run ``settings``; ``params`` and ``opt_state`` (fresh ones
    of the run's settings) give the trees and the shapes their arrays must have. Every check of
    the module docstring; ``TrainError`` naming the file otherwise."""
    from safetensors import SafetensorError
    from safetensors.numpy import load

    where = f"train state {os.fspath(path)}"
    handle, size = open_regular(path, MAX_STATE_BYTES, TrainError, "train state")
    with handle:
        head, header = _header(where, handle, size)
        metadata = header.pop("__metadata__", None)
        document = _document(where, metadata, settings)
        generations = _generations(where, document, settings)
        expected = _expected(info, settings, params, opt_state, document, generations)
        data = _check_tensors(where, header, expected)
        if size != len(head) + data:
            raise TrainError(
                f"{where}: {size} bytes, but its header describes {len(head) + data}: "
                "truncated or damaged"
            )
        body = handle.read(data + 1)
    if len(body) != data:
        raise TrainError(f"{where}: changed while it was read")
    try:
        tensors = load(head + body)
    except (SafetensorError, ValueError, TypeError) as err:
        raise TrainError(f"{where}: damaged tensors ({err})") from None
    if metadata.get("sha256") != _digest(str(metadata.get("state")), tensors):
        raise TrainError(
            f"{where}: the sha256 of its contents does not match the one it records: the file "
            "is damaged"
        )
    counters = _counters(where, document["counters"])
    warm_start = _warm_start(where, document.get("warm_start"), settings)
    actor = None
    if document["actor"] is not None:
        actor = _actor(where, document["actor"], tensors, info, settings, params, generations)
    pending = None
    if document["pending"]:
        from panda_core.train.samples import Samples

        if info.kind == "action-values":
            _in_range(where, "pending.columns", tensors["pending.columns"], 0, info.num_actions)
        else:
            _in_range(where, "pending.columns", tensors["pending.columns"], 0, 1)
        pending = Samples(
            np.array(tensors["pending.inputs"]),
            np.array(tensors["pending.columns"]),
            np.array(tensors["pending.targets"]),
        )
    return TrainState(
        params=_tree(params, "params", tensors),
        opt_state=_tree(opt_state, "opt_state", tensors),
        counters=counters,
        actor=actor,
        pending=pending,
        ema=_tree(params, "ema", tensors) if settings.ema is not None else None,
        warm_start=warm_start,
    )


def _warm_start(where: str, record: object, settings: TrainSettings) -> dict[str, Any] | None:
    """The state's warm start record, checked: present with the dataset's sha256 exactly when
    the run has a warm start."""
    if settings.warm_start_sha256 is None:
        if record is not None:
            raise TrainError(f"{where}: a warm start record in a run without a warm start")
        return None
    names = {"dataset_sha256", "epochs", "steps", "rows"}
    if not (
        isinstance(record, dict)
        and set(record) == names
        and record["dataset_sha256"] == settings.warm_start_sha256
        and all(
            isinstance(record[k], int) and not isinstance(record[k], bool) and record[k] >= 0
            for k in names - {"dataset_sha256"}
        )
    ):
        raise TrainError(
            f"{where}: no warm start record of the run's dataset (damaged, or not this run's)"
        )
    return dict(record)


def _tree(template: Any, prefix: str, tensors: dict[str, npt.NDArray[Any]]) -> Any:
    """``template``'s tree with the file's arrays in place of its leaves (checked shapes)."""
    pairs, structure = jax.tree_util.tree_flatten_with_path(template)
    leaves = [jax.numpy.asarray(tensors[prefix + jax.tree_util.keystr(p)]) for p, _ in pairs]
    return jax.tree_util.tree_unflatten(structure, leaves)
