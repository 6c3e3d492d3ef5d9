"""An arena's report: standings, ratings, head-to-head and forfeits, as a table, JSON, CSV and
a plot.

A report can be made at any time from the games played so far (an interrupted arena writes one
too), so it says how many games it covers out of how many were scheduled, and every file it
writes is replaced atomically: a crash mid-write leaves the previous file, never half of one.
Nothing in it depends on timing or on the order the games finished in: the same results give
byte-identical JSON.
"""

from __future__ import annotations

import csv
import io
import json
import os
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from panda_core._registry import spec
from panda_core.arena.errors import ArenaError
from panda_core.arena.model import ArenaSettings, MatchResult
from panda_core.arena.ratings import Rating, model, rate
from panda_core.arena.stats import HeadToHead, Interval, Standing, head_to_head, in_order, standings

__all__ = ["ArenaReport", "write_atomic"]

TABLE_WIDTH = 100
FORFEITS_SHOWN = 20
"""The table lists this many forfeits at most (the JSON and the forfeits folder keep all)."""


def write_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same folder and
    ``os.replace`` (atomic on one file system)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    # A name of our own (not mkstemp's) so the file gets the usual permissions (the umask's),
    # unique per process and call so concurrent writers never share a temporary file.
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    try:
        with open(tmp, "xb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def _interval_json(interval: Interval | None) -> list[float] | None:
    return None if interval is None else [interval.low, interval.high]


def _one_line(message: str, width: int = 60) -> str:
    first = message.strip().splitlines()[0] if message.strip() else ""
    return first if len(first) <= width else first[: width - 1] + "…"


@dataclass(frozen=True)
class ArenaReport:
    """What an arena's games (so far) say about its entrants.

    ``results`` are sorted by game index; ``scheduled`` is how many games the arena was to
    play (``len(results) < scheduled``: an interrupted or still running arena). ``standings``,
    ``ratings`` are in entrant order; ``forfeits`` lists the forfeited games."""

    settings: ArenaSettings
    results: tuple[MatchResult, ...]
    scheduled: int
    standings: tuple[Standing, ...]
    ratings: tuple[Rating, ...]
    head_to_head: HeadToHead
    forfeits: tuple[MatchResult, ...]

    @staticmethod
    def from_results(
        settings: ArenaSettings, results: Sequence[MatchResult], scheduled: int
    ) -> ArenaReport:
        """The report of ``results`` (any order, any subset of the ``scheduled`` games)."""
        ordered = tuple(in_order(results))
        return ArenaReport(
            settings=settings,
            results=ordered,
            scheduled=scheduled,
            standings=tuple(standings(settings, ordered)),
            ratings=tuple(rate(settings, ordered)),
            head_to_head=head_to_head(settings, ordered),
            forfeits=tuple(r for r in ordered if r.forfeit is not None),
        )

    @property
    def complete(self) -> bool:
        """Whether every scheduled game has a result."""
        return len(self.results) >= self.scheduled

    @property
    def by_rating(self) -> list[int]:
        """Entrant indices, best rating (``mu``) first; ties keep entrant order."""
        return sorted(range(len(self.ratings)), key=lambda e: -self.ratings[e].mu)

    def _header(self) -> str:
        s = self.settings
        state = "" if self.complete else " (incomplete)"
        return (
            f"{spec(s.game).title} ({s.game}), {s.players} players, "
            f"entrants: {', '.join(s.labels)}\n"
            f"{s.deals} deals ({s.permutations}), games played {len(self.results)} / "
            f"{self.scheduled}{state}, seed {s.seed}\n"
            f"{self._containment()}"
        )

    def _containment(self) -> str:
        """One line: which entrants could reach more than their seat (docs/rate_your_bot.md)."""
        s = self.settings
        loose = [e.label for e in s.entrants if not e.contained]
        if not loose:
            said = "contained: every entrant sees only its seat"
        else:
            said = f"NOT contained (in-process, can reach the real game): {', '.join(loose)}"
        if s.full_information:
            said += "; FULL INFORMATION: the in-process bots were handed the whole game"
        return said

    # ---- the printed table --------------------------------------------------------------------

    def table(self) -> str:
        """The report as plain text (no colour codes), about 100 columns wide."""
        out = io.StringIO()
        console = Console(
            file=out, width=TABLE_WIDTH, color_system=None, force_terminal=False, highlight=False
        )
        console.print(Text(self._header()))
        console.print(
            Text("\nStandings, best rating first (rating: mu ± 1.96 sigma; 95% intervals)")
        )
        console.print(self._standings_table())
        console.print(
            Text(
                "\nHead to head: the row's score against the column, "
                "(wins + ties/2) / games (games)"
            )
        )
        console.print(self._head_to_head_table())
        if self.forfeits:
            console.print(Text(f"\nForfeits ({len(self.forfeits)})"))
            console.print(self._forfeits_table())
        return "".join(line.rstrip() + "\n" for line in out.getvalue().splitlines())

    def _standings_table(self) -> Table:
        t = Table(box=box.ASCII2)
        t.add_column("#", justify="right", no_wrap=True)
        t.add_column("entrant", overflow="fold")  # a long import path folds; numbers never do
        for name in ("rating", "win rate", "score", "place", "games", "forfeits"):
            t.add_column(name, justify="right", no_wrap=True)
        for place, e in enumerate(self.by_rating, start=1):
            st, r = self.standings[e], self.ratings[e]
            win = "-"
            if st.win_rate is not None and st.win_interval is not None:
                lo, hi = st.win_interval.low, st.win_interval.high
                win = f"{st.win_rate:.1%} [{100 * lo:.1f}, {100 * hi:.1f}]"
            score = "-" if st.mean_score is None else f"{st.mean_score:.1f}"
            if st.score_interval is not None:
                score += f" ± {st.score_interval.width / 2:.1f}"
            t.add_row(
                str(place),
                Text(st.label),
                f"{r.mu:.1f} ± {r.interval.width / 2:.1f}",
                win,
                score,
                "-" if st.mean_place is None else f"{st.mean_place:.2f}",
                str(st.games),
                str(st.forfeits),
            )
        return t

    def _head_to_head_table(self) -> Table:
        t = Table(box=box.ASCII2)
        t.add_column("", no_wrap=True)
        order = self.by_rating
        for e in order:
            t.add_column(Text(self.settings.labels[e]), justify="right")
        for a in order:
            cells: list[str | Text] = [Text(self.settings.labels[a])]
            for b in order:
                rec = self.head_to_head.get(a, b)
                cells.append("" if rec is None else f"{rec.score:.0%} ({rec.games})")
            t.add_row(*cells)
        return t

    def _forfeits_table(self) -> Table:
        t = Table(box=box.ASCII2)
        for name in ("game", "entrant", "kind", "message"):
            t.add_column(name, justify="right" if name == "game" else "left")
        for r in self.forfeits[:FORFEITS_SHOWN]:
            f = r.forfeit
            assert f is not None
            who = "(void)" if f.entrant is None else self.settings.labels[f.entrant]
            t.add_row(str(r.index), Text(who), f.kind, Text(_one_line(f.message)))
        if len(self.forfeits) > FORFEITS_SHOWN:
            t.add_row("", "", "", f"... and {len(self.forfeits) - FORFEITS_SHOWN} more")
        return t

    # ---- JSON and CSV -------------------------------------------------------------------------

    def _standings_rows(self) -> list[dict[str, Any]]:
        return [
            {
                "entrant": st.label,
                "contained": e.contained,
                "games": st.games,
                "seat_games": st.seat_games,
                "wins": st.wins,
                "forfeits": st.forfeits,
                "win_rate": st.win_rate,
                "win_low": None if st.win_interval is None else st.win_interval.low,
                "win_high": None if st.win_interval is None else st.win_interval.high,
                "mean_score": st.mean_score,
                "score_low": None if st.score_interval is None else st.score_interval.low,
                "score_high": None if st.score_interval is None else st.score_interval.high,
                "mean_place": st.mean_place,
                "mu": r.mu,
                "sigma": r.sigma,
                "rating_low": r.interval.low,
                "rating_high": r.interval.high,
                "ordinal": r.ordinal,
            }
            for st, r, e in zip(self.standings, self.ratings, self.settings.entrants, strict=True)
        ]

    def _head_to_head_rows(self) -> list[dict[str, Any]]:
        return [
            {
                "entrant": p.entrant,
                "opponent": p.opponent,
                "games": p.games,
                "wins": p.wins,
                "ties": p.ties,
                "losses": p.losses,
                "score": p.score,
            }
            for p in self.head_to_head.pairs
        ]

    def to_json(self) -> dict[str, Any]:
        """The report as a JSON-ready dict (no times; the same results give the same dict, in
        the same key order)."""
        labels = self.settings.labels
        return {
            "settings": self.settings.identity(),
            "deals": self.settings.deals,
            "scheduled": self.scheduled,
            "played": len(self.results),
            "complete": self.complete,
            "contained": self.settings.contained,
            "full_information": self.settings.full_information,
            "standings": [
                {
                    "entrant": st.label,
                    "contained": e.contained,
                    "games": st.games,
                    "seat_games": st.seat_games,
                    "wins": st.wins,
                    "forfeits": st.forfeits,
                    "win_rate": st.win_rate,
                    "win_interval": _interval_json(st.win_interval),
                    "mean_score": st.mean_score,
                    "score_interval": _interval_json(st.score_interval),
                    "mean_place": st.mean_place,
                }
                for st, e in zip(self.standings, self.settings.entrants, strict=True)
            ],
            "ratings": [
                {
                    "entrant": r.label,
                    "mu": r.mu,
                    "sigma": r.sigma,
                    "interval": _interval_json(r.interval),
                    "ordinal": r.ordinal,
                }
                for r in self.ratings
            ],
            "head_to_head": self._head_to_head_rows(),
            "forfeits": [
                {
                    "game": r.index,
                    "deal": r.deal,
                    "seat": r.forfeit.seat,
                    "entrant": None if r.forfeit.entrant is None else labels[r.forfeit.entrant],
                    "kind": r.forfeit.kind,
                    "message": r.forfeit.message,
                }
                for r in self.forfeits
                if r.forfeit is not None
            ],
        }

    def json_text(self) -> str:
        """:meth:`to_json` as the text ``results.json`` holds."""
        return json.dumps(self.to_json(), indent=2, ensure_ascii=False) + "\n"

    def write(self, folder: str | os.PathLike[str], *, plot: bool = True) -> None:
        """Write the report into ``folder``: ``results.json``, ``standings.csv``,
        ``head_to_head.csv``, ``forfeits/game-<index>.json`` (each forfeited game's record, as
        far as it went) and ``ratings.png``; each file replaced atomically.

        ``plot=False`` (an interrupted arena: drawing takes most of a second, mostly loading
        matplotlib) leaves the plot out and removes an older ``ratings.png``, so that no file
        of the folder disagrees with ``results.json``. :class:`ArenaError` if a file cannot be
        written."""
        root = Path(folder)
        try:
            write_atomic(root / "results.json", self.json_text().encode())
            write_atomic(root / "standings.csv", _csv(self._standings_rows()))
            write_atomic(root / "head_to_head.csv", _csv(self._head_to_head_rows(), _H2H_FIELDS))
            for r in self.forfeits:
                assert r.forfeit is not None
                record = r.forfeit.record.encode()
                write_atomic(root / "forfeits" / f"game-{r.index}.json", record)
            if plot:
                self.plot(root / "ratings.png")
            else:
                (root / "ratings.png").unlink(missing_ok=True)
        except OSError as err:
            raise ArenaError(f"cannot write the report into {root}: {err}") from None

    # ---- the plot -----------------------------------------------------------------------------

    def plot(self, path: str | os.PathLike[str]) -> None:
        """Draw the ratings (``mu`` with its 95% interval, best at the top) as a PNG at
        ``path``. matplotlib's Agg canvas is used directly (no pyplot state, no display)."""
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure

        order = self.by_rating[::-1]  # barh draws bottom-up: best last, at the top
        labels = [self.ratings[e].label for e in order]
        mus = [self.ratings[e].mu for e in order]
        halves = [self.ratings[e].interval.width / 2 for e in order]
        # Wide enough for the longest label next to a plot area of about 5 inches.
        width = 5.5 + 0.075 * max((len(x) for x in labels), default=0)
        fig = Figure(figsize=(width, 1.4 + 0.45 * len(order)), dpi=100, layout="constrained")
        FigureCanvasAgg(fig)
        ax = fig.add_subplot()
        ax.errorbar(mus, range(len(order)), xerr=halves, fmt="o", capsize=4)
        ax.set_yticks(range(len(order)), labels)
        ax.set_ylim(-0.6, len(order) - 0.4)
        prior = model().mu
        ax.axvline(prior, color="grey", linestyle=":", linewidth=1)
        ax.set_xlabel(f"Plackett–Luce rating, mu ± 1.96 sigma (95%); dotted: the start, {prior:g}")
        s = self.settings
        state = "" if self.complete else f" of {self.scheduled}"
        ax.set_title(f"{spec(s.game).title}, {s.players} players, {len(self.results)}{state} games")
        ax.grid(axis="x", alpha=0.3)
        buf = io.BytesIO()
        fig.savefig(buf, format="png")
        write_atomic(Path(path), buf.getvalue())


_H2H_FIELDS = ["entrant", "opponent", "games", "wins", "ties", "losses", "score"]


def _csv(rows: list[dict[str, Any]], fields: list[str] | None = None) -> bytes:
    """``rows`` as CSV bytes (a header row first; ``None`` as an empty cell; floats as Python's
    shortest round-tripping repr)."""
    names = fields if fields is not None else (list(rows[0]) if rows else [])
    out = io.StringIO(newline="")
    writer = csv.DictWriter(out, fieldnames=names, lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: "" if v is None else v for k, v in row.items()})
    return out.getvalue().encode()
