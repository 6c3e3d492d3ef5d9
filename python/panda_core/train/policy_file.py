"""Policy files, format 1: what the trainer writes and the Rust ``neural:PATH`` bot plays.

A safetensors file (docs/train_your_agent.md, "The policy file"): tensors ``layers.{i}.weight``
``[out, in]`` and ``layers.{i}.bias`` ``[out]``, f32 little-endian, and string metadata naming
the game, the policy kind, the layouts the network reads, the layer sizes and the sha256 of the
tensor bytes.

The file is written here rather than by ``safetensors.numpy.save`` because it must be
byte-reproducible (the same seed gives the same file, and the manifest of the shipped policies
pins their hashes): this writer fixes the header's key order and spacing, which the library does
not promise across versions. It is still plain safetensors: ``safetensors.safe_open`` reads it
(the tests check that).
"""

from __future__ import annotations

import hashlib
import json
import os
import struct
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from panda_core._core import __version__
from panda_core._files import read_regular
from panda_core.train._game import GameInfo, game_info
from panda_core.train.errors import TrainError
from panda_core.train.network import Params, layer_arrays
from panda_core.train.settings import (
    MAX_HIDDEN_LAYERS,
    MAX_PARAMETERS,
    TrainSettings,
    parameter_count,
)

__all__ = [
    "FORMAT",
    "FORMAT_VERSION",
    "MAX_HEADER_BYTES",
    "PolicyFile",
    "max_policy_bytes",
    "parse_policy",
    "policy_bytes",
    "read_policy",
    "write_policy",
]

FORMAT = "panda-core-policy"
FORMAT_VERSION = "1"
_ALIGN = 8  # safetensors pads its header so that the tensor data starts 8-byte aligned
MAX_HEADER_BYTES = 64 << 10
"""A policy file's JSON header at most (a written one is well under 2 KB: the metadata and one
entry per tensor)."""


def max_policy_bytes(layers: Sequence[int] | None = None) -> int:
    """The largest a policy file of these layer sizes (input first) can be; ``None``: of any
    network the trainer may train (``MAX_PARAMETERS`` parameters, ``MAX_HIDDEN_LAYERS``
    hidden layers). Files are refused above it before they are read."""
    if layers is None:
        parameters = MAX_PARAMETERS
    else:
        parameters = parameter_count(layers)
    return 8 + MAX_HEADER_BYTES + 4 * parameters


@dataclass(frozen=True)
class PolicyFile:
    """A policy file's contents: its metadata and each layer's ``(weight [out, in], bias)``."""

    metadata: dict[str, str]
    layers: list[tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]]

    @property
    def sizes(self) -> list[int]:
        """Layer sizes, input first."""
        return [self.layers[0][0].shape[1], *(w.shape[0] for w, _ in self.layers)]

    def forward(self, x: npt.ArrayLike) -> npt.NDArray[np.float32]:
        """The network on rows ``x`` ``[B, in]`` in numpy float32 (ReLU between layers)."""
        out = np.asarray(x, dtype=np.float32)
        for i, (weight, bias) in enumerate(self.layers):
            out = out @ weight.T + bias
            if i < len(self.layers) - 1:
                out = np.maximum(out, 0)
        return out


def _tensors_of(params: Params) -> list[tuple[str, npt.NDArray[np.float32]]]:
    """The file's tensors in file (and hash) order: flax kernels are ``[in, out]``, the file's
    weights ``[out, in]``."""
    tensors = []
    for i, (kernel, bias) in enumerate(layer_arrays(params)):
        tensors.append((f"layers.{i}.weight", np.ascontiguousarray(np.asarray(kernel).T)))
        tensors.append((f"layers.{i}.bias", np.ascontiguousarray(np.asarray(bias))))
    return [(name, t.astype("<f4", copy=False)) for name, t in tensors]


def policy_bytes(params: Params, settings: TrainSettings, decisions: int) -> bytes:
    """The policy file of ``params`` trained with ``settings`` over ``decisions`` decisions."""
    info = game_info(settings.game)
    tensors = _tensors_of(params)
    sizes = [info.input_size, *(t.shape[0] for name, t in tensors if name.endswith("weight"))]
    if tensors[0][1].shape[1] != info.input_size or sizes[-1] != info.output_size:
        raise TrainError(
            f"a {info.kind} policy of {info.name} maps {info.input_size} inputs to "
            f"{info.output_size} outputs; these parameters have layers {sizes}"
        )
    data = b"".join(t.tobytes() for _, t in tensors)
    metadata = _metadata(info, sizes, hashlib.sha256(data).hexdigest(), settings, decisions)
    header: dict[str, Any] = {"__metadata__": metadata}
    offset = 0
    for name, tensor in tensors:
        header[name] = {
            "dtype": "F32",
            "shape": list(tensor.shape),
            "data_offsets": [offset, offset + tensor.nbytes],
        }
        offset += tensor.nbytes
    text = json.dumps(header, separators=(",", ":"), ensure_ascii=True).encode()
    text += b" " * (-len(text) % _ALIGN)
    return struct.pack("<Q", len(text)) + text + data


def _metadata(
    info: GameInfo, sizes: list[int], sha256: str, settings: TrainSettings, decisions: int
) -> dict[str, str]:
    layouts = {"observation_layout": info.observation_layout}
    if info.move_features_layout is not None:
        layouts["move_features_layout"] = info.move_features_layout
    # No timestamp: the same run must give the same bytes.
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "game": info.name,
        "kind": info.kind,
        **layouts,
        "layers": ",".join(str(n) for n in sizes),
        "activation": "relu",
        "sha256": sha256,
        "players": str(settings.players),
        "seed": str(settings.seed),
        "decisions": str(decisions),
        "trainer": f"panda-core {__version__} dmc",
    }


def write_policy(
    params: Params, settings: TrainSettings, path: str | os.PathLike[str], decisions: int = 0
) -> Path:
    """Write the policy file of ``params`` to ``path`` (atomically: a reader never sees half a
    file, and Ctrl-C never leaves one)."""
    target = Path(path)
    temporary = target.with_name(target.name + ".tmp")
    temporary.write_bytes(policy_bytes(params, settings, decisions))
    os.replace(temporary, target)
    return target


def read_policy(path: str | os.PathLike[str], max_bytes: int | None = None) -> PolicyFile:
    """A policy file written by :func:`write_policy`, checked (format, shapes, sha256);
    ``TrainError`` saying what is wrong otherwise. At most ``max_bytes`` are read (default
    :func:`max_policy_bytes`: any network the trainer trains), from a regular file only (a FIFO,
    a device or a directory is refused before anything is read). The Rust loader
    (``panda_core.NeuralPolicy.load``) checks more (the game's sizes and layouts)."""
    cap = max_policy_bytes() if max_bytes is None else max_bytes
    return parse_policy(read_regular(path, cap, TrainError, "policy file"), os.fspath(path))


def parse_policy(blob: bytes, path: str = "policy") -> PolicyFile:
    """The policy file whose bytes are ``blob`` (:func:`read_policy`'s checks; ``path`` names it
    in the messages)."""
    if len(blob) < 8:
        raise TrainError(f"{path}: not a policy file (only {len(blob)} bytes)")
    (size,) = struct.unpack("<Q", blob[:8])
    if size > min(len(blob) - 8, MAX_HEADER_BYTES):
        raise TrainError(
            f"{path}: not a policy file (a header of {size} bytes in a file of {len(blob)}; a "
            f"header is at most {MAX_HEADER_BYTES} bytes)"
        )
    try:
        header = json.loads(blob[8 : 8 + size])
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise TrainError(f"{path}: not a policy file (header is not JSON: {err})") from None
    if not isinstance(header, dict):
        raise TrainError(f"{path}: not a policy file (header is not a JSON object)")
    metadata = header.pop("__metadata__", None)
    if not isinstance(metadata, dict) or metadata.get("format") != FORMAT:
        raise TrainError(f"{path}: not a policy file (metadata format is not {FORMAT!r})")
    if metadata.get("format_version") != FORMAT_VERSION:
        raise TrainError(
            f"{path}: policy format_version {metadata.get('format_version')!r}; this "
            f"trainer reads {FORMAT_VERSION!r}"
        )
    data = blob[8 + size :]
    if len(header) > 2 * (MAX_HIDDEN_LAYERS + 1):
        raise TrainError(
            f"{path}: {len(header)} tensors; a policy has at most {MAX_HIDDEN_LAYERS + 1} layers "
            "(two tensors each)"
        )
    layers: list[tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]] = []
    digest = hashlib.sha256()
    for i in range(len(header) // 2):
        weight = _tensor(header, data, f"layers.{i}.weight", path)
        bias = _tensor(header, data, f"layers.{i}.bias", path)
        inputs = layers[-1][0].shape[0] if layers else None
        if (
            weight.ndim != 2
            or bias.shape != (weight.shape[0],)
            or inputs not in (None, weight.shape[1])
        ):
            raise TrainError(
                f"{path}: layer {i}'s tensors do not chain (weight {list(weight.shape)}, bias "
                f"{list(bias.shape)}, after a layer of {inputs} outputs): a weight is [out, in] "
                "with in the previous layer's out, and a bias [out]"
            )
        digest.update(weight.tobytes())
        digest.update(bias.tobytes())
        layers.append((weight, bias))
    if len(header) != 2 * len(layers) or not layers:
        raise TrainError(f"{path}: tensors other than layers.{{i}}.weight/bias: {sorted(header)}")
    if digest.hexdigest() != metadata.get("sha256"):
        raise TrainError(f"{path}: sha256 of the tensors does not match the metadata's")
    return PolicyFile(metadata={str(k): str(v) for k, v in metadata.items()}, layers=layers)


def _tensor(header: dict[str, Any], data: bytes, name: str, path: str) -> npt.NDArray[np.float32]:
    """The tensor ``name`` of a policy file, checked against its header entry."""
    entry = header.get(name)
    if not isinstance(entry, dict) or entry.get("dtype") != "F32":
        raise TrainError(f"{path}: tensor {name} is missing or not F32")
    shape, offsets = entry.get("shape"), entry.get("data_offsets")
    if not (
        isinstance(shape, list)
        and len(shape) in (1, 2)
        and all(isinstance(n, int) and n > 0 for n in shape)
        and isinstance(offsets, list)
        and len(offsets) == 2
        and all(isinstance(n, int) for n in offsets)
    ):
        raise TrainError(f"{path}: tensor {name} has a bad shape or offsets in the header")
    start, end = offsets
    if not 0 <= start <= end <= len(data) or end - start != 4 * int(np.prod(shape)):
        raise TrainError(
            f"{path}: tensor {name} {shape} needs bytes {start}..{end} of {len(data)} (a "
            "truncated or damaged file)"
        )
    return np.frombuffer(data[start:end], dtype="<f4").reshape(shape).astype(np.float32)
