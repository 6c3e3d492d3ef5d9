"""Challenges: arena games the server schedules between connected bots and built-in bots
(``POST /bots/challenge``, docs/bot_server.md).

A challenge is an arena (``panda_core.arena``): the same entrants, schedule (duplicate deals,
every entrant in every seat of a deal's line-up), results (:class:`~panda_core.arena.MatchResult`,
forfeits included) and report (:class:`~panda_core.arena.report.ArenaReport`); a connected bot is
the entrant ``bot:NAME``. Its games are played one after the other on the server's event loop:
a built-in bot moves in a worker thread, a connected bot through the hub
(:meth:`~panda_core.web.bot_hub.BotHub.decide`, the server's ``--bot-time`` per move). A bot
that forfeits ends that game as a forfeit does in the arena (its seats last, the others tied
first); the other games go on.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from dataclasses import dataclass, field
from typing import Any, Literal

from panda_core._builtin_bot import names_policy_file
from panda_core._core import PandaCoreError, check_bot, check_players
from panda_core._registry import AnyGame, spec
from panda_core.arena.entrants import MAX_ENTRANTS, with_policies
from panda_core.arena.model import ArenaSettings, Entrant, Forfeit, Match, MatchResult
from panda_core.arena.runner import finished_result, forfeited_result
from panda_core.arena.schedule import games_per_deal, matches
from panda_core.bot_import import make_bot
from panda_core.bot_move import ask_move
from panda_core.bots import reset_bots
from panda_core.protocol.messages import Ask
from panda_core.web import bot_seat
from panda_core.web.bot_hub import BotForfeit, BotGame, BotHub, BotRefused
from panda_core.web.bot_tokens import BotTokenError, check_bot_name
from panda_core.web.errors import NotFound, ServerFull, Unprocessable
from panda_core.web.limits import MAX_CHALLENGE_GAMES, MAX_CHALLENGES
from panda_core.web.payloads import BOT_SEAT, NewChallenge
from panda_core.web.threads import in_thread

__all__ = ["Challenge", "Challenges", "challenge_settings"]

log = logging.getLogger("panda_core.web")

KEPT = 16
"""Finished challenges kept (the oldest go first)."""
_GAME_TIME = 600.0
"""The arena's ``game_time`` recorded in the settings (a challenge bounds each move instead)."""

Status = Literal["running", "done", "failed", "stopped"]


def challenge_settings(wanted: NewChallenge, move_time: float) -> ArenaSettings:
    """The arena settings of a challenge (422 with what is wrong)."""
    try:
        game_spec = spec(wanted.game)
        check_players(wanted.players)
        rules = game_spec.rules(None, **(wanted.rules or {}))
    except (PandaCoreError, TypeError) as err:
        raise Unprocessable(str(err)) from None
    if not 2 <= len(wanted.entrants) <= MAX_ENTRANTS:
        raise Unprocessable(f"a challenge has 2 to {MAX_ENTRANTS} entrants")
    if wanted.deals < 1 or not 0 <= wanted.seed < 1 << 64:
        raise Unprocessable("deals is at least 1 and seed in 0..2**64")
    entrants: list[Entrant] = []
    seen: dict[str, int] = {}
    for text in wanted.entrants:
        if text.startswith(BOT_SEAT):
            try:
                check_bot_name(text[len(BOT_SEAT) :])
            except BotTokenError as err:
                raise Unprocessable(str(err)) from None
            if text in seen:
                raise Unprocessable(f"{text!r} is given twice: a connected bot is one entrant")
            entrants.append(Entrant(label=text, spec=text, builtin=False))
        else:
            if names_policy_file(text):
                raise Unprocessable(
                    "'neural' may play, never 'neural:PATH' or 'ismcts+neural:N:PATH' (no path "
                    "opens)"
                )
            try:
                check_bot(text)
            except PandaCoreError as err:
                raise Unprocessable(f"bad entrant {text[:60]!r}: {err}") from None
            count = seen.get(text, 0) + 1
            label = text if count == 1 else f"{text}#{count}"
            entrants.append(Entrant(label=label, spec=text, builtin=True))
        seen[text] = seen.get(text, 0) + 1
    remote = [e for e in entrants if not e.builtin]
    if remote and len(entrants) < wanted.players:
        raise Unprocessable(
            f"{len(entrants)} entrants for {wanted.players} seats would seat an entrant twice "
            "in a game: a connected bot takes one seat (in two it would see both hands); give "
            "at least as many entrants as players"
        )
    try:
        game_spec.check_builtin_bots(wanted.players, [e.spec for e in entrants if e.builtin], rules)
        chosen = with_policies(tuple(entrants), game_spec.name)
    except (PandaCoreError, OSError) as err:
        raise Unprocessable(str(err)) from None
    settings = ArenaSettings(
        game=game_spec.name,
        players=wanted.players,
        entrants=chosen,
        deals=wanted.deals,
        seed=wanted.seed,
        permutations=wanted.permutations,
        rules=rules,
        move_time=move_time,
        game_time=_GAME_TIME,
    )
    scheduled = wanted.deals * games_per_deal(len(chosen), wanted.players, wanted.permutations)
    if scheduled > MAX_CHALLENGE_GAMES:
        raise Unprocessable(
            f"this challenge schedules {scheduled} games; at most {MAX_CHALLENGE_GAMES}"
        )
    return settings


@dataclass(eq=False)
class Challenge:
    """One challenge: its settings, the results so far, how it stands."""

    id: str
    settings: ArenaSettings
    scheduled: int
    results: list[MatchResult] = field(default_factory=list)
    status: Status = "running"
    error: str | None = None
    task: asyncio.Task[None] | None = None

    def summary(self, *, games: bool = True) -> dict[str, Any]:
        """How it stands: ``status``, ``played`` / ``scheduled``, the arena's report of the
        results so far and (``games``) each game's result as the arena's ``games.jsonl``
        keeps it."""
        out: dict[str, Any] = {
            "challenge": self.id,
            "status": self.status,
            "played": len(self.results),
            "scheduled": self.scheduled,
            "error": self.error,
        }
        try:
            from panda_core.arena.report import ArenaReport

            report = ArenaReport.from_results(self.settings, self.results, self.scheduled)
            out["report"] = report.to_json()
        except ImportError as err:  # the ratings need the arena extra
            out["report"] = None
            out["error"] = out["error"] or (
                f"the report needs the arena extra ({err.name} is missing): pip install "
                "'panda-core[arena]'"
            )
        if games:
            out["games"] = [r.to_json() for r in self.results]
        return out


class Challenges:
    """The challenges of one server."""

    def __init__(self, hub: BotHub | None, move_time: float) -> None:
        self.hub = hub
        self.move_time = move_time
        self.all: dict[str, Challenge] = {}

    def running(self) -> int:
        return sum(1 for c in self.all.values() if c.status == "running")

    def start(self, wanted: NewChallenge) -> Challenge:
        """Schedule a challenge (422: bad settings or a bot not connected; 503: too many)."""
        settings = challenge_settings(wanted, self.move_time)
        names = sorted(e.spec[len(BOT_SEAT) :] for e in settings.entrants if not e.builtin)
        if names:
            if self.hub is None:
                raise Unprocessable(
                    "this server takes no connected bots (start it with --bot-token NAME=TOKEN)"
                )
            missing = [n for n in names if not self.hub.is_connected(n)]
            if missing:
                raise Unprocessable(f"bot(s) {missing} not connected")
        if self.running() >= MAX_CHALLENGES:
            raise ServerFull(
                f"{self.running()} challenges are being played (at most {MAX_CHALLENGES}); "
                "try again when one is done"
            )
        self._forget_finished()
        per_deal = games_per_deal(len(settings.entrants), settings.players, settings.permutations)
        challenge = Challenge(
            id=_new_id(self.all), settings=settings, scheduled=settings.deals * per_deal
        )
        self.all[challenge.id] = challenge
        challenge.task = asyncio.create_task(
            self._play(challenge), name=f"challenge {challenge.id}"
        )
        return challenge

    def get(self, challenge_id: str) -> Challenge:
        found = self.all.get(challenge_id)
        if found is None:
            raise NotFound(f"no challenge {challenge_id[:40]!r}")
        return found

    def _forget_finished(self) -> None:
        finished = [c for c in self.all.values() if c.status != "running"]
        for c in finished[: max(0, len(finished) - KEPT + 1)]:
            del self.all[c.id]

    async def stop(self) -> None:
        """Stop every challenge (the server stops)."""
        tasks = [c.task for c in self.all.values() if c.task is not None and not c.task.done()]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    async def _play(self, challenge: Challenge) -> None:
        try:
            for match in matches(challenge.settings):
                challenge.results.append(await self._match(challenge, match))
            challenge.status = "done"
        except asyncio.CancelledError:
            challenge.status = "stopped"
            challenge.error = "the server stopped"
            raise
        except Exception as err:  # a bug of the server's: the challenge ends, the server stays
            log.exception("challenge %s failed", challenge.id)
            challenge.status = "failed"
            challenge.error = f"{type(err).__name__}: {err}"

    async def _match(self, challenge: Challenge, match: Match) -> MatchResult:
        """One game of the challenge (see the module docs)."""
        settings = challenge.settings
        game_spec = spec(settings.game)
        state: AnyGame = await in_thread(
            game_spec.new_game, settings.players, match.seed, settings.rules
        )
        entrants = [settings.entrants[e] for e in match.lineup]
        bots: list[Any] = [make_bot(e.spec) if e.builtin else None for e in entrants]
        reset_bots(bots, match.seed)
        games: dict[int, BotGame] = {}
        decisions = 0
        forfeit: tuple[int, BotForfeit] | None = None
        try:
            for seat, entrant in enumerate(entrants):
                if not entrant.builtin:
                    games[seat] = await self._open(challenge, match, state, seat, entrant)
            while (to_move := state.current_player) is not None:
                forfeit = next(((s, g.forfeit) for s, g in games.items() if g.forfeit), None)
                if forfeit is not None:
                    break
                game = games.get(to_move)
                if game is None:
                    move = await in_thread(ask_move, bots[to_move], state, to_move)
                else:
                    try:
                        move = await self._remote_move(state, game, settings.move_time)
                    except BotForfeit as err:
                        forfeit = (to_move, err)
                        break
                await in_thread(state.apply, move)
                decisions += 1
            if state.current_player is None:
                forfeit = None  # the game ended before the fault: it counts as played
            await self._end_games(state, games, forfeit)
        finally:
            if self.hub is not None:
                for game in games.values():
                    self.hub.end(game, None)  # the game's end went out, or the server stops
        if forfeit is not None:
            return _forfeited(settings, match, state, forfeit[0], forfeit[1], decisions)
        return finished_result(match, state, decisions)

    async def _open(
        self, challenge: Challenge, match: Match, state: AnyGame, seat: int, entrant: Entrant
    ) -> BotGame:
        assert self.hub is not None
        game_id = f"challenge-{challenge.id}-{match.index}"
        start = await in_thread(
            lambda: bot_seat.start(
                state.seat(seat),
                game_id=game_id,
                deal_seed=match.seed,
                move_time=challenge.settings.move_time,
            )
        )
        name = entrant.spec[len(BOT_SEAT) :]
        try:
            return self.hub.open_game(game_id=game_id, bot=name, seat=seat, start=start)
        except BotRefused as err:
            # Too many games for this bot: a forfeit of this game, recorded as such.
            game = BotGame(id=game_id, bot=name, seat=seat, start=start)
            game.forfeit = BotForfeit("exception", str(err))
            return game

    async def _remote_move(self, state: AnyGame, game: BotGame, move_time: float) -> Any:
        assert self.hub is not None
        decision = await in_thread(
            lambda: bot_seat.decision(state.seat(game.seat), game_id=game.id, number=game.decisions)
        )

        async def answer(ask: Ask, time_left: float) -> str:
            return await in_thread(
                lambda: bot_seat.answer_ask(state.seat(game.seat), ask, time_left)
            )

        index = await self.hub.decide(game, decision, move_time, answer)
        return await in_thread(lambda: state.legal_moves()[index])

    async def _end_games(
        self,
        state: AnyGame,
        games: dict[int, BotGame],
        forfeit: tuple[int, BotForfeit] | None,
    ) -> None:
        """Each connected bot of the game is sent its ``end`` (a forfeit names its seat)."""
        if self.hub is None:
            return
        told = None if forfeit is None else forfeit[1].as_message(forfeit[0])
        for game in games.values():
            text = await in_thread(_end_text, state, game, told)
            self.hub.end(game, text)


def _forfeited(
    settings: ArenaSettings,
    match: Match,
    state: AnyGame,
    seat: int,
    forfeit: BotForfeit,
    decisions: int,
) -> MatchResult:
    """A forfeited game as the arena records one
    (:func:`~panda_core.arena.runner.forfeited_result`), with the record as far as it went."""
    entrant = match.lineup[seat]
    kept = Forfeit(
        seat=seat,
        entrant=entrant,
        kind=forfeit.kind,
        message=forfeit.reason,
        record=state.to_json(),
    )
    return forfeited_result(settings, match, state, kept, decisions)


def _new_id(taken: dict[str, Any]) -> str:
    while True:
        new = secrets.token_urlsafe(9)
        if new not in taken:
            return new


def _end_text(state: AnyGame, game: BotGame, told: dict[str, Any] | None) -> str:
    """The ``end`` message of ``game``'s seat (an engine call: run it in a worker thread)."""
    return bot_seat.end(state.seat(game.seat), game_id=game.id, since=game.seen, forfeit=told)
