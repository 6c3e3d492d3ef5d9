"""``Samples``: decisions with their Deep Monte-Carlo targets, what the learner trains on."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

__all__ = ["Samples"]


@dataclass(frozen=True)
class Samples:
    """Input rows, the output column of the move played (the action id for action-values, 0 for
    move-scores) and the acting seat's final reward."""

    inputs: npt.NDArray[np.float32]
    columns: npt.NDArray[np.int32]
    targets: npt.NDArray[np.float32]

    def __len__(self) -> int:
        return int(self.targets.shape[0])

    def __getitem__(self, index: slice | npt.NDArray[np.integer]) -> Samples:
        return Samples(self.inputs[index], self.columns[index], self.targets[index])

    @staticmethod
    def concat(parts: list[Samples]) -> Samples:
        return Samples(
            np.concatenate([p.inputs for p in parts]),
            np.concatenate([p.columns for p in parts]),
            np.concatenate([p.targets for p in parts]),
        )
