"""Tables: play a game with people and bots, and replay recorded games from any seat.

:class:`Table` runs one game with a seat spec per player and shows each seat only what it may
know (:meth:`Table.state`); :class:`Replay` steps through a record as one seat saw it, or with
full information. The terminal (``panda-core play`` / ``replay``) and the browser
(``panda-core serve``) are two front-ends of these; docs: ``docs/table.md``.
"""

from panda_core.table.errors import NotYourTurnError, TableError
from panda_core.table.replay import MAX_RECORD_BYTES, MAX_RECORD_MOVES, Replay
from panda_core.table.seats import SeatSpec, load_bot, parse_seat
from panda_core.table.table import Table

__all__ = [
    "MAX_RECORD_BYTES",
    "MAX_RECORD_MOVES",
    "NotYourTurnError",
    "Replay",
    "SeatSpec",
    "Table",
    "TableError",
    "load_bot",
    "parse_seat",
]
