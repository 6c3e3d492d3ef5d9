"""Pure-Python oracle for the climbing games "Year of the Panda" (preset ``year``) and
"Panda Spin" (preset ``spin``), Part S (docs/rules/), with the randomness of Part R.

The contract this module implements (moves, notation, snapshot, API) is docs/climb_interface.md.
Only the standard library is used; the Rust engine is written independently against the same doc.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .climb_combo import (
    Combo,
    HandCard,
    beats,
    classify,
    condition_holds,
    enumerate_plays,
)
from .climb_deck import (
    ELEMENT_BASE,
    N_ANIMALS,
    N_CARDS,
    RANK_INDEX,
    RANKS,
    Deck,
    default_deck,
    is_element,
    load_deck,
    suit_of,
)
from .rng import MASK64, SplitMix64, shuffle

__all__ = [
    "KINDS",
    "ClimbSettings",
    "Combo",
    "Move",
    "OracleClimbGame",
    "beats",
    "card_notation",
    "classify",
    "condition_holds",
    "load_deck",
    "move_notation",
    "parse_card",
    "parse_move",
]

# Canonical kind order: the first component of the move sort key (docs/climb_interface.md).
KINDS: tuple[str, ...] = (
    "pass",
    "discard_element",
    "element",
    "single",
    "set",
    "run",
    "formation",
    "bomb",
)
KIND_INDEX: dict[str, int] = {k: i for i, k in enumerate(KINDS)}

PRESETS = ("year", "spin")
MOODS = ("hungry", "flip")
HAND_SIZE = {"year": 12, "spin": 11}  # S-3.4
YEAR_SHOW_OUT_CAP = 7  # S-9.2
YEAR_TARGET = 15  # S-10.1
SPIN_TARGET = 20  # S-10.2
SPIN_SYMBOL_CEILING = 19  # S-10.2, S-7.4

SUIT_CODES: tuple[str, ...] = ("Fi", "Ea", "Wo", "Wa", "Me")  # notation, in suit order (S-1.1)
SUIT_CODE_INDEX = {c: i for i, c in enumerate(SUIT_CODES)}


# ------------------------------------------------------------------------------------------------
# Moves and notation
# ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Move:
    """A move in canonical form (docs/climb_interface.md, "Move").

    ``cards`` sorted ids; ``named`` named ranks of the wild units in card-id order (S-4.6);
    ``flip`` sorted ids turned blue by the mood-flip panda (S-7.3); ``steal`` sorted victim seats
    (spin panda, S-7.4).
    """

    kind: str
    cards: tuple[int, ...] = ()
    named: tuple[int, ...] = ()
    flip: tuple[int, ...] = ()
    steal: tuple[int, ...] = ()

    def sort_key(
        self,
    ) -> tuple[int, tuple[int, ...], tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
        return (KIND_INDEX[self.kind], self.cards, self.named, self.flip, self.steal)

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "cards": list(self.cards),
            "named": list(self.named),
            "flip": list(self.flip),
            "steal": list(self.steal),
        }

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> Move:
        """Build a Move from its JSON form, checking types and canonical order."""
        if set(data) != {"kind", "cards", "named", "flip", "steal"}:
            raise ValueError(
                f"a move has exactly the keys kind, cards, named, flip, steal: {dict(data)!r}"
            )
        kind = data["kind"]
        if kind not in KIND_INDEX:
            raise ValueError(f"unknown move kind {kind!r}")
        lists: list[tuple[int, ...]] = []
        for key in ("cards", "named", "flip", "steal"):
            v = data[key]
            if not isinstance(v, (list, tuple)) or not all(
                isinstance(x, int) and not isinstance(x, bool) for x in v
            ):
                raise ValueError(f"move field {key!r} must be a list of ints")
            lists.append(tuple(v))
        cards, named, flip, steal = lists
        if (
            list(cards) != sorted(set(cards))
            or list(flip) != sorted(set(flip))
            or list(steal) != sorted(steal)
        ):
            raise ValueError(
                "move fields cards and flip must be strictly increasing, steal non-decreasing"
            )
        return Move(kind, cards, named, flip, steal)


def card_notation(card: int) -> str:
    """``Fi3``, ``Wa10``, ``MeA`` (suit code + white rank) or ``Fi!`` for an element card."""
    if not isinstance(card, int) or not 0 <= card < N_CARDS:
        raise ValueError(f"unknown card id {card!r}")
    if is_element(card):
        return SUIT_CODES[card - ELEMENT_BASE] + "!"
    return SUIT_CODES[card // 13] + RANKS[card % 13]


def parse_card(token: str) -> int:
    """Inverse of :func:`card_notation`."""
    code, rest = token[:2], token[2:]
    if code not in SUIT_CODE_INDEX:
        raise ValueError(f"unknown suit code in card {token!r}")
    suit = SUIT_CODE_INDEX[code]
    if rest == "!":
        return ELEMENT_BASE + suit
    if rest not in RANK_INDEX:
        raise ValueError(f"unknown rank in card {token!r}")
    return suit * 13 + RANK_INDEX[rest]


def move_notation(move: Move) -> str:
    """Readable notation (docs/climb_interface.md, "Notation").

    ``<kind>[ <cards>][ as <ranks>][ flip <cards>][ steal <seats>]``, lists joined by ``+``, e.g.
    ``pass``, ``element Wa!``, ``set Fi3+Ea10 as 10``, ``single Ea8 flip Fi4+Wo9``,
    ``run Ea8+Wo9 steal 1+1``.
    """
    if move.kind == "pass":
        return "pass"
    s = move.kind + " " + "+".join(card_notation(c) for c in move.cards)
    if move.named:
        s += " as " + "+".join(RANKS[r] for r in move.named)
    if move.flip:
        s += " flip " + "+".join(card_notation(c) for c in move.flip)
    if move.steal:
        s += " steal " + "+".join(str(v) for v in move.steal)
    return s


def parse_move(text: str) -> Move:
    """Inverse of :func:`move_notation`; only canonical text is accepted (single spaces,
    increasing card ids, named ranks in card-id order, sorted flip and steal lists)."""
    tokens = text.split(" ")
    kind = tokens[0]
    if kind not in KIND_INDEX:
        raise ValueError(f"unknown move kind {kind!r} in {text!r}")
    if kind == "pass":
        if len(tokens) != 1:
            raise ValueError("'pass' takes no arguments")
        return Move("pass")
    if len(tokens) < 2 or not tokens[1]:
        raise ValueError(f"'{kind}' needs cards: {text!r}")
    cards = tuple(parse_card(t) for t in tokens[1].split("+"))
    sections: dict[str, str] = {}
    rest = tokens[2:]
    order = ["as", "flip", "steal"]
    while rest:
        if len(rest) < 2 or rest[0] not in order or not rest[1]:
            raise ValueError(f"bad notation {text!r}")
        key = rest[0]
        if any(k in sections for k in order[order.index(key) :]):
            raise ValueError(f"sections out of order in {text!r}")
        sections[key] = rest[1]
        rest = rest[2:]
    named = tuple(_parse_rank(t) for t in sections["as"].split("+")) if "as" in sections else ()
    flip = tuple(parse_card(t) for t in sections["flip"].split("+")) if "flip" in sections else ()
    steal: tuple[int, ...] = ()
    if "steal" in sections:
        if not all(t.isdigit() for t in sections["steal"].split("+")):
            raise ValueError(f"bad seat in {text!r}")
        steal = tuple(int(t) for t in sections["steal"].split("+"))
    move = Move(kind, cards, named, flip, steal)
    if (
        move_notation(move) != text
        or list(cards) != sorted(set(cards))
        or list(flip) != sorted(set(flip))
    ):
        raise ValueError(f"not canonical notation: {text!r}")
    if list(steal) != sorted(steal):
        raise ValueError(f"not canonical notation: {text!r}")
    return move


def _parse_rank(name: str) -> int:
    if name not in RANK_INDEX:
        raise ValueError(f"unknown rank {name!r}")
    return RANK_INDEX[name]


# ------------------------------------------------------------------------------------------------
# Settings
# ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ClimbSettings:
    """Game settings (docs/climb_interface.md, "Settings").

    ``deck`` is the path of a deck file, or None for the shipped reconstructed table (S-2).
    """

    preset: str = "year"
    panda_mood: str = "hungry"
    first_player: int = 0
    deck: str | None = None


# ------------------------------------------------------------------------------------------------
# The game
# ------------------------------------------------------------------------------------------------


class OracleClimbGame:
    """One game of ``year`` or ``spin`` (Part S). Build with :meth:`new` or
    :meth:`from_snapshot`; drive with :meth:`legal_moves` and :meth:`apply`."""

    def __init__(
        self, deck: Deck, players: int, preset: str, mood: str, first_player: int, seed: int
    ) -> None:
        self.deck = deck
        self.n = players
        self.preset = preset
        self.mood = mood
        self.first_player = first_player
        self.seed = seed
        self.rng = SplitMix64(seed)
        self.suits_in_play: list[int] = []
        self.round = 0
        self.starter = 0
        self.scores = [0] * players
        self.hands: list[set[int]] = [set() for _ in range(players)]
        self.blue: set[int] = set()  # animal cards showing the blue face (S-1.4)
        self.draw: list[int] = []  # top first
        self.discard: set[int] = set()
        self.out: set[int] = set()
        # trick state (S-6)
        self.leader: int | None = None
        self.to_beat: Combo | None = None
        self.to_beat_player: int | None = None
        self.holder: int | None = None
        self.passed: set[int] = set()
        self.played: list[list[int]] = [[] for _ in range(players)]
        self.current: int | None = None
        self.shown_out: list[int] = []
        self.game_over = False
        self.winner: int | None = None
        self.round_results: list[dict[str, Any]] = []
        self._legal_cache: list[Move] | None = None  # cleared by every apply()

    # ---- construction ---------------------------------------------------------------------------

    @classmethod
    def new(cls, players: int, seed: int, settings: ClimbSettings | None = None) -> OracleClimbGame:
        """Start a game: validate settings (S-12, R-2, S-7.6), set up and deal round 1 (S-3)."""
        s = settings if settings is not None else ClimbSettings()
        _check_settings(players, seed, s)
        deck = default_deck() if s.deck is None else load_deck(s.deck)
        g = cls(deck, players, s.preset, s.panda_mood, s.first_player, seed)
        if s.preset == "year":
            g._setup_year()
        else:
            g.suits_in_play = list(range(5))  # S-3.3: all five suits
            g._start_round(1, s.first_player)
        return g

    @classmethod
    def from_snapshot(cls, snap: Mapping[str, Any], deck: Deck | None = None) -> OracleClimbGame:
        """Rebuild a game from :meth:`snapshot` output (or a hand-built dict of the same form)."""
        n = snap["players"]
        s = ClimbSettings(snap["preset"], snap["panda_mood"], snap["first_player"], None)
        _check_settings(n, snap["seed"], s)
        g = cls(
            deck if deck is not None else default_deck(),
            n,
            s.preset,
            s.panda_mood,
            s.first_player,
            snap["seed"],
        )
        g.rng = SplitMix64(snap["rng_state"])
        g.suits_in_play = sorted(snap["suits_in_play"])
        g.round = snap["round"]
        g.starter = snap["starter"]
        g.scores = list(snap["scores"])
        g.hands = [set(h) for h in snap["hands"]]
        g.blue = set(snap["blue"])
        g.draw = list(snap["draw_pile"])
        g.discard = set(snap["discard"])
        g.out = set(snap["out"])
        t = snap["trick"]
        g.leader = t["leader"]
        g.holder = t["holder"]
        g.passed = set(t["passed"])
        g.played = [list(p) for p in t["played"]]
        tb = t["to_beat"]
        if tb is None:
            g.to_beat = None
            g.to_beat_player = None
        else:
            g.to_beat = Combo(
                tb["kind"],
                tb["rank"],
                tb["units"],
                tb["length"],
                tb["copies"],
                tuple(tb["cards"]),
                tuple(tb["named"]),
                tb["has_blue"],
            )
            g.to_beat_player = tb["player"]
        g.current = snap["current_player"]
        g.shown_out = list(snap["shown_out"])
        g.game_over = snap["game_over"]
        g.winner = snap["winner"]
        g.round_results = [dict(r) for r in snap["round_results"]]
        g._check_consistency()
        return g

    def _check_consistency(self) -> None:
        """Every card is in exactly one place; sizes and seats are in range."""
        n = self.n
        if len(self.scores) != n or len(self.hands) != n or len(self.played) != n:
            raise ValueError("scores, hands and played must have one entry per seat")
        places: list[int] = (
            [c for h in self.hands for c in h] + self.draw + sorted(self.discard) + sorted(self.out)
        )
        places += [c for p in self.played for c in p]
        if sorted(places) != list(range(N_CARDS)):
            raise ValueError("every card id 0..69 must be in exactly one place")
        if any(x < 0 for x in self.scores):
            raise ValueError("scores must be >= 0")
        for b in self.blue:
            if is_element(b):
                raise ValueError("an element card has no blue face")
        seats = [self.leader, self.holder, self.to_beat_player, self.current, self.winner]
        if any(s is not None and not 0 <= s < n for s in seats) or not 0 <= self.starter < n:
            raise ValueError("seat out of range")
        if not self.game_over and (self.current is None or not self.hands[self.current]):
            raise ValueError("the current player must hold cards")

    # ---- setup ----------------------------------------------------------------------------------

    def _setup_year(self) -> None:
        """S-3.1 / S-3.2: element cards fix the suits in play and the first starter."""
        n = self.n
        elements = list(range(ELEMENT_BASE, N_CARDS))
        shuffle(elements, self.rng)  # R-3 on [65..69]
        taken = elements[: 3 if n == 2 else n]
        owned = {(self.first_player + k) % n: taken[k] for k in range(n)}
        self.suits_in_play = sorted(suit_of(c) for c in taken)
        # S-3.2: the lowest-numbered card among the players' cards (not the 2-player third card).
        starter = min(owned, key=lambda seat: self.deck.element(owned[seat]).number)
        self._start_round(1, starter)

    def _deck_cards(self) -> list[int]:
        """The cards shuffled each round, increasing id order (R-3)."""
        if self.preset == "spin":
            return list(range(N_ANIMALS))  # S-3.3
        cards = [c for c in range(N_ANIMALS) if c // 13 in self.suits_in_play]
        return cards + [ELEMENT_BASE + s for s in self.suits_in_play]  # S-3.1

    def _start_round(self, number: int, starter: int) -> None:
        """S-3.3 / S-3.4: gather, turn white, (spin: deal winds,) shuffle and deal."""
        n = self.n
        self.round = number
        self.starter = starter
        self.hands = [set() for _ in range(n)]
        self.blue = set()
        self.discard = set()
        self.shown_out = []
        in_play = set(self._deck_cards())
        self.out = {c for c in range(N_CARDS) if c not in in_play}
        if self.preset == "spin":
            winds = list(range(ELEMENT_BASE, N_CARDS))
            shuffle(winds, self.rng)  # S-3.3: winds first
            for k in range(n):
                self.hands[(starter + k) % n].add(winds[k])
            self.out = set(winds[n:])
        cards = self._deck_cards()
        shuffle(cards, self.rng)
        dealt = HAND_SIZE[self.preset] * n
        for i in range(dealt):  # one at a time clockwise, starter first (S-3.4)
            self.hands[(starter + i) % n].add(cards[i])
        self.draw = cards[dealt:]  # top = first card not dealt
        self._begin_trick(starter)

    def _begin_trick(self, first: int) -> None:
        """A new trick: the first seat clockwise from ``first`` (inclusive) holding cards leads."""
        self.to_beat = None
        self.to_beat_player = None
        self.holder = None
        self.passed = set()
        self.played = [[] for _ in range(self.n)]
        for i in range(self.n):
            seat = (first + i) % self.n
            if self.hands[seat]:
                self.leader = seat
                self.current = seat
                return
        raise AssertionError("a trick begins only when two players hold cards")

    # ---- queries --------------------------------------------------------------------------------

    @property
    def current_player(self) -> int | None:
        return None if self.game_over else self.current

    @property
    def is_over(self) -> bool:
        return self.game_over

    def hand_cards(self, seat: int) -> list[HandCard]:
        return [
            HandCard(c, self.deck.face(c, c in self.blue), c in self.blue)
            for c in sorted(self.hands[seat])
            if not is_element(c)
        ]

    def legal_moves(self) -> list[Move]:
        """Every legal move of the current player, no duplicates, in canonical order."""
        if self._legal_cache is None:
            self._legal_cache = self._compute_legal_moves()
        return list(self._legal_cache)

    def _compute_legal_moves(self) -> list[Move]:
        if self.game_over or self.current is None:
            return []
        p = self.current
        hand = self.hands[p]
        moves: list[Move] = []
        elements = sorted(c for c in hand if is_element(c))
        # S-6.5: an element (wind) card may be discarded on any turn.
        moves.extend(Move("discard_element", (c,)) for c in elements)
        if self.to_beat is not None:
            moves.append(Move("pass"))  # S-6.1: only a follower may pass
            # S-5.3 / S-8.3: element cards on a non-bomb play whose condition holds.
            for c in elements:
                if condition_holds(self.deck.element(c).condition, self.to_beat):
                    moves.append(Move("element", (c,)))
        for combo in enumerate_plays(self.hand_cards(p), self.to_beat):
            moves.extend(self._symbol_variants(p, combo))
        moves.sort(key=Move.sort_key)
        return moves

    def _symbol_variants(self, p: int, combo: Combo) -> list[Move]:
        """The choices a panda symbol asks for (S-7.3 flip, S-7.4 spin steals), one move each."""
        bamboo, pandas = self._symbols(combo.cards)
        base = Move(combo.kind, combo.cards, combo.named)
        if pandas == 0:
            return [base]
        if self.preset == "year":
            if self.mood == "hungry":
                return [base]
            # S-7.3: 0..k distinct white animal cards of the hand left after the play.
            rest = sorted(
                c
                for c in self.hands[p]
                if c not in combo.cards and not is_element(c) and c not in self.blue
            )
            out: list[Move] = []
            for size in range(min(pandas, len(rest)) + 1):
                for flip in itertools.combinations(rest, size):
                    out.append(Move(combo.kind, combo.cards, combo.named, flip=flip))
            return out
        # S-7.4 spin: compulsory steals, the player chooses the victims (a multiset).
        count = self._steal_count(p, bamboo, pandas)
        caps = [(v, self.scores[v]) for v in range(self.n) if v != p and self.scores[v] > 0]
        return [
            Move(combo.kind, combo.cards, combo.named, steal=vs) for vs in _multisets(caps, count)
        ]

    def _steal_count(self, p: int, bamboo: int, pandas: int) -> int:
        """S-7.4: min(pandas, room under 19 after the play's bamboo, opponents' total points)."""
        after_bamboo = self.scores[p] + self._spin_bamboo_gain(p, bamboo)
        room = max(0, SPIN_SYMBOL_CEILING - after_bamboo)
        opp = sum(self.scores[v] for v in range(self.n) if v != p)
        return min(pandas, room, opp)

    def _spin_bamboo_gain(self, p: int, bamboo: int) -> int:
        """S-10.2: symbol points never raise a spin player above 19; the excess is not gained."""
        return max(0, min(bamboo, SPIN_SYMBOL_CEILING - self.scores[p]))

    def _symbols(self, cards: Sequence[int]) -> tuple[int, int]:
        """(bamboo, panda) symbols on the faces the cards show now (S-7)."""
        bamboo = pandas = 0
        for c in cards:
            f = self.deck.face(c, c in self.blue)
            bamboo += f.bamboo
            pandas += f.pandas
        return bamboo, pandas

    def notation(self, move: Move) -> str:
        """Readable notation of a move (same as :func:`move_notation`)."""
        return move_notation(move)

    # ---- applying moves -------------------------------------------------------------------------

    def apply(self, move: Move) -> None:
        """Apply a legal move; ValueError (state unchanged) if it is not legal."""
        if self.game_over:
            raise ValueError("the game is over")
        if not isinstance(move, Move):
            raise ValueError(f"not a Move: {move!r}")
        move = Move(
            move.kind, tuple(move.cards), tuple(move.named), tuple(move.flip), tuple(move.steal)
        )
        legal = self.legal_moves()
        if move not in set(legal):
            raise ValueError(
                f"illegal move {move_notation(move) if move.kind in KIND_INDEX else move!r}"
            )
        p = self.current
        assert p is not None
        self._legal_cache = None
        if move.kind == "pass":
            self._pass(p)
            self._advance(p)
        elif move.kind == "discard_element":
            (c,) = move.cards
            self.hands[p].discard(c)
            self.discard.add(c)
            # S-6.5: the turn goes on; an emptied hand passes automatically at once.
            if not self.hands[p]:
                self._pass(p)
                self._advance(p)
        elif move.kind == "element":
            self._play_element(p, move.cards[0])
        else:
            self._play_combo(p, move)

    def _draw(self, p: int, k: int) -> None:
        """Draw up to ``k`` cards from the top of the pile (S-8.1, S-8.2)."""
        taken, self.draw = self.draw[:k], self.draw[k:]
        self.hands[p].update(taken)

    def _play_element(self, p: int, c: int) -> None:
        self.hands[p].discard(c)
        self._draw(p, 2)
        if self.preset == "year":
            # S-8.1: the element card wins the trick at once.
            self.played[p].append(c)
            self.holder = p
            self._end_trick(p)
        else:
            # S-8.2: all the player's cards of this trick, the wind included, are discarded;
            # they hold the trick; the play to beat stays.
            self.discard.update(self.played[p])
            self.discard.add(c)
            self.played[p] = []
            self.holder = p
            self._advance(p)

    def _play_combo(self, p: int, move: Move) -> None:
        faces = ["blue" if c in self.blue else "white" for c in move.cards]
        combo = classify(move.cards, faces, move.named, self.deck, leading=self.to_beat is None)
        assert combo is not None
        bamboo, pandas = self._symbols(move.cards)
        beaten_holder = self.holder  # who holds the play being beaten (None when leading)
        for c in move.cards:
            self.hands[p].discard(c)
        self.played[p].extend(move.cards)
        # S-7.1: bamboo first, at once.
        if self.preset == "year":
            self.scores[p] += bamboo
        else:
            self.scores[p] += self._spin_bamboo_gain(p, bamboo)  # S-10.2
        if pandas:
            if self.preset == "spin":
                for v in move.steal:  # S-7.4 (count and victims checked by legal_moves)
                    self.scores[v] -= 1
                    self.scores[p] += 1
            elif self.mood == "hungry":
                if beaten_holder is not None:  # S-7.2: nothing when leading
                    t = min(pandas, self.scores[beaten_holder])
                    self.scores[beaten_holder] -= t
                    self.scores[p] += t
            else:
                self.blue.update(move.flip)  # S-7.3
        self.to_beat = combo
        self.to_beat_player = p
        self.holder = p
        self._advance(p)

    def _pass(self, q: int) -> None:
        """S-6.3: the passer's animal cards of this trick go back flipped blue if all were white
        when played, else all to the discard pile. Passing is final for the trick (S-6.1)."""
        self.passed.add(q)
        cards = self.played[q]
        if cards:
            if all(c not in self.blue for c in cards):
                self.hands[q].update(cards)
                self.blue.update(cards)
            else:
                self.discard.update(cards)
            self.played[q] = []

    def _advance(self, p: int) -> None:
        """Move the turn clockwise from ``p`` (S-6.1, S-6.2, S-6.4, S-6.6)."""
        n = self.n
        q = p
        for _ in range(n):
            q = (q + 1) % n
            if q == self.holder:
                self._end_trick(q)  # S-6.4: the turn would pass to the holder
                return
            if q in self.passed:
                continue
            if not self.hands[q]:
                self._pass(q)  # S-6.2: automatic pass, not a decision
                continue
            self.current = q
            return
        # Nobody can lead (S-6.6) or the loop came back to p: the trick ends with no winner.
        if self.holder is not None:
            raise AssertionError("the turn must reach the holder")
        self._end_trick(None)

    def _end_trick(self, winner: int | None) -> None:
        """S-9.4: winner's cards discarded; forced passes; show-outs; checks; next trick/round."""
        n = self.n
        if winner is not None:
            self.discard.update(self.played[winner])  # S-6.4
            self.played[winner] = []
            for i in range(1, n):  # S-8.1 forced passes, clockwise from the winner
                q = (winner + i) % n
                if q not in self.passed:
                    self._pass(q)
        # S-9.1 / S-9.2 show-outs: winner first (else the trick's first leader), then clockwise.
        start = winner if winner is not None else self.leader
        assert start is not None
        largest = max(len(h) for h in self.hands)
        for i in range(n):
            q = (start + i) % n
            if self.hands[q] or q in self.shown_out:
                continue
            self.shown_out.append(q)
            self.scores[q] += min(largest, YEAR_SHOW_OUT_CAP) if self.preset == "year" else largest
            if self.preset == "spin" and self.scores[q] >= SPIN_TARGET:  # S-10.2
                self._finish(q)
                return
        if self.preset == "year" and max(self.scores) >= YEAR_TARGET:  # S-10.1
            self._finish(self._year_winner())
            return
        holding = [q for q in range(n) if self.hands[q]]
        if len(holding) <= 1:  # S-9.3
            self._record_round()
            self._start_round(self.round + 1, self._next_starter())
            return
        self._begin_trick(winner if winner is not None else start)

    def _year_winner(self) -> int:
        """S-10.1: top score; tie: first shown out this round, else fewest cards, lowest seat."""
        best = max(self.scores)
        tied = [q for q in range(self.n) if self.scores[q] == best]
        shown = [q for q in self.shown_out if q in tied]
        if shown:
            return shown[0]
        return min(tied, key=lambda q: (len(self.hands[q]), q))

    def _next_starter(self) -> int:
        """S-3.5: fewest points; ties go clockwise from the previous starter, inclusive."""
        low = min(self.scores)
        for i in range(self.n):
            q = (self.starter + i) % self.n
            if self.scores[q] == low:
                return q
        raise AssertionError("unreachable")

    def _record_round(self) -> None:
        self.round_results.append(
            {
                "round": self.round,
                "starter": self.starter,
                "shown_out": list(self.shown_out),
                "hand_sizes": [len(h) for h in self.hands],
                "scores": list(self.scores),
            }
        )

    def _finish(self, winner: int) -> None:
        self._record_round()
        self.game_over = True
        self.winner = winner
        self.current = None
        self.leader = None
        self.to_beat = None
        self.to_beat_player = None
        self.holder = None
        self.passed = set()
        # Cards still on the table at the end (none in normal flow) go to the discard pile.
        for q in range(self.n):
            self.discard.update(self.played[q])
        self.played = [[] for _ in range(self.n)]

    # ---- snapshot -------------------------------------------------------------------------------

    def snapshot(self) -> dict[str, Any]:
        """Canonical full state (docs/climb_interface.md, "Snapshot")."""
        on_table = {c for p in self.played for c in p}
        in_hand = {c for h in self.hands for c in h}
        to_beat: dict[str, Any] | None = None
        if self.to_beat is not None:
            to_beat = {"player": self.to_beat_player, **self.to_beat.to_json()}
        return {
            "preset": self.preset,
            "panda_mood": self.mood,
            "players": self.n,
            "first_player": self.first_player,
            "seed": self.seed,
            "deck": self.deck.name,
            "suits_in_play": list(self.suits_in_play),
            "round": self.round,
            "starter": self.starter,
            "scores": list(self.scores),
            "hands": [sorted(h) for h in self.hands],
            "blue": sorted(c for c in self.blue if c in in_hand or c in on_table),
            "draw_pile": list(self.draw),
            "discard": sorted(self.discard),
            "out": sorted(self.out),
            "trick": {
                "leader": self.leader,
                "to_beat": to_beat,
                "holder": self.holder,
                "passed": sorted(self.passed),
                "played": [sorted(p) for p in self.played],
            },
            "current_player": self.current_player,
            "shown_out": list(self.shown_out),
            "game_over": self.game_over,
            "winner": self.winner,
            "rng_state": self.rng.state,
            "round_results": [dict(r) for r in self.round_results],
        }


def _multisets(caps: Sequence[tuple[int, int]], size: int) -> list[tuple[int, ...]]:
    """Sorted multisets of ``size`` seats (seat ``v`` at most ``cap`` times), lexicographic."""
    if size == 0:
        return [()]
    if not caps:
        return []
    (v, cap), rest = caps[0], caps[1:]
    out: list[tuple[int, ...]] = []
    for k in range(min(cap, size), -1, -1):  # more of the lowest seat first = lexicographic order
        out.extend((v,) * k + tail for tail in _multisets(rest, size - k))
    return out


def _check_settings(players: object, seed: object, s: ClimbSettings) -> None:
    if not isinstance(players, int) or isinstance(players, bool) or not 2 <= players <= 5:
        raise ValueError(f"players must be 2 to 5, got {players!r} (S-12)")
    if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed <= MASK64:
        raise ValueError(f"seed must be an int in 0..2**64-1, got {seed!r} (R-2)")
    if s.preset not in PRESETS:
        raise ValueError(f"preset must be one of {PRESETS}, got {s.preset!r}")
    if s.panda_mood not in MOODS:  # S-7.6: spin validates and ignores it
        raise ValueError(f"panda_mood must be one of {MOODS}, got {s.panda_mood!r}")
    fp = s.first_player
    if not isinstance(fp, int) or isinstance(fp, bool) or not 0 <= fp < players:
        raise ValueError(f"first_player must be a seat 0..{players - 1}, got {fp!r}")
