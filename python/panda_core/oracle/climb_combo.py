"""Combinations of the climbing games: classification (S-4), the beats relation (S-5), element
conditions (S-2.3, S-5.3) and the enumeration of every play a hand can make.

Pure standard-library Python; part of the independent oracle.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

from .climb_deck import TWO, Deck, Face, card_label, is_element

MAX_RUN = 5  # S-4.3: runs have 2 to 5 distinct ranks


@dataclass(frozen=True)
class Combo:
    """A classified play of cards (S-4).

    ``rank`` is the rank of a single/set/bomb and the top rank of a run/formation; ``length`` is the
    number of distinct ranks, ``copies`` the number of units of each rank, ``units`` their product.
    ``has_blue`` records whether a played card showed its blue face (S-2.3 Metal condition).
    """

    kind: str
    rank: int
    units: int
    length: int
    copies: int
    cards: tuple[int, ...]
    named: tuple[int, ...]
    has_blue: bool

    def to_json(self) -> dict[str, object]:
        return {
            "kind": self.kind,
            "cards": list(self.cards),
            "named": list(self.named),
            "rank": self.rank,
            "units": self.units,
            "length": self.length,
            "copies": self.copies,
            "has_blue": self.has_blue,
        }


def shape_of(counts: Mapping[int, int]) -> tuple[str, int, int, int] | None:
    """Classify a rank -> unit-count multiset as (kind, rank, length, copies), kinds S-4.1-S-4.4.

    A 4+ set is returned as "set"; whether it is a bomb depends on context (S-4.5).
    """
    if not counts or any(v <= 0 for v in counts.values()):
        return None
    ranks = sorted(counts)
    total = sum(counts.values())
    if len(ranks) == 1:
        r = ranks[0]
        return ("single", r, 1, 1) if total == 1 else ("set", r, 1, total)  # S-4.1, S-4.2
    k = counts[ranks[0]]
    if any(counts[r] != k for r in ranks):
        return None
    if ranks[-1] - ranks[0] != len(ranks) - 1:  # consecutive, no wrapping (S-4.3)
        return None
    if TWO in counts or len(ranks) > MAX_RUN:  # the 2 is never in a run (S-4.3)
        return None
    return ("run" if k == 1 else "formation", ranks[-1], len(ranks), k)  # S-4.3, S-4.4


def classify(
    cards: Sequence[int],
    faces: Sequence[str],
    named_ranks: Sequence[int],
    deck: Deck,
    *,
    leading: bool = False,
) -> Combo | None:
    """Classify animal cards showing ``faces`` ("white"/"blue", parallel to ``cards``) with the
    wild units named ``named_ranks`` (rank indices, listed in card-id order, S-4.6).

    ``leading`` decides between set and bomb for 4+ units of one rank (S-4.5). Returns None if the
    units form no combination; raises ValueError for malformed input.
    """
    if len(cards) != len(faces):
        raise ValueError("cards and faces must have the same length")
    if not cards:
        raise ValueError("a play has at least one card")
    pairs = sorted(zip(cards, faces, strict=True))
    ids = [c for c, _ in pairs]
    if len(set(ids)) != len(ids):
        raise ValueError("a card appears twice in the play")
    blue_flags: list[bool] = []
    card_faces: list[Face] = []
    for c, f in pairs:
        if not isinstance(c, int) or not 0 <= c < 70:
            raise ValueError(f"unknown card id {c!r}")
        if is_element(c):
            raise ValueError(f"{card_label(c)} is an element card, not part of a combination")
        if f not in ("white", "blue"):
            raise ValueError(f"face must be 'white' or 'blue', got {f!r}")
        blue_flags.append(f == "blue")
        card_faces.append(deck.face(c, f == "blue"))
    wilds = sum(fc.wilds for fc in card_faces)
    if len(named_ranks) != wilds:
        raise ValueError(f"the play has {wilds} wild unit(s) but {len(named_ranks)} named rank(s)")
    for r in named_ranks:
        if not isinstance(r, int) or not 0 <= r <= TWO:
            raise ValueError(f"named rank must be a rank index 0..12, got {r!r}")
    return _make_combo(tuple(ids), tuple(named_ranks), card_faces, any(blue_flags), leading)


def _make_combo(
    ids: tuple[int, ...],
    named: tuple[int, ...],
    faces: Sequence[Face],
    has_blue: bool,
    leading: bool,
) -> Combo | None:
    counts: dict[int, int] = {}
    for fc in faces:
        for r in fc.fixed:
            counts[r] = counts.get(r, 0) + 1
    for r in named:
        counts[r] = counts.get(r, 0) + 1
    shape = shape_of(counts)
    if shape is None:
        return None
    kind, rank, length, copies = shape
    units = length * copies
    # S-4.5: a following play of 4+ units of one rank with no drop card is a bomb, never a set.
    if kind == "set" and units >= 4 and not leading and not any(fc.drop for fc in faces):
        kind = "bomb"
    return Combo(kind, rank, units, length, copies, ids, named, has_blue)


def beats(a: Combo, b: Combo) -> bool:
    """True if play ``a`` may be played on play ``b`` (S-5.1, S-5.2)."""
    if b.kind == "bomb":
        # S-5.2: after a bomb only a bigger bomb: more units, or as many units and a higher rank.
        return a.kind == "bomb" and (a.units > b.units or (a.units == b.units and a.rank > b.rank))
    if a.kind == "bomb":
        return True  # S-5.2: a bomb beats any play that is not a bomb
    # S-5.1: same kind, same shape (units; run length and copies), strictly higher (top) rank.
    return (
        a.kind == b.kind
        and a.units == b.units
        and a.length == b.length
        and a.copies == b.copies
        and a.rank > b.rank
    )


def condition_holds(condition: str, play: Combo) -> bool:
    """Element (wind) card condition (S-2.3) on the play to beat; never on a bomb (S-5.3)."""
    if play.kind == "bomb":
        return False
    if condition == "run_or_formation_3_ranks":
        return play.kind in ("run", "formation") and play.length >= 3
    if condition == "single":
        return play.kind == "single"
    if condition == "set":
        return play.kind == "set"
    if condition == "three_or_more_cards":
        return len(play.cards) >= 3  # S-5.3: Water counts cards, not units
    if condition == "contains_blue":
        return play.has_blue
    raise ValueError(f"unknown element condition {condition!r}")


# ------------------------------------------------------------------------------------------------
# Enumeration of plays
# ------------------------------------------------------------------------------------------------

Target = tuple[tuple[int, int], ...]  # sorted (rank, count) pairs


def _target(counts: Mapping[int, int]) -> Target:
    return tuple(sorted(counts.items()))


def _feasible(target: Target, fixed_count: Sequence[int], wilds: int) -> bool:
    """Cheap bound: the hand's wild units can cover what its fixed units lack."""
    return sum(max(0, need - fixed_count[r]) for r, need in target) <= wilds


def lead_targets(fixed_count: Sequence[int], wilds: int) -> list[Target]:
    """Unit multisets a lead could have (S-4.1-S-4.4) that the hand might make."""
    max_units = sum(fixed_count) + wilds
    out: list[Target] = []
    for r in range(13):
        for m in range(1, min(max_units, fixed_count[r] + wilds) + 1):
            out.append(((r, m),))
    for length in range(2, MAX_RUN + 1):
        for top in range(length - 1, TWO):  # top rank at most A (index 11)
            for k in range(1, max_units // length + 1):
                t = tuple((r, k) for r in range(top - length + 1, top + 1))
                if not _feasible(t, fixed_count, wilds):
                    break  # more copies need even more units
                out.append(t)
    return out


def follow_targets(to_beat: Combo, fixed_count: Sequence[int], wilds: int) -> list[Target]:
    """Unit multisets that might beat ``to_beat`` (filtered later with ``beats``)."""
    max_units = sum(fixed_count) + wilds
    out: set[Target] = set()
    if to_beat.kind != "bomb":
        if to_beat.kind in ("single", "set"):
            for r in range(to_beat.rank + 1, 13):
                out.add(((r, to_beat.units),))
        else:  # run / formation of the same length and copies, higher top rank
            length, k = to_beat.length, to_beat.copies
            for top in range(to_beat.rank + 1, TWO):
                out.add(tuple((r, k) for r in range(top - length + 1, top + 1)))
    for r in range(13):  # bombs (S-5.2)
        for m in range(4, min(max_units, fixed_count[r] + wilds) + 1):
            out.add(((r, m),))
    return sorted(t for t in out if _feasible(t, fixed_count, wilds))


def _distinct_perms(items: list[int]) -> Iterator[tuple[int, ...]]:
    """Distinct orderings of a multiset, in lexicographic order."""
    if not items:
        yield ()
        return
    seen: set[int] = set()
    for i, x in enumerate(items):
        if x in seen:
            continue
        seen.add(x)
        for rest in _distinct_perms(items[:i] + items[i + 1 :]):
            yield (x, *rest)


@dataclass(frozen=True)
class HandCard:
    """An animal card in a hand with the face it shows now."""

    id: int
    face: Face
    blue: bool


class _Cand:
    """Per-card data precomputed for the search (plain attributes for speed)."""

    __slots__ = ("blue", "face", "fixed", "id", "ranks", "units")

    def __init__(self, hc: HandCard) -> None:
        self.id = hc.id
        self.face = hc.face
        self.blue = hc.blue
        self.fixed = hc.face.fixed
        self.ranks = frozenset(hc.face.fixed)
        self.units = len(hc.face.fixed) + hc.face.wilds


def _plays_for_target(
    cards: Sequence[_Cand], target: Target
) -> Iterator[tuple[tuple[_Cand, ...], tuple[int, ...]]]:
    """All (cards, named ranks) whose units are exactly ``target`` (S-4.6: every naming counts).

    ``cards`` are sorted by id. A subset qualifies when its fixed units fit in the target and its
    unit count equals the target's; the wild units then take the missing ranks, in every distinct
    order (named ranks are listed in card-id order, so each order is a different play).
    """
    want = dict(target)
    total = sum(want.values())
    tranks = frozenset(want)
    cands = [c for c in cards if c.units <= total and c.ranks <= tranks]
    chosen: list[_Cand] = []
    have: dict[int, int] = dict.fromkeys(want, 0)

    def dfs(i: int, units: int) -> Iterator[tuple[tuple[_Cand, ...], tuple[int, ...]]]:
        if units == total:
            deficit: list[int] = []
            for r, need in sorted(want.items()):
                deficit.extend([r] * (need - have[r]))
            picked = tuple(chosen)
            for named in _distinct_perms(deficit):
                yield picked, named
            return
        for j in range(i, len(cands)):
            c = cands[j]
            if units + c.units > total:
                continue
            ok = True
            for r in c.fixed:
                have[r] += 1
                if have[r] > want[r]:
                    ok = False
            if ok:
                chosen.append(c)
                yield from dfs(j + 1, units + c.units)
                chosen.pop()
            for r in c.fixed:
                have[r] -= 1

    yield from dfs(0, 0)


def plays_for_target(
    hand: Sequence[HandCard], target: Target
) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
    """(card ids, named ranks) of every play whose units are exactly ``target``."""
    cards = [_Cand(hc) for hc in sorted(hand, key=lambda hc: hc.id) if not is_element(hc.id)]
    return [(tuple(c.id for c in cs), named) for cs, named in _plays_for_target(cards, target)]


def enumerate_plays(hand: Sequence[HandCard], to_beat: Combo | None) -> list[Combo]:
    """Every combination the hand can play: any non-bomb lead if ``to_beat`` is None (S-6.1,
    S-4.5), else every play that beats ``to_beat`` (S-5). Order is unspecified; no duplicates."""
    cards = [_Cand(hc) for hc in sorted(hand, key=lambda hc: hc.id) if not is_element(hc.id)]
    if not cards:
        return []
    # Quick feasibility bound: fixed units of each rank in the hand, and all wild units.
    fixed_count = [0] * 13
    for c in cards:
        for r in c.fixed:
            fixed_count[r] += 1
    wilds = sum(c.face.wilds for c in cards)
    leading = to_beat is None
    if to_beat is None:
        targets = lead_targets(fixed_count, wilds)
    else:
        targets = follow_targets(to_beat, fixed_count, wilds)
    out: list[Combo] = []
    for t in targets:
        for picked, named in _plays_for_target(cards, t):
            ids = tuple(c.id for c in picked)
            faces = [c.face for c in picked]
            combo = _make_combo(ids, named, faces, any(c.blue for c in picked), leading)
            if combo is None:
                continue
            if to_beat is not None and not beats(combo, to_beat):
                continue
            out.append(combo)
    return out
