"""Independent pure-Python oracle for Panda Head (docs/rules/head.md, randomness Part R).

Written from the rules text alone; it is slow and plain on purpose. Every decision cites the rule
ID it implements. The test suite compares this oracle with the Rust engine, so the public
interface (action ids, ``snapshot()`` format) is fixed.

Action ids (the fixed action space, ``NUM_ACTIONS`` = 24):

* ``0 .. 10``  - a regular Panda of value ``v = id + 1`` alone;
* ``11 .. 21`` - a regular Panda of value ``v = id - 10`` with one Bamboo (value ``v + 2``, H-4.3);
* ``22``       - a Big Panda (H-4.1 led, H-4.2 following);
* ``23``       - a Bamboo alone (H-4.4).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any, TypeGuard

from .rng import MASK64, SplitMix64, shuffle

# --- H-1 components -----------------------------------------------------------------------------

NUM_REGULAR = 55
"""H-1.1/H-1.3: ids 0..54 are regular Pandas."""
BIG_PANDA_IDS = range(55, 59)
"""H-1.3: ids 55..58 are Big Pandas."""
BAMBOO_IDS = range(59, 63)
"""H-1.3: ids 59..62 are Bamboo cards."""
FULL_DECK_SIZE = 63
CARDS_PER_HAND = 7
"""H-2.3: each player still in the game receives 7 cards."""
PILES_PER_HAND = 7
"""H-2.4: a hand is 7 piles."""

NUM_ACTIONS = 24
ACTION_BIG_PANDA = 22
ACTION_BAMBOO_ALONE = 23

MIN_PLAYERS = 2
MAX_PLAYERS = 5

LAST_PILE_SCORING_VALUES = ("pile_sum", "own_card")


def is_regular(card: int) -> bool:
    """H-1.3: ids 0..54 are regular Pandas."""
    return 0 <= card < NUM_REGULAR


def is_big_panda(card: int) -> bool:
    """H-1.3: ids 55..58 are Big Pandas."""
    return card in BIG_PANDA_IDS


def is_bamboo(card: int) -> bool:
    """H-1.3: ids 59..62 are Bamboo cards."""
    return card in BAMBOO_IDS


def regular_value(card: int) -> int:
    """H-1.3: a regular Panda with id ``c`` has value ``c // 5 + 1``."""
    if not is_regular(card):
        raise ValueError(f"card {card} is not a regular Panda")
    return card // 5 + 1


def action_alone(value: int) -> int:
    """Action id of a regular Panda of ``value`` played alone."""
    return value - 1


def action_with_bamboo(value: int) -> int:
    """Action id of a regular Panda of ``value`` played with one Bamboo."""
    return value + 10


@dataclass(frozen=True)
class HeadRules:
    """The H-7 variants (defaults are the bold values of the H-7 table) and the first dealer."""

    last_pile_scoring: str = "pile_sum"  # H-5.2: "pile_sum" (default) or "own_card"
    poor_panda: bool = True  # H-5.3
    lowest_only_when_cannot_follow: bool = False  # H-3.2 variant
    bust_threshold: int = 21  # H-6.4: positive integer, replaces 21 in H-6.1 / H-6.2
    special_cards: bool = True  # H-7: off = the 55 regular cards only
    first_dealer: int = 0  # H-2.2

    def validate(self, players: int) -> None:
        """Raise ValueError if these rules cannot be used with ``players`` seats."""
        if self.last_pile_scoring not in LAST_PILE_SCORING_VALUES:
            raise ValueError(
                f"last_pile_scoring must be one of {LAST_PILE_SCORING_VALUES}, "
                f"got {self.last_pile_scoring!r}"
            )
        for name in ("poor_panda", "lowest_only_when_cannot_follow", "special_cards"):
            if not _is_bool(getattr(self, name)):
                raise ValueError(f"{name} must be a bool")
        if not _is_int(self.bust_threshold) or self.bust_threshold <= 0:
            raise ValueError(f"bust_threshold must be a positive int, got {self.bust_threshold!r}")
        if not _is_int(self.first_dealer) or not 0 <= self.first_dealer < players:
            raise ValueError(
                f"first_dealer must be a seat in 0..{players - 1}, got {self.first_dealer!r}"
            )

    def deck(self) -> list[int]:
        """H-2.3: all 63 cards, or the 55 regular cards (ids 0..54) when special_cards is off."""
        return list(range(FULL_DECK_SIZE if self.special_cards else NUM_REGULAR))


def _is_int(x: object) -> TypeGuard[int]:
    return isinstance(x, int) and not isinstance(x, bool)


def _is_bool(x: object) -> bool:
    return isinstance(x, bool)


def _is_list(x: object) -> bool:
    return isinstance(x, list)


def _check_players(players: object) -> int:
    # H-2.1: 2 to 5 players; any other count is refused with a clear error.
    # Every refusal of a bad argument in this module is a ValueError, also for a wrong type.
    if not _is_int(players) or players not in range(MIN_PLAYERS, MAX_PLAYERS + 1):
        raise ValueError(f"Panda Head needs 2 to 5 players, got {players!r}")
    return players


@dataclass
class _Play:
    """One play on the pile in progress."""

    seat: int
    action: int
    value: int  # effective value (H-4.2, H-4.3, H-4.1/H-4.4 turned-up card)
    cards: list[int]  # every card the play consumed, incl. turned-up cards (not a replacement)


class OracleHeadGame:
    """A whole game of Panda Head, from the first deal until one player is left awake."""

    def __init__(
        self,
        players: int,
        rules: HeadRules,
        rng: SplitMix64,
        dealer: int,
        hand_number: int,
        scores: list[int],
        drowsy: list[bool],
        pooped: list[bool],
    ) -> None:
        """Internal; use ``new`` or ``from_deal``."""
        self._players = players
        self._rules = rules
        self._rng = rng
        self._dealer = dealer
        self._hand_number = hand_number
        self._scores = list(scores)
        self._drowsy = list(drowsy)
        self._pooped = list(pooped)
        self._hands: list[list[int]] = [[] for _ in range(players)]
        self._draw_pile: list[int] = []  # index 0 is the top
        self._discard: list[int] = []
        self._pile_number = 0
        self._leader = 0
        self._pile_plays: list[_Play] = []
        self._over = False
        self._winner: int | None = None
        self._hand_results: list[dict[str, Any]] = []

    # --- construction ---------------------------------------------------------------------------

    @classmethod
    def new(cls, players: int, seed: int, rules: HeadRules) -> OracleHeadGame:
        """A new game: the generator starts at ``seed`` (R-2); the first hand is dealt (H-2.3)."""
        players = _check_players(players)
        # the seed is an integer in 0 .. 2^64 - 1; anything else is refused.
        if not _is_int(seed) or not 0 <= seed <= MASK64:
            raise ValueError(f"seed must be an int in 0..2**64-1, got {seed!r}")
        rules.validate(players)
        game = cls(
            players=players,
            rules=rules,
            rng=SplitMix64(seed),
            dealer=rules.first_dealer,  # H-2.2
            hand_number=0,
            scores=[0] * players,
            drowsy=[False] * players,
            pooped=[False] * players,
        )
        game._deal_new_hand()
        return game

    @classmethod
    def from_deal(
        cls,
        players: int,
        hands: list[list[int]],
        draw_pile: list[int],
        dealer: int,
        scores: list[int],
        drowsy: list[bool],
        pooped: list[bool],
        rng_state: int,
        rules: HeadRules,
        hand_number: int = 0,
    ) -> OracleHeadGame:
        """An explicit position at the start of a hand (no pile played yet).

        ``draw_pile`` is top-first. ``rng_state`` is the generator state used for the shuffles of
        later hands. Raises ValueError on any inconsistency, including states the rules can never
        reach (a Pooped seat that was never Drowsy, a seat still in the game above the threshold).
        """
        players = _check_players(players)
        rules.validate(players)
        if not _is_int(rng_state) or not 0 <= rng_state <= MASK64:
            raise ValueError(f"rng_state must be an int in 0..2**64-1, got {rng_state!r}")
        if not _is_int(hand_number) or hand_number < 0:
            raise ValueError(f"hand_number must be a non-negative int, got {hand_number!r}")
        for name, seq in (
            ("hands", hands),
            ("scores", scores),
            ("drowsy", drowsy),
            ("pooped", pooped),
        ):
            if not _is_list(seq) or len(seq) != players:
                raise ValueError(f"{name} must be a list of length {players}")
        if not _is_list(draw_pile):
            raise ValueError("draw_pile must be a list")
        for seat in range(players):
            if not _is_int(scores[seat]) or scores[seat] < 0:
                raise ValueError(f"score of seat {seat} must be a non-negative int")
            if not _is_bool(drowsy[seat]) or not _is_bool(pooped[seat]):
                raise ValueError(f"drowsy/pooped of seat {seat} must be bools")
            if not _is_list(hands[seat]):
                raise ValueError(f"hand of seat {seat} must be a list")
            if pooped[seat]:
                # H-6.2: a Pooped Panda gets no more cards; only a Drowsy Panda can become Pooped
                # and it keeps the score it reached, which is above the threshold.
                if hands[seat]:
                    raise ValueError(f"Pooped seat {seat} must have an empty hand")
                if not drowsy[seat]:
                    raise ValueError(f"Pooped seat {seat} must also be Drowsy (H-6.2)")
                if scores[seat] <= rules.bust_threshold:
                    raise ValueError(f"Pooped seat {seat} must have a score above the threshold")
            else:
                # H-2.3: each player still in the game holds 7 cards at the start of a hand.
                if len(hands[seat]) != CARDS_PER_HAND:
                    raise ValueError(f"seat {seat} must hold exactly {CARDS_PER_HAND} cards")
                # H-6.1/H-6.2: a seat still in the game is never above the threshold.
                if scores[seat] > rules.bust_threshold:
                    raise ValueError(f"seat {seat} is still in the game above the threshold")
        in_game = [seat for seat in range(players) if not pooped[seat]]
        if len(in_game) < 2:
            # H-6.3: with one player left the game is over; there is no hand to start.
            raise ValueError("at least two seats must still be in the game")
        if not _is_int(dealer) or not 0 <= dealer < players:
            raise ValueError(f"dealer must be a seat in 0..{players - 1}, got {dealer!r}")
        if pooped[dealer]:
            # H-2.2: the deal only passes to seats still in the game.
            raise ValueError(f"dealer {dealer} is Pooped")
        all_cards = [card for hand in hands for card in hand] + list(draw_pile)
        if not all(_is_int(card) for card in all_cards):
            raise ValueError("card ids must be ints")
        if sorted(all_cards) != rules.deck():
            raise ValueError(
                "every card of the deck must appear exactly once across hands and draw pile"
            )
        game = cls(
            players=players,
            rules=rules,
            rng=SplitMix64(rng_state),
            dealer=dealer,
            hand_number=hand_number,
            scores=scores,
            drowsy=drowsy,
            pooped=pooped,
        )
        game._start_hand([sorted(hand) for hand in hands], list(draw_pile))
        return game

    # --- seats ----------------------------------------------------------------------------------

    def _in_game(self, seat: int) -> bool:
        return not self._pooped[seat]

    def _seats_in_game(self) -> list[int]:
        return [seat for seat in range(self._players) if self._in_game(seat)]

    def _next_in_game(self, seat: int) -> int:
        """The next seat clockwise after ``seat`` still in the game (H-2.2, H-2.4, H-6.2)."""
        for step in range(1, self._players + 1):
            candidate = (seat + step) % self._players
            if self._in_game(candidate):
                return candidate
        raise RuntimeError("no seat is still in the game")

    # --- dealing --------------------------------------------------------------------------------

    def _deal_new_hand(self) -> None:
        """H-2.3, R-3, R-4: gather, shuffle and deal a fresh hand."""
        # H-2.3 / R-3: the list shuffled is all the cards in increasing id order.
        deck = self._rules.deck()
        shuffle(deck, self._rng)
        # H-2.3: deal one card at a time, starting with the next seat left of the dealer that is
        # still in the game, to every seat still in the game (the dealer last).
        order: list[int] = []
        seat = self._next_in_game(self._dealer)
        while seat not in order:
            order.append(seat)
            seat = self._next_in_game(seat)
        hands: list[list[int]] = [[] for _ in range(self._players)]
        dealt = CARDS_PER_HAND * len(order)
        # cards are dealt from the front of the shuffled list.
        for k in range(dealt):
            hands[order[k % len(order)]].append(deck[k])
        # R-4 / H-2.3: the undealt cards form the draw pile; its top is the first card not dealt.
        self._start_hand([sorted(hand) for hand in hands], deck[dealt:])

    def _start_hand(self, hands: list[list[int]], draw_pile: list[int]) -> None:
        self._hands = hands
        self._draw_pile = draw_pile
        self._discard = []
        self._pile_number = 0
        self._pile_plays = []
        # H-2.4: the player left of the dealer (the next seat still in the game) leads pile 1.
        self._leader = self._next_in_game(self._dealer)

    def _draw(self) -> int:
        """Take the top card of the draw pile (H-4.6: fail loudly when it is empty)."""
        if not self._draw_pile:
            raise RuntimeError("H-4.6: the draw pile is exhausted; this is a bug")
        return self._draw_pile.pop(0)

    def _turn_up(self) -> tuple[list[int], int]:
        """H-4.1 / H-4.4: turn up cards until a regular Panda appears.

        Returns the turned-up cards (specials skipped, then the regular Panda) and its value.
        """
        cards: list[int] = []
        while True:
            card = self._draw()
            cards.append(card)
            if is_regular(card):
                return cards, regular_value(card)
            # H-4.1: a Big Panda or Bamboo turned up is discarded and the next card turned up.

    # --- queries --------------------------------------------------------------------------------

    @property
    def players(self) -> int:
        return self._players

    @property
    def rules(self) -> HeadRules:
        return self._rules

    @property
    def is_over(self) -> bool:
        return self._over

    @property
    def winner(self) -> int | None:
        return self._winner

    @property
    def current_player(self) -> int | None:
        """The seat to play, or None when the game is over."""
        if self._over:
            return None
        if not self._pile_plays:
            return self._leader
        # H-3.2: each other player still in the game plays once, clockwise.
        return self._next_in_game(self._pile_plays[-1].seat)

    def _highest_on_pile(self) -> int:
        """H-3.2: the highest value played so far on this pile."""
        return max(play.value for play in self._pile_plays)

    def legal_actions(self) -> list[int]:
        """The legal action ids of the current player, sorted ascending, no duplicates."""
        seat = self.current_player
        if seat is None:
            return []
        hand = self._hands[seat]
        regular_values = sorted({regular_value(card) for card in hand if is_regular(card)})
        has_bamboo = any(is_bamboo(card) for card in hand)
        has_big_panda = any(is_big_panda(card) for card in hand)

        # H-4.4: a Bamboo alone is legal only when the hand holds nothing but Bamboo cards
        # (leading or following); it is then the only possible play (a forced play).
        if hand and all(is_bamboo(card) for card in hand):
            return [ACTION_BAMBOO_ALONE]

        legal: set[int] = set()
        if not self._pile_plays:
            # H-3.1: the leader plays any regular Panda, alone or with one Bamboo (H-4.3), or
            # any Big Panda (H-4.1).
            for value in regular_values:
                legal.add(action_alone(value))
                if has_bamboo:
                    legal.add(action_with_bamboo(value))
            if has_big_panda:
                legal.add(ACTION_BIG_PANDA)
            return sorted(legal)

        highest = self._highest_on_pile()
        # H-3.2 (A): a regular Panda of value >= the highest; a regular Panda with a Bamboo whose
        # value + 2 >= the highest (H-4.3); any Big Panda (H-4.2).
        option_a: set[int] = set()
        for value in regular_values:
            if value >= highest:
                option_a.add(action_alone(value))
            if has_bamboo and value + 2 >= highest:
                option_a.add(action_with_bamboo(value))
        if has_big_panda:
            option_a.add(ACTION_BIG_PANDA)
        # H-3.2 (B): a regular Panda of the lowest value in the hand; H-4.3: a Bamboo may go with
        # option B. H-4.5: without a regular Panda there is no option B; H-4.2: a Big Panda is
        # never the lowest Panda.
        option_b: set[int] = set()
        if regular_values:
            lowest = regular_values[0]
            option_b.add(action_alone(lowest))
            if has_bamboo:
                option_b.add(action_with_bamboo(lowest))
        if self._rules.lowest_only_when_cannot_follow:
            # H-3.2 variant: B only when there is no option-A play; a play that is both A and B
            # counts as A (so it is in option_a already).
            legal = option_a if option_a else option_b
        else:
            # H-3.2: option B is a free choice, also when A is possible.
            legal = option_a | option_b
        return sorted(legal)

    # --- playing --------------------------------------------------------------------------------

    def _take_lowest(self, seat: int, candidates: range) -> int:
        """H-1.4: the copy that leaves the hand is the lowest id of that kind in the hand."""
        hand = self._hands[seat]
        card = min(card for card in hand if card in candidates)
        hand.remove(card)
        return card

    def apply(self, action: int) -> None:
        """Play ``action`` for the current player. ValueError if illegal (state unchanged)."""
        seat = self.current_player
        if seat is None:
            raise ValueError("the game is over")
        if not _is_int(action) or action not in self.legal_actions():
            raise ValueError(f"action {action!r} is not legal for seat {seat}")
        # Keep apply() all-or-nothing: should H-4.6 fire (RuntimeError), the state is restored.
        saved = copy.deepcopy(self.__dict__)
        try:
            self._apply_legal(seat, action)
        except BaseException:
            self.__dict__.clear()
            self.__dict__.update(saved)
            raise

    def _apply_legal(self, seat: int, action: int) -> None:
        leading = not self._pile_plays
        cards: list[int]
        if action < 11:
            # A regular Panda of value action + 1, alone.
            value = action + 1
            card = self._take_lowest(seat, range(5 * (value - 1), 5 * value))
            cards = [card]
        elif action < 22:
            # H-4.3: a regular Panda of value action - 10 with one Bamboo, value + 2.
            panda_value = action - 10
            panda = self._take_lowest(seat, range(5 * (panda_value - 1), 5 * panda_value))
            bamboo = self._take_lowest(seat, BAMBOO_IDS)
            cards = [panda, bamboo]
            value = panda_value + 2
            # H-4.3: right after the play the player draws the top card of the draw pile,
            # whatever it is, into the hand; it is not part of the play.
            replacement = self._draw()
            self._hands[seat].append(replacement)
            self._hands[seat].sort()
        elif action == ACTION_BIG_PANDA:
            big_panda = self._take_lowest(seat, BIG_PANDA_IDS)
            if leading:
                # H-4.1: led, the Big Panda is discarded and the top card of the draw pile is
                # turned up (specials skipped) and becomes the leader's play.
                turned, value = self._turn_up()
                cards = [big_panda, *turned]
            else:
                # H-4.2: following, it counts as one more than the highest value so far,
                # fixed when it is played.
                value = self._highest_on_pile() + 1
                cards = [big_panda]
        else:
            # H-4.4: a Bamboo alone is discarded and a card turned up as in H-4.1; the regular
            # Panda turned up is the play. No replacement is drawn.
            bamboo = self._take_lowest(seat, BAMBOO_IDS)
            turned, value = self._turn_up()
            cards = [bamboo, *turned]

        self._pile_plays.append(_Play(seat=seat, action=action, value=value, cards=sorted(cards)))
        # H-3.3: when every player still in the game has played once, the pile is complete.
        if len(self._pile_plays) == len(self._seats_in_game()):
            self._complete_pile()

    def _complete_pile(self) -> None:
        plays = self._pile_plays
        # H-3.3: the highest value wins; on a tie the player who played it LAST wins.
        highest = max(play.value for play in plays)
        winner = [play for play in plays if play.value == highest][-1].seat
        # H-3.4: the cards of a completed pile are set aside for the rest of the hand.
        for play in plays:
            self._discard.extend(play.cards)
        self._discard.sort()
        self._pile_plays = []
        if self._pile_number < PILES_PER_HAND - 1:
            # H-2.4: the winner of each pile leads the next.
            self._pile_number += 1
            self._leader = winner
            return
        self._end_hand(plays, winner)

    def _end_hand(self, last_pile: list[_Play], winner: int) -> None:
        """H-5 scoring of pile 7, then H-6, then the next deal (H-2.2, H-2.3) or the end."""
        rules = self._rules
        before = list(self._scores)
        highest = max(play.value for play in last_pile)
        # H-5.1 / H-5.2: the winner of pile 7 scores penalty points.
        if rules.last_pile_scoring == "pile_sum":
            points = sum(play.value for play in last_pile)
        else:
            points = next(play.value for play in last_pile if play.seat == winner)
        self._scores[winner] += points
        if rules.poor_panda:
            # H-5.3: every other player whose play had the tied highest value loses that value;
            # no score goes below zero.
            for play in last_pile:
                if play.seat != winner and play.value == highest:
                    self._scores[play.seat] = max(0, self._scores[play.seat] - play.value)
        deltas = [after - old for after, old in zip(self._scores, before, strict=True)]

        # H-5.4: all score changes are made first; then H-6 uses the scores after them.
        threshold = rules.bust_threshold  # H-6.4
        new_drowsy: list[int] = []
        new_pooped: list[int] = []
        for seat in self._seats_in_game():
            if self._scores[seat] <= threshold:
                continue
            if not self._drowsy[seat]:
                # H-6.1: first time above the threshold: Drowsy; the score is reduced to the
                # highest score among the other players still in the game (zero if none > 0).
                others = [self._scores[o] for o in self._seats_in_game() if o != seat]
                self._drowsy[seat] = True
                self._scores[seat] = max([0, *others])
                new_drowsy.append(seat)
            else:
                # H-6.2: a Drowsy Panda above the threshold again is Pooped and leaves the game,
                # keeping the score reached.
                self._pooped[seat] = True
                new_pooped.append(seat)

        self._hand_results.append(
            {
                "hand": self._hand_number,
                "dealer": self._dealer,
                "last_pile_winner": winner,
                "deltas": deltas,
                "scores": list(self._scores),
                "new_drowsy": sorted(new_drowsy),
                "new_pooped": sorted(new_pooped),
            }
        )

        remaining = self._seats_in_game()
        if len(remaining) == 1:
            # H-6.3: the only player not Pooped wins and the game is over.
            self._over = True
            self._winner = remaining[0]
            return
        # H-2.2: the deal passes to the next seat clockwise still in the game, counting from the
        # old dealer's seat (also when the old dealer has just been Pooped).
        self._dealer = self._next_in_game(self._dealer)
        self._hand_number += 1
        self._deal_new_hand()

    # --- canonical state ------------------------------------------------------------------------

    def snapshot(self) -> dict[str, Any]:
        """The canonical state (lists, ints, bools and None only)."""
        return {
            "players": self._players,
            "hand_number": self._hand_number,
            "dealer": self._dealer,
            "scores": list(self._scores),
            "drowsy": list(self._drowsy),
            "pooped": list(self._pooped),
            "hands": [sorted(hand) for hand in self._hands],
            "draw_pile": list(self._draw_pile),
            "discard": sorted(self._discard),
            "pile_number": self._pile_number,
            "pile_plays": [
                [play.seat, play.action, play.value, sorted(play.cards)]
                for play in self._pile_plays
            ],
            "leader": self._leader,
            "current_player": self.current_player,
            "is_over": self._over,
            "winner": self._winner,
            "rng_state": self._rng.state,
            "hand_results": [
                {
                    "hand": result["hand"],
                    "dealer": result["dealer"],
                    "last_pile_winner": result["last_pile_winner"],
                    "deltas": list(result["deltas"]),
                    "scores": list(result["scores"]),
                    "new_drowsy": list(result["new_drowsy"]),
                    "new_pooped": list(result["new_pooped"]),
                }
                for result in self._hand_results
            ],
        }
