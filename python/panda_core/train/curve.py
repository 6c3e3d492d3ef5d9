"""The learning curve: one row per evaluation, written to ``curve.csv`` and drawn to
``curve.png``.

``seconds`` is the training wall time (self-play and learning, over every resumed session),
without the evaluations, whose cost depends on ``eval_games`` and not on learning.
"""

from __future__ import annotations

import csv
import math
import os
from dataclasses import dataclass
from pathlib import Path

from panda_core._files import read_regular
from panda_core.train.errors import TrainError
from panda_core.train.evaluate import WinRate

__all__ = ["COLUMNS", "CurveRow", "draw_curve", "read_curve", "write_curve"]

COLUMNS = (
    "decisions",
    "seconds",
    "loss",
    "games",
    "win_vs_heuristic",
    "heuristic_low",
    "heuristic_high",
    "win_vs_random",
    "random_low",
    "random_high",
)


@dataclass(frozen=True)
class CurveRow:
    """The state of training after ``decisions`` decisions."""

    decisions: int
    seconds: float
    loss: float
    """Mean training loss since the previous row (NaN before the first gradient step)."""
    heuristic: WinRate
    random: WinRate

    def to_csv(self) -> list[str]:
        cells = [str(self.decisions), f"{self.seconds:.3f}", _num(self.loss)]
        cells.append(str(self.heuristic.games))
        for rate in (self.heuristic, self.random):
            low, high = rate.interval
            cells += [_num(rate.rate), _num(low), _num(high)]
        return cells

    @classmethod
    def from_csv(cls, cells: dict[str, str]) -> CurveRow:
        games = int(cells["games"])

        def rate(column: str) -> WinRate:
            value = float(cells[column])
            return WinRate(0 if math.isnan(value) else round(value * games), games)

        return cls(
            decisions=int(cells["decisions"]),
            seconds=float(cells["seconds"]),
            loss=float(cells["loss"]),
            heuristic=rate("win_vs_heuristic"),
            random=rate("win_vs_random"),
        )


def _num(value: float) -> str:
    return "nan" if math.isnan(value) else f"{value:.4f}"


def write_curve(rows: list[CurveRow], path: str | os.PathLike[str]) -> None:
    """Write ``rows`` as CSV (a header line, then one line per row)."""
    target = Path(path)
    temporary = target.with_name(target.name + ".tmp")
    with temporary.open("w", newline="") as out:
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(COLUMNS)
        writer.writerows(row.to_csv() for row in rows)
    os.replace(temporary, target)


MAX_CURVE_BYTES = 256 << 20
"""Largest ``curve.csv`` read (a row is about 100 bytes)."""


def read_curve(path: str | os.PathLike[str]) -> list[CurveRow]:
    """The rows of a ``curve.csv`` written by :func:`write_curve` (none if there is no file);
    ``TrainError`` naming the file and line if it is not one."""
    source = Path(path)
    if not source.exists() and not source.is_symlink():
        return []
    blob = read_regular(source, MAX_CURVE_BYTES, TrainError, "curve file")
    try:
        lines = blob.decode().splitlines()
    except UnicodeDecodeError as err:
        raise TrainError(f"{source}: not a curve file (not UTF-8: {err})") from None
    if not lines or lines[0].split(",") != list(COLUMNS):
        raise TrainError(f"{source}, line 1: not a curve file (its header is not {COLUMNS})")
    rows = []
    for number, cells in enumerate(csv.DictReader(lines), start=2):
        try:
            if None in cells or None in cells.values():
                raise ValueError("not one cell per column")
            rows.append(CurveRow.from_csv(cells))
        except (ValueError, KeyError, OverflowError) as err:
            raise TrainError(f"{source}, line {number}: not a curve row ({err})") from None
    return rows


def draw_curve(
    rows: list[CurveRow],
    path: str | os.PathLike[str],
    title: str,
    chance: float,
    references: dict[str, float] | None = None,
) -> None:
    """Draw the win rates (with their 95% intervals) against decisions and against training
    time, and the loss, to a PNG at ``path``; ``chance`` is the win rate of an even seat, and
    ``references`` more horizontal lines (label: win rate, e.g. a search bot's on the same
    deals)."""
    import matplotlib

    matplotlib.use("Agg")  # no display: files only
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(1, 3, figsize=(15, 4.2))
    decisions = [r.decisions for r in rows]
    minutes = [r.seconds / 60 for r in rows]
    for axis, xs, label in ((axes[0], decisions, "decisions"), (axes[1], minutes, "minutes")):
        for name, colour in (("heuristic", "tab:blue"), ("random", "tab:orange")):
            rates = [getattr(r, name) for r in rows]
            axis.plot(xs, [w.rate for w in rates], marker="o", color=colour, label=f"vs 3 {name}")
            axis.fill_between(
                xs,
                [w.interval[0] for w in rates],
                [w.interval[1] for w in rates],
                color=colour,
                alpha=0.2,
            )
        axis.axhline(chance, color="grey", linestyle="--", label="chance")
        lines = zip((references or {}).items(), (":", "-.", "--"), strict=False)
        for (reference, rate), style in lines:  # not `label`: the axis's, used below
            axis.axhline(rate, color="tab:red", linestyle=style, label=reference)
        axis.set_xlabel(f"training {label}")
        axis.set_ylabel("win rate (95% interval)")
        axis.set_ylim(0, 1)
        axis.legend(loc="lower right")
    axes[2].plot(decisions, [r.loss for r in rows], marker="o", color="tab:green")
    axes[2].set_xlabel("training decisions")
    axes[2].set_ylabel("loss (mean squared error)")
    figure.suptitle(title)
    figure.tight_layout()
    target = Path(path)
    temporary = target.with_name(target.stem + ".tmp.png")
    # No date in the PNG, so that the same run draws the same file.
    figure.savefig(temporary, dpi=80, metadata={"Software": None})
    plt.close(figure)
    os.replace(temporary, target)
