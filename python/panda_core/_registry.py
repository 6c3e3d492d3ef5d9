"""The games by name: the one module that knows which classes, rules, batch functions, vector
environments and spaces belong to ``"head"``, ``"year"`` and ``"spin"``.

Everything else in the package looks a game up here (:func:`spec`, :func:`spec_of`) and then uses
the verbs every game object shares (``panda_core.Game``), so adding a game is one entry here.
"""

from __future__ import annotations

import argparse
import importlib
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, TypeAlias

import numpy as np
import numpy.typing as npt

from panda_core import climb, head
from panda_core._args import shown
from panda_core._cli_args import Default, int_in
from panda_core._core import (
    CLIMB_MOVE_FEATURES,
    CLIMB_MOVE_FEATURES_LAYOUT,
    CLIMB_OBSERVATION_LAYOUT,
    CLIMB_OBSERVATION_SIZE,
    HEAD_OBSERVATION_LAYOUT,
    HEAD_OBSERVATION_SIZE,
    NUM_CLIMB_ACTIONS,
    NUM_HEAD_ACTIONS,
    ClimbGame,
    ClimbMove,
    ClimbSeat,
    ClimbSettings,
    ClimbVectorEnv,
    HeadGame,
    HeadMove,
    HeadRules,
    HeadSeat,
    HeadVectorEnv,
    InvalidStateError,
    RulesError,
    climb_batch_records,
    head_batch_records,
    simulate_climb_batch,
    simulate_head_batch,
)

__all__ = [
    "DEFAULT_GAME",
    "GAMES",
    "MOVE_CLASSES",
    "AnyGame",
    "AnyMove",
    "AnyRules",
    "BatchColumns",
    "GameName",
    "GameSpec",
    "MoveDict",
    "move_dict_notation",
    "plain_engine_move",
    "spec",
    "spec_of",
    "spec_of_record",
]

GameName: TypeAlias = Literal["head", "year", "spin"]
AnyGame: TypeAlias = HeadGame | ClimbGame
"""A game object of any game."""
AnyRules: TypeAlias = HeadRules | ClimbSettings
"""The rules of any game (``game.rules``)."""
AnySeat: TypeAlias = HeadSeat | ClimbSeat
"""A seat object of any game (``game.seat(player)``: what one seat may know)."""
AnyMove: TypeAlias = HeadMove | ClimbMove
"""A move object of any game (``game.legal_moves()``)."""
MoveDict: TypeAlias = climb.ClimbMoveDict
"""A move as a JSON dict, for the games that have that form (the climbing games)."""

BatchColumns = tuple[
    npt.NDArray[np.int8],
    npt.NDArray[np.uint32],
    npt.NDArray[np.uint32],
    npt.NDArray[np.uint32],
    npt.NDArray[np.uint32],
]
"""A batch's per-game ``(winner, rounds, decisions, scores, left)`` columns: ``scores`` and
``left`` are games × players; ``left[g, s]`` is the round (from 1) at whose end seat ``s`` left
game ``g`` (Panda Head's Pooped Pandas), 0 for a seat that stayed."""


@dataclass(frozen=True)
class GameSpec:
    """One game: its classes, sizes and the engine functions that serve it."""

    name: GameName
    title: str
    """The game's name in prose ("Panda Head")."""
    game_class: type[HeadGame] | type[ClimbGame]
    rules_class: type[HeadRules] | type[ClimbSettings]
    move_class: type[HeadMove] | type[ClimbMove]
    vector_env: type[HeadVectorEnv] | type[ClimbVectorEnv]
    num_actions: int
    """Size of the fixed action space (``game.num_actions``)."""
    observation_size: int
    """Length of ``game.observation(player)``."""
    round_name: str
    """What a round is called in this game, plural ("hands", "rounds")."""
    cli_options: Mapping[str, str]
    """``panda-core simulate`` options of this game: argparse dest → flag."""
    cli_group: tuple[str, Callable[[argparse._ArgumentGroup, Default], None]]
    """The help group of this game's rule options and what adds them to it (games that share
    their options share one group)."""
    _rules: Callable[[AnyRules | None, dict[str, Any]], AnyRules]
    _new: Callable[[int, int, Any], AnyGame]
    _batch: Callable[[int, int, list[str], int, Any, int | None, int], BatchColumns]
    _records: Callable[[int, int, list[str], int, Any, int | None, int], list[str]]
    _cli_rules: Callable[[argparse.Namespace], AnyRules]
    _render: Callable[[Any], str]
    presenter_module: str
    """The module whose ``PRESENTER`` shows this game at a table (``panda_core.table``)."""
    remote_seat: str
    """``module:Class`` of this game's seat rebuilt from the bot protocol's messages
    (:mod:`panda_core.protocol.remote_seat`; imported on first use)."""
    _from_snapshot: Callable[[Any, Any], AnyGame]
    """A game from its snapshot and its rules object (``determinize``'s answer over the
    protocol)."""
    record_format: str
    """The ``format`` field of this game's JSON records."""
    record_moves: str
    """The field of a record that lists the moves, in order."""
    _placements: Callable[[int, Sequence[int], Sequence[int]], tuple[int, ...]]
    _left: Callable[[Sequence[Any], int], tuple[int, ...]]
    _rules_dict: Callable[[Any], dict[str, Any]]
    _plain_move: Callable[[Any], int | str]
    """A move object of this game as the plain value a record stores (an action id or a
    notation): what a bot's answer is read into."""
    observation_layout: str = ""
    """The version of the observation layout (trained policies name the one they read)."""
    move_features: int = 0
    """Floats per row of ``game.legal_move_features()`` (one row per legal move, in
    ``legal_moves()`` order: docs/climb_encodings.md); 0 for a game without move features."""
    move_features_layout: str | None = None
    """The version of the move-feature layout; ``None`` without move features."""

    @property
    def policy_kind(self) -> Literal["action-values", "move-scores"]:
        """What a trained policy of this game computes (docs/train_your_agent.md): the value
        of every action id from the observation, or the score of one legal move from the
        observation and that move's features (the games that have them)."""
        return "move-scores" if self.move_features else "action-values"

    def check_builtin_bots(self, players: int, bots: Sequence[str], rules: object = None) -> None:
        """Refuse built-in bot names that cannot play this game (the engine's ``RulesError``, or
        ``PolicyError`` for a ``neural`` policy of another game or layout): a batch of no
        games, which checks every seat before it would deal."""
        for bot in bots:
            self.simulate_batch(0, players, [bot] * players, 0, rules, 1, 0)

    def new_vector_env(
        self, num_envs: int, players: int = 4, rules: object = None, threads: int | None = None
    ) -> HeadVectorEnv | ClimbVectorEnv:
        """A vector env of ``num_envs`` games of this game (with this game's rules)."""
        chosen = self.rules(rules)
        if isinstance(chosen, HeadRules):
            return HeadVectorEnv(num_envs, players, rules=chosen, threads=threads)
        return ClimbVectorEnv(num_envs, players, rules=chosen, threads=threads)

    def rules(self, rules: object = None, **options: Any) -> AnyRules:
        """This game's rules: ``rules`` (an object of :attr:`rules_class`), or one built from
        ``options`` (its keyword arguments), or the defaults; never both."""
        if isinstance(rules, HeadRules | ClimbSettings) and not isinstance(rules, self.rules_class):
            raise RulesError(
                f"{self.title} takes rules={self.rules_class.__name__}(...), not "
                f"{type(rules).__name__}"
            )
        if rules is not None and not isinstance(rules, self.rules_class):
            raise TypeError(
                f"{self.name} takes rules={self.rules_class.__name__}(...), got {shown(rules)}"
            )
        if rules is not None and options:
            raise RulesError(
                f"give {self.name} either rules=... or rule options, not both "
                f"(got rules and {sorted(options)})"
            )
        return self._rules(rules, options)

    def new_game(self, players: int, seed: int, rules: object = None, **options: Any) -> AnyGame:
        """A new game dealt from ``seed`` (players and seed are checked by the engine)."""
        return self._new(players, seed, self.rules(rules, **options))

    def simulate_batch(
        self,
        games: int,
        players: int,
        bots: list[str],
        seed: int,
        rules: object,
        threads: int | None,
        first_game: int,
    ) -> BatchColumns:
        """Games ``first_game ..`` of the engine's batch simulation, as columns."""
        return self._batch(games, players, bots, seed, self.rules(rules), threads, first_game)

    def batch_records(
        self,
        games: int,
        players: int,
        bots: list[str],
        seed: int,
        rules: object,
        threads: int | None,
        first_game: int,
    ) -> list[str]:
        """The JSON records of the games :meth:`simulate_batch` plays with these arguments."""
        return self._records(games, players, bots, seed, self.rules(rules), threads, first_game)

    def cli_rules(self, args: argparse.Namespace) -> AnyRules:
        """This game's rules from ``panda-core simulate``'s parsed options."""
        return self._cli_rules(args)

    def placements(
        self, winner: int, scores: Sequence[int], left: Sequence[int]
    ) -> tuple[int, ...]:
        """Each seat's place at the end of a game (0 = first; equal places tie), from the
        winner, the final scores and the round each seat left the game in (``left``: from 1;
        0 stayed; :meth:`left_of`, or a batch's ``left`` column): what the arena's ratings
        rank and a self-play row's ``place``."""
        return self._placements(winner, scores, left)

    def left_of(self, game: AnyGame) -> tuple[int, ...]:
        """The round (from 1) at whose end each seat left ``game`` (Panda Head: was Pooped,
        H-6.2), from its ``round_results``; 0 for a seat still in or that never leaves. A seat
        that had left before the game's known history (a position set up with Pooped seats)
        counts 0 as well: :meth:`placements` puts it below everyone who left later."""
        return self._left(game.round_results, game.players)

    def legal_move_features(self, game: AnyGame) -> npt.NDArray[np.float32]:
        """``game.legal_move_features()``: ``(len(legal_moves()), move_features)`` float32, for a
        game that has them (:attr:`move_features` > 0; ``RulesError`` otherwise)."""
        if not self.move_features or isinstance(game, HeadGame):
            raise RulesError(f"{self.title} has no move features")
        return game.legal_move_features()

    def rules_dict(self, rules: object) -> dict[str, Any]:
        """``rules`` (of this game) as a JSON-ready dict of its settings."""
        return self._rules_dict(self.rules(rules))

    def render(self, game: AnyGame) -> str:
        """A few lines of text picturing ``game`` for the seat to move (the RL ``render()``)."""
        return self._render(game)

    def from_snapshot(self, snapshot: Any, rules: object) -> AnyGame:
        """A game of this game's class from ``snapshot()`` output, played by ``rules``."""
        return self._from_snapshot(snapshot, self.rules(rules))

    def presenter(self) -> Any:
        """The table presenter of this game (imported on first use: the table is optional)."""
        return importlib.import_module(self.presenter_module).PRESENTER

    def replay_start(self, record: Mapping[str, Any]) -> tuple[AnyGame, list[Any]]:
        """The game at the start of ``record`` (a parsed record of this game) and its moves.

        The start is the record with no moves, loaded by the engine's ``from_json`` (which checks
        everything); each move is then applied by the caller, so a replay walks exactly the
        positions the engine's own loader walks."""
        moves = record.get(self.record_moves)
        if not isinstance(moves, list):
            raise InvalidStateError(
                f"a {self.title} record lists its moves in {self.record_moves!r}, got "
                f"{shown(moves)}"
            )
        start = self.game_class.from_json(json.dumps({**record, self.record_moves: []}))
        return start, list(moves)

    def __repr__(self) -> str:
        return f"GameSpec({self.name!r})"


# ---- Panda Head -------------------------------------------------------------------------------


def _head_rules(rules: AnyRules | None, options: dict[str, Any]) -> HeadRules:
    assert rules is None or isinstance(rules, HeadRules)  # checked by GameSpec.rules
    return rules if rules is not None else HeadRules(**options)


def _batch_columns(
    simulate: Callable[..., Any], rounds: str
) -> Callable[[int, int, list[str], int, Any, int | None, int], BatchColumns]:
    """The engine's batch function ``simulate`` as columns; ``rounds`` names its rounds column
    (``"hands"`` in Panda Head)."""

    def run(
        games: int,
        players: int,
        bots: list[str],
        seed: int,
        rules: Any,
        threads: int | None,
        first_game: int,
    ) -> BatchColumns:
        out = simulate(games, players, bots, seed, rules, threads, first_game)
        return out["winner"], out[rounds], out["decisions"], out["scores"], out["left"]

    return run


def _by_elimination(winner: int, scores: Sequence[int], left: Sequence[int]) -> tuple[int, ...]:
    """Panda Head's places: the winner (the last seat not Pooped, H-6.3) first, then the others
    in the reverse order they were Pooped (H-6.2): the later a seat left, the better its place.
    Seats Pooped in the same hand tie (the rules break no such tie; with one scorer per hand,
    H-5.1, it cannot happen in a game played from its start). The final scores say nothing of
    the order: every Pooped score is above the threshold."""
    return tuple(
        0
        if s == winner
        else 1 + sum(1 for t in range(len(scores)) if t != winner and left[t] > left[s])
        for s in range(len(scores))
    )


def _head_left(results: Sequence[Any], players: int) -> tuple[int, ...]:
    """Each seat's hand of H-6.2 (from 1), from a game's hand results (``new_pooped``)."""
    left = [0] * players
    for number, result in enumerate(results, start=1):
        for seat in result["new_pooped"]:
            left[seat] = number
    return tuple(left)


def _head_rules_dict(rules: HeadRules) -> dict[str, Any]:
    return dict(rules.to_dict())


def _action_id(move: HeadMove) -> int:
    return int(move.action_id)


def _head_cli_rules(args: argparse.Namespace) -> HeadRules:
    return HeadRules(
        last_pile_scoring=args.last_pile_scoring,
        poor_panda=not args.no_poor_panda,
        lowest_only_when_cannot_follow=args.lowest_only_when_cannot_follow,
        bust_threshold=args.bust_threshold,
        special_cards=not args.no_special_cards,
        first_dealer=args.first_dealer,
    )


def _head_cli_options(group: argparse._ArgumentGroup, default: Default) -> None:
    """Panda Head's options of the commands that play many games (read by
    :func:`_head_cli_rules`)."""
    group.add_argument(
        "--last-pile-scoring",
        choices=("pile_sum", "own_card"),
        default=default("pile_sum"),
        help="how pile 7 scores",
    )
    group.add_argument(
        "--no-poor-panda", action="store_true", default=default(False), help="no Poor Panda"
    )
    group.add_argument(
        "--lowest-only-when-cannot-follow",
        action="store_true",
        default=default(False),
        help="the lowest-card rule applies only when a player cannot follow",
    )
    group.add_argument(
        "--bust-threshold",
        type=int_in(0, 2**32 - 1),
        default=default(21),
        help="score above which a player is out",
    )
    group.add_argument(
        "--no-special-cards",
        action="store_true",
        default=default(False),
        help="play without the Big Pandas and the Bamboo",
    )
    group.add_argument(
        "--first-dealer", type=int_in(0, 4), default=default(0), help="seat of the first dealer"
    )


HEAD_CLI_GROUP = ("Panda Head rules (H-7, docs/rules/head.md; --game head only)", _head_cli_options)

HEAD_OPTIONS = {
    "last_pile_scoring": "--last-pile-scoring",
    "no_poor_panda": "--no-poor-panda",
    "lowest_only_when_cannot_follow": "--lowest-only-when-cannot-follow",
    "bust_threshold": "--bust-threshold",
    "no_special_cards": "--no-special-cards",
    "first_dealer": "--first-dealer",
}
"""Options of Panda Head (H-7, docs/rules/head.md)."""


# ---- the climbing games -----------------------------------------------------------------------


def _climb_rules(preset: Literal["year", "spin"]) -> Callable[..., ClimbSettings]:
    """Settings with ``preset`` (the game's name decides it; passing another is an error)."""

    def build(rules: AnyRules | None, options: dict[str, Any]) -> ClimbSettings:
        if "preset" in options:
            raise RulesError(f"the preset is the game's name ({preset!r}): do not pass preset=")
        if rules is None:
            return ClimbSettings(preset=preset, **options)
        assert isinstance(rules, ClimbSettings)  # checked by GameSpec.rules
        if rules.preset == preset:
            return rules
        return ClimbSettings(
            preset=preset,
            panda_mood=rules.panda_mood,
            first_player=rules.first_player,
            deck=rules.deck,
        )

    return build


def _by_score(winner: int, scores: Sequence[int], left: Sequence[int]) -> tuple[int, ...]:
    """The climbing games' places: the winner (S-10.1, ties already broken) first, then the other
    seats by final score, highest first; equal scores tie. Nobody leaves a climbing game:
    ``left`` is all zeros and plays no part."""
    others = [scores[s] for s in range(len(scores)) if s != winner]
    return tuple(
        0 if s == winner else 1 + sum(1 for v in others if v > scores[s])
        for s in range(len(scores))
    )


def _stayed(results: Sequence[Any], players: int) -> tuple[int, ...]:
    """Nobody leaves a climbing game."""
    return (0,) * players


def _notation(move: ClimbMove) -> str:
    return str(move.notation)


def _climb_rules_dict(rules: ClimbSettings) -> dict[str, Any]:
    return {
        "preset": rules.preset,
        "panda_mood": rules.panda_mood,
        "first_player": rules.first_player,
        "deck": rules.deck,
    }


def _climb_cli_rules(preset: Literal["year", "spin"]) -> Callable[[argparse.Namespace], Any]:
    def build(args: argparse.Namespace) -> ClimbSettings:
        options: dict[str, Any] = {
            "first_player": args.first_player,
            "deck": None if args.deck is None else str(args.deck),
        }
        if preset == "year":  # spin has no panda mood (S-7.6)
            options["panda_mood"] = args.panda_mood
        return ClimbSettings(preset=preset, **options)

    return build


def _climb_cli_options(group: argparse._ArgumentGroup, default: Default) -> None:
    """The climbing games' options of the commands that play many games (read by
    :func:`_climb_cli_rules`)."""
    group.add_argument(
        "--panda-mood",
        choices=("hungry", "flip"),
        default=default("hungry"),
        help="year only: the panda side",
    )
    group.add_argument(
        "--deck",
        metavar="PATH",
        default=default(None),
        help="a deck file (TOML or JSON; default None: the built-in reconstructed deck)",
    )
    group.add_argument(
        "--first-player",
        type=int_in(0, 4),
        default=default(0),
        help="seat that leads the first round",
    )


CLIMB_CLI_GROUP = (
    "climbing games (S-12, docs/rules/spin.md; --game year or spin only)",
    _climb_cli_options,
)

CLIMB_OPTIONS = {"deck": "--deck", "first_player": "--first-player"}
"""Options of both climbing games (S-12, docs/rules/spin.md)."""
YEAR_OPTIONS = {"panda_mood": "--panda-mood"}
"""Options of ``year`` only (``spin`` has no panda mood, S-7.6)."""


def _climb_spec(name: Literal["year", "spin"], title: str) -> GameSpec:
    options = {**CLIMB_OPTIONS, **(YEAR_OPTIONS if name == "year" else {})}
    return GameSpec(
        name=name,
        title=title,
        game_class=ClimbGame,
        rules_class=ClimbSettings,
        move_class=ClimbMove,
        vector_env=ClimbVectorEnv,
        num_actions=NUM_CLIMB_ACTIONS,
        observation_size=CLIMB_OBSERVATION_SIZE,
        round_name="rounds",
        cli_options=options,
        cli_group=CLIMB_CLI_GROUP,
        _rules=_climb_rules(name),
        _new=ClimbGame,
        _batch=_batch_columns(simulate_climb_batch, "rounds"),
        _records=climb_batch_records,
        _cli_rules=_climb_cli_rules(name),
        _render=climb.render_text,
        presenter_module="panda_core.table.climb_text",
        remote_seat="panda_core.protocol.remote_climb:RemoteClimbSeat",
        _from_snapshot=lambda snap, rules: ClimbGame.from_snapshot(snap, rules.deck),
        record_format="panda-core/climb",
        record_moves="moves",
        _placements=_by_score,
        _left=_stayed,
        _rules_dict=_climb_rules_dict,
        _plain_move=_notation,
        observation_layout=CLIMB_OBSERVATION_LAYOUT,
        move_features=CLIMB_MOVE_FEATURES,
        move_features_layout=CLIMB_MOVE_FEATURES_LAYOUT,
    )


# ---- the registry -----------------------------------------------------------------------------

SPECS: dict[str, GameSpec] = {
    "head": GameSpec(
        name="head",
        title="Panda Head",
        game_class=HeadGame,
        rules_class=HeadRules,
        move_class=HeadMove,
        vector_env=HeadVectorEnv,
        num_actions=NUM_HEAD_ACTIONS,
        observation_size=HEAD_OBSERVATION_SIZE,
        round_name="hands",
        cli_options=HEAD_OPTIONS,
        cli_group=HEAD_CLI_GROUP,
        _rules=_head_rules,
        _new=HeadGame,
        _batch=_batch_columns(simulate_head_batch, "hands"),
        _records=head_batch_records,
        _cli_rules=_head_cli_rules,
        _render=head.render_text,
        presenter_module="panda_core.table.head_text",
        remote_seat="panda_core.protocol.remote_head:RemoteHeadSeat",
        _from_snapshot=HeadGame.from_snapshot,
        record_format="panda-core/head",
        record_moves="actions",
        _placements=_by_elimination,
        _left=_head_left,
        _rules_dict=_head_rules_dict,
        _plain_move=_action_id,
        observation_layout=HEAD_OBSERVATION_LAYOUT,
    ),
    "year": _climb_spec("year", "Year of the Panda"),
    "spin": _climb_spec("spin", "Panda Spin"),
}

GAMES: tuple[GameName, ...] = tuple(game.name for game in SPECS.values())
"""The games, in the registry's order: Panda Head and the two climbing presets."""

DEFAULT_GAME: GameName = "head"
"""The game an entry point plays when none is named."""

MOVE_CLASSES: tuple[type[HeadMove] | type[ClimbMove], ...] = tuple(
    dict.fromkeys(game.move_class for game in SPECS.values())
)
"""The engine's move classes, one per game family (``isinstance(x, MOVE_CLASSES)``)."""


def plain_engine_move(answer: object) -> int | str | None:
    """An engine move object (exactly one of the games' move classes, no subclass) as the plain
    value a record stores; ``None`` for anything else."""
    for game in SPECS.values():
        if type(answer) is game.move_class:
            return game._plain_move(answer)
    return None


def move_dict_notation(plain: Any) -> str:
    """The notation of a move given as a JSON dict (:data:`MoveDict`, already copied into plain
    JSON values); ``InvalidStateError`` if it is no move's dict."""
    return str(ClimbMove.from_json(plain).notation)


def spec(name: object) -> GameSpec:
    """The game called ``name``; ``RulesError`` naming the games otherwise."""
    found = SPECS.get(name) if isinstance(name, str) else None
    if found is None:
        raise RulesError(f"unknown game {shown(name)}; the games are {list(GAMES)}")
    return found


def spec_of_record(record: object) -> GameSpec:
    """The game a parsed JSON record belongs to: its ``format``, and for games that share a
    format (the climbing presets) its ``settings.preset``. ``InvalidStateError`` saying what is
    wrong otherwise, and for a record that claims one game while holding another game's moves
    field (a Panda Head record relabelled as climbing) saying both."""
    if not isinstance(record, Mapping):
        raise InvalidStateError(f"a game record is a JSON object, got {shown(record)}")
    fmt = record.get("format")
    same_format = [g for g in SPECS.values() if g.record_format == fmt]
    if not same_format:
        formats = sorted({g.record_format for g in SPECS.values()})
        raise InvalidStateError(
            f"not a panda-core game record: its format is {shown(fmt)}; a record's format is "
            f"one of {formats}" + _looks_like(record, [])
        )
    claimed = same_format[0]
    if len(same_format) > 1:
        settings = record.get("settings")
        preset = settings.get("preset") if isinstance(settings, Mapping) else None
        chosen = [g for g in same_format if g.name == preset]
        if not chosen:
            names = " or ".join(repr(g.name) for g in same_format)
            raise InvalidStateError(
                f"the record's format {fmt!r} is that of {names}, which its settings.preset "
                f"tells apart; this record's settings.preset is {shown(preset)}"
                + _looks_like(record, same_format)
            )
        claimed = chosen[0]
    if "game" in record:  # the web API's word for it; a record says it by its format
        raise InvalidStateError(
            f"a record names its game by its format (and a climbing record by settings.preset), "
            f"not by a 'game' field: this one's format {fmt!r} is {claimed.title}'s and it says "
            f"'game': {shown(record['game'])}"
        )
    if claimed.record_moves not in record:
        raise InvalidStateError(
            f"the record claims to be {claimed.title} (format {fmt!r}) but has no "
            f"{claimed.record_moves!r} (the moves of a {claimed.title} record)"
            + _looks_like(record, [claimed])
        )
    return claimed


def _looks_like(record: Mapping[str, Any], claimed: list[GameSpec]) -> str:
    """``"; it lists its moves in 'actions', as a record of Panda Head does …"`` when the record
    holds the moves field of games other than those it claims, else ``""``."""
    for field in sorted({g.record_moves for g in SPECS.values()}):
        others = [g for g in SPECS.values() if g.record_moves == field]
        if field in record and not any(g in claimed for g in others):
            titles = " or ".join(g.title for g in others)
            return (
                f"; it lists its moves in {field!r}, as a record of {titles} does (format "
                f"{others[0].record_format!r}): a record relabelled as another game is not "
                "replayed"
            )
    return ""


def spec_of(game: AnyGame | AnySeat | Any) -> GameSpec:
    """The game a game object or a seat (the engine's, or one rebuilt from the bot protocol)
    plays: its rules say which (a climbing game's preset)."""
    rules = game.rules
    if isinstance(rules, HeadRules):
        return SPECS["head"]
    return SPECS[rules.preset]


if TYPE_CHECKING:
    from panda_core.game import Game

    def _every_game_is_a_game(
        head: HeadGame, climb: ClimbGame
    ) -> tuple[Game[HeadMove], Game[ClimbMove], Game[Any], Game[Any]]:
        """Checked by ``mypy --strict``: every game class fulfils the protocol."""
        return head, climb, head, climb
