"""A table: one game, its seats (people and bots), and what each seat is shown.

The table holds the game; a front-end (the terminal, the browser) holds a seat and asks the table
for that seat's :meth:`Table.state` — the engine's view of that seat, the events that seat may see,
its legal moves when it is to move, all as JSON-ready dicts with display text — and answers with
:meth:`Table.play`. Bots move through :meth:`Table.advance` / :meth:`Table.step_bot`. A front-end
never touches the game object, so it cannot show what its seat may not know, and it contains no
game logic: the legal moves, their texts, the cards and their faces all come from here.

>>> from panda_core.table import Table
>>> table = Table("head", players=3, seats=["human", "heuristic", "random"], seed=7)
>>> _ = table.advance()                  # bots move until the person must
>>> state = table.state(0)
>>> state["your_turn"], len(state["legal"]) > 0
(True, True)
>>> _ = table.play(0, 0)                  # the first legal move (or its notation)
"""

from __future__ import annotations

import json
import os
import secrets
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from panda_core._args import cut, int_arg, players_arg, seed_arg, shown
from panda_core._core import GameOverError, check_bot
from panda_core._registry import AnyGame, AnySeat, GameSpec, spec
from panda_core.bots import BuiltinBot, names_builtin
from panda_core.table.bot_runner import FALLBACK_BOT, Fallback, ask_bot, close_bots, seat_bots
from panda_core.table.cards import CardBook
from panda_core.table.errors import NotYourTurnError, TableError
from panda_core.table.replay import NAMED_RECORD
from panda_core.table.seat_state import SeatStateBuilder
from panda_core.table.seats import SeatSpec, check_seat, parse_seat

__all__ = ["Table"]

MAX_BOT_TIME = 60.0
"""The longest a table lets one bot think (seconds)."""


class Table:
    """One game of ``game`` (``"head"``, ``"year"``, ``"spin"``) with one seat spec per player
    (``"human"``, ``"human:NAME"``, a built-in bot, ``"package.module:attr"``, or a bot object).

    ``seed`` deals the game (``None``: a fresh random seed, reported in :attr:`seed`); ``rules``
    or ``options`` are the game's rules as :func:`panda_core.make` takes them; ``bot_time`` bounds
    each bot decision in seconds (built-in searches stop at it; a Python bot that overruns, raises
    or answers an illegal move is replaced by the heuristic bot for that decision, and the table
    says so in the bot's seat's events).

    A bot given by import path runs in a worker process of its own, killed and replaced when it
    crashes or overruns (:mod:`panda_core.table.bot_process`); a bot object runs in a thread of
    this process. :meth:`close` (or leaving a ``with`` block) stops the worker processes; the end
    of the game does too.
    """

    def __init__(
        self,
        game: str,
        players: int | None = None,
        *,
        seats: Sequence[object],
        seed: int | None = None,
        rules: object = None,
        bot_time: float = 2.0,
        **options: Any,
    ) -> None:
        self._spec: GameSpec = spec(game)
        if isinstance(seats, str) or not isinstance(seats, Sequence):
            raise TypeError(f"seats must be a list with one seat per player, got {shown(seats)}")
        n = players_arg(len(seats) if players is None else players)
        if len(seats) != n:
            raise TableError(f"need one seat per player: {n} players, {len(seats)} seats")
        self.seats: list[SeatSpec] = [parse_seat(s) for s in seats]
        self.seed: int = seed_arg(secrets.randbits(64) if seed is None else seed)
        if isinstance(bot_time, bool) or not isinstance(bot_time, int | float):
            raise TypeError(f"bot_time must be a number of seconds, got {shown(bot_time)}")
        if not 0 < bot_time <= MAX_BOT_TIME:
            raise TableError(
                f"bot_time is more than 0 and at most {MAX_BOT_TIME:g} s, got {bot_time}"
            )
        self.bot_time = float(bot_time)
        self._game: AnyGame = self._spec.new_game(n, self.seed, rules, **options)
        self._book = CardBook(self._game)
        self._bots = seat_bots(self.seats, self.seed, self.bot_time)
        self._fallback = BuiltinBot(FALLBACK_BOT, time_limit=self.bot_time)
        self._notes: list[tuple[int, dict[str, Any]]] = []  # (history length, table event)
        self._last_move_at = [0] * n  # history length after each seat's last move
        self._builder = SeatStateBuilder(self._spec, self._book, [s.name for s in self.seats])
        self._stand_ins: dict[str, BuiltinBot] = {}  # the stand-in bots, by name

    # ---- who is where ----------------------------------------------------------------------

    @property
    def game_name(self) -> str:
        return self._spec.name

    @property
    def title(self) -> str:
        return self._spec.title

    @property
    def players(self) -> int:
        return self._game.players

    @property
    def humans(self) -> list[int]:
        return [i for i, s in enumerate(self.seats) if s.is_human]

    @property
    def to_move(self) -> int | None:
        return self._game.current_player

    @property
    def is_over(self) -> bool:
        return self._game.is_over

    @property
    def winner(self) -> int | None:
        return self._game.winner

    @property
    def waiting_for(self) -> int | None:
        """The person whose move the table waits for (``None``: a bot is to move, or over)."""
        seat = self._game.current_player
        return seat if seat is not None and self.seats[seat].is_human else None

    def seat_arg(self, seat: object) -> int:
        """``seat`` as a seat of this table (``TypeError`` / ``TableError`` otherwise)."""
        return check_seat(seat, self.players)

    def seat(self, player: object) -> AnySeat:
        """The engine's seat object of ``player`` (``game.seat(player)``): what that seat may
        know and nothing else (no attribute, ``repr`` or ``to_json()`` of it shows a card the seat
        may not know). A program that plays a seat from outside the table (a connected bot)
        builds its messages from it."""
        seat: AnySeat = self._game.seat(self.seat_arg(player))
        return seat

    @property
    def names(self) -> list[str]:
        """The seats' names as every seat sees them (a person's name, a bot's name)."""
        return [s.name for s in self.seats]

    # ---- moving ----------------------------------------------------------------------------

    def play(self, seat: object, move: object) -> list[dict[str, Any]]:
        """The person at ``seat`` plays ``move``: an index into ``state(seat)["legal"]`` or a
        move's notation. Returns the events of the move. ``NotYourTurnError`` if another seat is
        to move, ``IllegalMoveError`` for a move that is not legal; the game is then unchanged."""
        s = self._persons_turn(seat, "only people move through play()")
        chosen: object
        if isinstance(move, str):
            chosen = move.strip()
        else:
            index = int_arg(move, "move")
            legal = self._game.legal_moves()
            if not 0 <= index < len(legal):
                raise TableError(
                    f"move {index} is not one of the {len(legal)} legal moves "
                    f"(0..{len(legal) - 1}), nor a notation"
                )
            chosen = legal[index]
        return self._apply(s, chosen)

    def step_bot(self) -> list[dict[str, Any]]:
        """One bot move (the bot at the seat to move); ``[]`` when a person is to move or the
        game is over."""
        seat = self._game.current_player
        if seat is None or self.seats[seat].is_human:
            return []
        bot = self._bots[seat]
        assert bot is not None  # every seat that is not a person has a bot
        answer = ask_bot(
            bot, self.seats[seat].name, self._game, seat, self.bot_time, self._fallback
        )
        if answer.fallback is not None:
            self._note(answer.fallback)
        return self._apply(seat, answer.move)

    def play_for(self, seat: object, bot: str) -> list[dict[str, Any]]:
        """The built-in bot ``bot`` plays one move for the person at ``seat`` (a stand-in: the
        person is away), from that seat's information only, within :attr:`bot_time`. The log of
        every seat (and of spectators) notes it: a ``stand_in`` event (``player``: the seat,
        ``bot``, ``name``: the person's name) just before the move. Refused like :meth:`play`
        when it is not that person's turn (a bot's seat included); ``TableError`` for a ``bot``
        that is not a built-in one."""
        if not isinstance(bot, str) or not names_builtin(bot):
            raise TableError(f"a stand-in is a built-in bot (as 'heuristic'), got {shown(bot)}")
        s = self._persons_turn(seat, "a stand-in plays only for a person")
        stand_in = self._stand_ins.get(bot)
        if stand_in is None:
            check_bot(bot)
            stand_in = self._stand_ins[bot] = BuiltinBot(bot, time_limit=self.bot_time)
        answer = ask_bot(stand_in, bot, self._game, s, self.bot_time, self._fallback)
        event = {
            "type": "stand_in",
            "player": s,
            "bot": bot,
            "name": self.seats[s].name,
            "public": True,
        }
        self._notes.append((len(self._game.history), event))
        return self._apply(s, answer.move)

    def _persons_turn(self, seat: object, bots_refused: str) -> int:
        """``seat`` as a seat number, if it is a person's and that person is to move (refused
        otherwise: the game is over, another seat is to move, or the seat is a bot's)."""
        s = self.seat_arg(seat)
        if self._game.is_over:
            raise GameOverError("the game is over: no more moves")
        if self._game.current_player != s:
            raise NotYourTurnError(
                f"seat {s} tried to move, but seat {self._game.current_player} is to move"
            )
        if not self.seats[s].is_human:
            raise NotYourTurnError(f"seat {s} is a bot: {bots_refused}")
        return s

    def advance(self, max_moves: int | None = None) -> list[dict[str, Any]]:
        """Let the bots move until a person must move or the game ends (at most ``max_moves``
        moves); the events of those moves."""
        events: list[dict[str, Any]] = []
        moved = 0
        while max_moves is None or moved < max_moves:
            step = self.step_bot()
            if not step:
                break
            events.extend(step)
            moved += 1
        return events

    def _apply(self, seat: int, move: object) -> list[dict[str, Any]]:
        events = [dict(e) for e in self._game.apply(move)]  # type: ignore[arg-type]
        self._last_move_at[seat] = len(self._game.history)
        if self._game.is_over:
            self.close()  # no bot moves again: stop the worker processes now
        return events

    def close(self) -> None:
        """Stop the worker processes of the bots given by import path (the table still answers
        :meth:`state` and :meth:`record`). Done when the game ends, when the table is collected
        and at exit; call it when a table is abandoned before its end."""
        close_bots(self._bots)

    def __enter__(self) -> Table:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _note(self, fallback: Fallback) -> None:
        self._notes.append((len(self._game.history), fallback.as_event()))

    # ---- what a seat is shown ----------------------------------------------------------------

    def state(self, seat: object) -> dict[str, Any]:
        """Everything ``seat`` may know now, JSON-ready (see ``docs/table.md``)."""
        s = self.seat_arg(seat)
        return self._builder.build(
            self._game,
            s,
            seat_kinds=[x.public() for x in self.seats],
            seed=self.seed if self._game.is_over else None,
            notes=self._notes,
            since=self._last_move_at[s],
        )

    def spectator_state(self) -> dict[str, Any]:
        """What a spectator may know now: the public part of the table (no hand, no legal move,
        the events every seat saw with every private card hidden, ``seat`` null and
        ``"spectator": true``), JSON-ready."""
        return self._builder.build(
            self._game,
            None,
            seat_kinds=[x.public() for x in self.seats],
            seed=self.seed if self._game.is_over else None,
            notes=[n for n in self._notes if n[1].get("public")],
            since=0,
            public=True,
        )

    def help(self, seat: object) -> str:
        """Help for ``seat``: the rules in brief with their IDs, and the rule behind each kind of
        move it may make now."""
        s = self.seat_arg(seat)
        presenter = self._spec.presenter()
        lines = [presenter.summary(self._game.rules)]
        if self._game.current_player == s:
            rules = sorted(
                {presenter.rule_of(m, self._game.rules) for m in self._game.legal_moves()}
            )
            lines.append("")
            lines.append("Your moves now:")
            lines.extend(f"  {r}" for r in rules)
        return "\n".join(lines)

    # ---- the record ----------------------------------------------------------------------------

    def record(self) -> str:
        """The game record: the engine's ``to_json()`` (``from_json`` and ``Replay`` load it)."""
        return self._game.to_json()

    def named_record(self) -> str:
        """The record with the seats' names: ``{"panda_table": 1, "names": [...], "record":
        {...}}``, where ``record`` is :meth:`record` itself. :class:`Replay` and ``panda-core
        replay`` read it (and show the names); the engine's ``from_json`` reads only
        :meth:`record` (take ``json.loads(text)["record"]`` out of it)."""
        return (
            '{"'
            + NAMED_RECORD
            + '": 1, "names": '
            + json.dumps(self.names)
            + ', "record": '
            + self.record()
            + "}"
        )

    def save(self, path: str | os.PathLike[str], *, names: bool = False) -> Path:
        """Write :meth:`record` (``names=True``: :meth:`named_record`) to ``path`` (atomically:
        a crash never leaves half a record)."""
        target = Path(path)
        partial = target.with_name(target.name + ".partial")
        partial.write_text(self.named_record() if names else self.record(), encoding="utf-8")
        os.replace(partial, target)
        return target

    def default_record_name(self) -> str:
        """``panda-head-SEED.json``: a file name for this game's record."""
        return f"panda-{self._spec.name}-{self.seed}.json"

    def __repr__(self) -> str:
        seats = ", ".join(cut(s.name) for s in self.seats)
        return f"Table({self._spec.name!r}, seed={self.seed}, seats=[{seats}])"
