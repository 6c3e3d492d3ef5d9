"""Card table of the climbing games (S-1, S-2): constants, deck-file loading, validation.

The deck file format is documented in ``docs/deck_schema.md``. Pure standard-library Python; part
of the independent oracle.
"""

from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any


def _toml_loads(text: str) -> object:
    return tomllib.loads(text)


# S-1.1: five suits, in this order (suit index 0-4).
SUITS: tuple[str, ...] = ("fire", "earth", "wood", "water", "metal")
# S-1.2: thirteen ranks, low to high (rank index 0-12); "2" is the highest.
RANKS: tuple[str, ...] = ("3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2")
RANK_INDEX: dict[str, int] = {name: i for i, name in enumerate(RANKS)}
SUIT_INDEX: dict[str, int] = {name: i for i, name in enumerate(SUITS)}
TWO = 12  # rank index of the "2" (S-1.2)

N_ANIMALS = 65  # S-1.3: animal ids 0..64, id = suit * 13 + white_rank
N_CARDS = 70  # S-1.3: element ids 65..69, id = 65 + suit
ELEMENT_BASE = 65

WILD = "wild"  # the unit name of a fire (wild) unit in a deck file (S-1.5)
SYMBOLS: tuple[str, ...] = ("bamboo", "panda", "fire", "drop")  # S-1.6
# S-2.3: the play conditions an element (wind) card can carry.
CONDITIONS: tuple[str, ...] = (
    "run_or_formation_3_ranks",  # Fire / South wind
    "single",  # Earth / Centre wind
    "set",  # Wood / East wind (a set is never a bomb)
    "three_or_more_cards",  # Water / North wind
    "contains_blue",  # Metal / West wind
)

DECK_FORMAT = "panda-core-climb-deck"
DECK_VERSION = 1
MAX_UNITS_PER_FACE = 5
MAX_WILDS_PER_FACE = 2
# Schema rule 6: at most this many wild units may meet in one five-rank window (3-7 … 10-A),
# because every order of a play's named ranks is a distinct move (S-4.6) and 9! is too many.
MAX_WILD_IN_PLAY = 8
ACE = 11  # rank index of the ace: the highest rank a run or formation reaches (S-4.3)

DEFAULT_DECK_PATH = Path(__file__).resolve().parent.parent / "data" / "decks" / "reconstructed.toml"


def is_element(card: int) -> bool:
    """True for an element (wind) card id (S-1.3)."""
    return ELEMENT_BASE <= card < N_CARDS


def suit_of(card: int) -> int:
    """Suit index of any card id (S-1.3)."""
    return card - ELEMENT_BASE if is_element(card) else card // 13


def white_rank_of(card: int) -> int:
    """White rank index of an animal card id (S-1.3)."""
    return card % 13


@dataclass(frozen=True)
class Face:
    """One face of an animal card (S-1.4, S-1.5): its fixed units, wild units and symbols.

    ``fixed`` lists the rank indices of the non-wild units (a drop face lists its rank twice);
    ``wilds`` is the number of wild (fire) units, whose ranks the player names (S-4.6).
    """

    fixed: tuple[int, ...]
    wilds: int
    symbols: tuple[str, ...]

    @property
    def units(self) -> int:
        return len(self.fixed) + self.wilds

    @property
    def bamboo(self) -> int:
        return self.symbols.count("bamboo")

    @property
    def pandas(self) -> int:
        return self.symbols.count("panda")

    @property
    def drop(self) -> bool:
        return "drop" in self.symbols


@dataclass(frozen=True)
class AnimalCard:
    id: int
    suit: int
    rank: int  # white rank index
    white: Face
    blue: Face


@dataclass(frozen=True)
class ElementCard:
    id: int
    suit: int
    number: int  # S-2.3, used by S-3.2
    wind: str  # informational name (spin preset)
    condition: str  # one of CONDITIONS


@dataclass(frozen=True)
class Deck:
    """A validated card table: 65 animal cards and 5 element cards, indexed by id."""

    name: str
    animals: tuple[AnimalCard, ...]  # index = card id 0..64
    elements: tuple[ElementCard, ...]  # index = suit 0..4 (card id 65 + suit)

    def face(self, card: int, blue: bool) -> Face:
        a = self.animals[card]
        return a.blue if blue else a.white

    def element(self, card: int) -> ElementCard:
        return self.elements[card - ELEMENT_BASE]


def card_label(card: int) -> str:
    """Label used in error messages: ``card 17 (earth 7)``, ``card 66 (earth element)``."""
    if is_element(card):
        return f"card {card} ({SUITS[card - ELEMENT_BASE]} element)"
    return f"card {card} ({SUITS[card // 13]} {RANKS[card % 13]})"


def _is_int(x: object) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _err(source: str, where: str, field: str, msg: str) -> ValueError:
    return ValueError(f"deck {source}: {where}: field '{field}': {msg}")


def _check_keys(
    source: str,
    where: str,
    table: object,
    required: set[str],
    optional: set[str],
    prefix: str = "",
) -> dict[str, Any]:
    """The table's keys must be exactly ``required`` plus any of ``optional``."""
    if not isinstance(table, dict):
        raise _err(source, where, prefix.rstrip(".") or "(table)", "must be a table/object")
    missing = sorted(required - set(table))
    if missing:
        raise _err(source, where, prefix + missing[0], "is missing")
    unknown = sorted(set(table) - required - optional)
    if unknown:
        raise _err(source, where, prefix + unknown[0], "is not a known field")
    return table


def _entry_label(entry: object, list_name: str, i: int, valid: range) -> str:
    """``card <id> (...)`` when the entry has a valid id of the right kind, else ``<list>[i]``."""
    if isinstance(entry, dict):
        cid = entry.get("id")
        if isinstance(cid, int) and not isinstance(cid, bool) and cid in valid:
            return card_label(cid)
    return f"{list_name}[{i}]"


def _parse_face(source: str, where: str, field: str, value: object) -> Face:
    t = _check_keys(source, where, value, {"units", "symbols"}, set(), prefix=f"{field}.")
    units = t["units"]
    symbols = t["symbols"]
    if not isinstance(units, list) or not all(isinstance(u, str) for u in units):
        raise _err(source, where, f"{field}.units", "must be a list of strings")
    if not isinstance(symbols, list) or not all(isinstance(s, str) for s in symbols):
        raise _err(source, where, f"{field}.symbols", "must be a list of strings")
    if not 1 <= len(units) <= MAX_UNITS_PER_FACE:
        raise _err(source, where, f"{field}.units", f"must have 1 to {MAX_UNITS_PER_FACE} entries")
    for u in units:
        if u != WILD and u not in RANK_INDEX:
            raise _err(
                source, where, f"{field}.units", f"unknown unit {u!r} (a rank name or 'wild')"
            )
    for s in symbols:
        if s not in SYMBOLS:
            raise _err(source, where, f"{field}.symbols", f"unknown symbol {s!r}")
    wilds = units.count(WILD)
    fixed = tuple(RANK_INDEX[u] for u in units if u != WILD)
    # S-1.5/S-1.6: a fire symbol is a wild unit, one for one.
    if symbols.count("fire") != wilds:
        raise _err(
            source,
            where,
            f"{field}.symbols",
            "the number of 'fire' symbols must equal the number of 'wild' units",
        )
    if wilds > MAX_WILDS_PER_FACE:
        raise _err(source, where, f"{field}.units", f"at most {MAX_WILDS_PER_FACE} 'wild' units")
    # S-1.6: drop = the face's single unit, doubled.
    if symbols.count("drop") > 1:
        raise _err(source, where, f"{field}.symbols", "'drop' may appear at most once")
    if "drop" in symbols:
        if len(units) != 2 or wilds != 0 or fixed[0] != fixed[1]:
            raise _err(
                source, where, f"{field}.units", "a 'drop' face lists exactly two units of one rank"
            )
    elif len(set(fixed)) != len(fixed):
        raise _err(source, where, f"{field}.units", "a rank may appear twice only on a 'drop' face")
    face = Face(fixed=tuple(sorted(fixed)), wilds=wilds, symbols=tuple(symbols))
    if not _face_forms_combination(face):
        raise _err(
            source,
            where,
            f"{field}.units",
            "the face alone must form a single, set, run or formation",
        )
    return face


def _face_forms_combination(face: Face) -> bool:
    """True if the face's units alone form a non-bomb combination for some naming (S-4.1-S-4.4)."""
    if face.wilds == 0:
        return _counts_shape(face.fixed) is not None
    for a in range(13):
        if face.wilds == 1:
            if _counts_shape((*face.fixed, a)) is not None:
                return True
        else:
            for b in range(13):
                if _counts_shape((*face.fixed, a, b)) is not None:
                    return True
    return False


def _counts_shape(ranks: tuple[int, ...]) -> tuple[int, int] | None:
    """(distinct ranks, copies) if the ranks form a single/set/run/formation, else None."""
    counts: dict[int, int] = {}
    for r in ranks:
        counts[r] = counts.get(r, 0) + 1
    if len(counts) == 1:
        return (1, len(ranks))
    keys = sorted(counts)
    k = counts[keys[0]]
    if any(counts[r] != k for r in keys) or keys[-1] - keys[0] != len(keys) - 1:
        return None
    if TWO in counts or len(keys) > 5:
        return None
    return (len(keys), k)


def parse_deck(data: object, source: str = "<data>") -> Deck:
    """Validate a decoded deck document (docs/deck_schema.md) and build a Deck (S-2.4).

    Raises ValueError naming the card and field on any defect.
    """
    top = _check_keys(
        source,
        "top level",
        data,
        {"format", "version", "name", "elements", "cards"},
        {"description"},
    )
    if top["format"] != DECK_FORMAT:
        raise _err(source, "top level", "format", f"must be {DECK_FORMAT!r}")
    if not _is_int(top["version"]) or top["version"] != DECK_VERSION:
        raise _err(source, "top level", "version", f"must be the integer {DECK_VERSION}")
    if not isinstance(top["name"], str) or not top["name"]:
        raise _err(source, "top level", "name", "must be a non-empty string")
    if "description" in top and not isinstance(top["description"], str):
        raise _err(source, "top level", "description", "must be a string")

    elements_raw = top["elements"]
    if not isinstance(elements_raw, list):
        raise _err(source, "top level", "elements", "must be a list of tables")
    elements: dict[int, ElementCard] = {}
    for i, e in enumerate(elements_raw):
        where = _entry_label(e, "elements", i, range(ELEMENT_BASE, N_CARDS))
        t = _check_keys(source, where, e, {"id", "suit", "number", "wind", "condition"}, set())
        cid = t["id"]
        if not _is_int(cid) or not is_element(cid):
            raise _err(source, where, "id", "must be an element card id 65..69")
        where = card_label(cid)
        if cid in elements:
            raise _err(source, where, "id", "appears twice")
        if t["suit"] != SUITS[cid - ELEMENT_BASE]:
            raise _err(source, where, "suit", f"must be {SUITS[cid - ELEMENT_BASE]!r} for this id")
        if not _is_int(t["number"]) or t["number"] < 1:
            raise _err(source, where, "number", "must be a positive integer")
        if not isinstance(t["wind"], str) or not t["wind"]:
            raise _err(source, where, "wind", "must be a non-empty string")
        if t["condition"] not in CONDITIONS:
            raise _err(source, where, "condition", f"must be one of {', '.join(CONDITIONS)}")
        elements[cid] = ElementCard(cid, cid - ELEMENT_BASE, t["number"], t["wind"], t["condition"])
    for cid in range(ELEMENT_BASE, N_CARDS):
        if cid not in elements:
            raise _err(source, card_label(cid), "id", "is missing from 'elements'")
    seen_numbers: set[int] = set()
    for cid in range(ELEMENT_BASE, N_CARDS):  # the higher id of a repeated number is named
        if elements[cid].number in seen_numbers:
            raise _err(
                source, card_label(cid), "number", "element numbers must be distinct (S-3.2)"
            )
        seen_numbers.add(elements[cid].number)

    cards_raw = top["cards"]
    if not isinstance(cards_raw, list):
        raise _err(source, "top level", "cards", "must be a list of tables")
    animals: dict[int, AnimalCard] = {}
    for i, c in enumerate(cards_raw):
        where = _entry_label(c, "cards", i, range(N_ANIMALS))
        t = _check_keys(source, where, c, {"id", "suit", "rank", "white", "blue"}, set())
        cid = t["id"]
        if not _is_int(cid) or not 0 <= cid < N_ANIMALS:
            raise _err(source, where, "id", "must be an animal card id 0..64")
        where = card_label(cid)
        if cid in animals:
            raise _err(source, where, "id", "appears twice")
        suit, rank = cid // 13, cid % 13
        if t["suit"] != SUITS[suit]:
            raise _err(source, where, "suit", f"must be {SUITS[suit]!r} for this id")
        if t["rank"] != RANKS[rank]:
            raise _err(source, where, "rank", f"must be {RANKS[rank]!r} for this id")
        white = _parse_face(source, where, "white", t["white"])
        # S-2.1: the white face is one unit of the white rank, no symbol (not replaceable).
        if white != Face(fixed=(rank,), wilds=0, symbols=()):
            raise _err(
                source, where, "white", f"must be units = [{RANKS[rank]!r}], symbols = [] (S-2.1)"
            )
        blue = _parse_face(source, where, "blue", t["blue"])
        animals[cid] = AnimalCard(cid, suit, rank, white, blue)
    for cid in range(N_ANIMALS):
        if cid not in animals:
            raise _err(source, card_label(cid), "id", "is missing from 'cards'")
    _check_wild_windows(source, [animals[c] for c in range(N_ANIMALS)])
    return Deck(
        name=top["name"],
        animals=tuple(animals[c] for c in range(N_ANIMALS)),
        elements=tuple(elements[c] for c in range(ELEMENT_BASE, N_CARDS)),
    )


def _check_wild_windows(source: str, animals: list[AnimalCard]) -> None:
    """Schema rule 6: in each five-rank window, add up per card the wild units of the faces
    that can join a run or formation there (every fixed unit inside the window; a face of wild
    units only joins every window), taking the larger when both faces can; refuse a sum above
    MAX_WILD_IN_PLAY, naming the card at which it is passed."""
    for lo in range(ACE - 4 + 1):
        window = range(lo, lo + 5)
        total = 0
        for card in animals:
            joining = [
                f.wilds for f in (card.white, card.blue) if all(r in window for r in f.fixed)
            ]
            total += max(joining, default=0)
            if total > MAX_WILD_IN_PLAY:
                raise _err(
                    source,
                    card_label(card.id),
                    "blue.units",
                    f"{total} wild units can join one run or formation on the ranks "
                    f"{RANKS[lo]} to {RANKS[lo + 4]}; at most {MAX_WILD_IN_PLAY} are allowed",
                )


def _refuse_duplicate_keys(pairs: list[tuple[str, object]]) -> dict[str, object]:
    """``json.loads`` hook: a JSON object with a key twice is refused, as TOML refuses it
    (the standard library would silently keep the last value)."""
    out: dict[str, object] = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"duplicate key {key!r}")
        out[key] = value
    return out


def load_deck(path: str | Path | None = None) -> Deck:
    """Load and validate a deck file; ``.json`` is read as JSON, anything else as TOML (S-2.4).

    ``None`` loads the shipped reconstructed table (S-2.2, S-2.3).
    """
    p = DEFAULT_DECK_PATH if path is None else Path(path)
    raw = p.read_bytes()
    try:
        if p.suffix.lower() == ".json":
            data: object = json.loads(raw.decode("utf-8"), object_pairs_hook=_refuse_duplicate_keys)
        else:
            data = _toml_loads(raw.decode("utf-8"))
    except (
        ValueError,
        UnicodeDecodeError,
    ) as e:  # JSONDecodeError and TOMLDecodeError are ValueErrors
        raise ValueError(f"deck {p}: cannot be decoded: {e}") from e
    return parse_deck(data, str(p))


_DEFAULT: Deck | None = None


def default_deck() -> Deck:
    """The shipped reconstructed deck, loaded once."""
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = load_deck(None)
    return _DEFAULT
