#!/usr/bin/env python3
"""A bot for every panda-core game, over the bot protocol (docs/bot_protocol.md), in Python with
the standard library only: it never imports panda_core.

Run it as an entrant (an ``exec:`` entrant ends the list):
``panda-core arena -e 'heuristic,random,exec:python3 examples/protocol_bot.py'``. It reads the
engine's messages on stdin, one JSON object per line, and writes its own on stdout.

Its policy: a SplitMix64 generator seeded with the game's ``seed`` (from ``start``) picks, at each
decision, one of the distinct legal action ids in ascending order (a move whose ``id`` is
``null`` is never chosen). ``examples/protocol_bot.js``
is the same bot in JavaScript (the same moves for the same messages), and :class:`SameBot` below
is the same policy as an in-process Python bot (``panda-core arena -e protocol_bot:SameBot`` with
``examples`` on ``PYTHONPATH``): the three give identical arena results.
"""

import json
import sys

MASK = (1 << 64) - 1


def splitmix64(state):
    """The next ``(output, state)`` of SplitMix64 (64-bit integers)."""
    state = (state + 0x9E3779B97F4A7C15) & MASK
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31), state


def choose(legal_ids, state):
    """The policy: one of ``legal_ids`` (distinct, ascending) and the generator's next state."""
    ids = sorted(set(legal_ids))
    output, state = splitmix64(state)
    return ids[output % len(ids)], state


class SameBot:
    """The same policy as an in-process Python bot: ``bot(seat, player)`` with ``reset(seed)``."""

    def __init__(self):
        self.state = 0

    def reset(self, seed):
        self.state = seed & MASK

    def __call__(self, seat, player):
        ids = seat.legal_actions()
        if not ids:
            return seat.legal_list()[0]["notation"]
        action, self.state = choose(ids, self.state)
        return action


def send(message):
    sys.stdout.write(json.dumps(message, separators=(",", ":")) + "\n")
    sys.stdout.flush()


def main():
    state = 0
    for line in sys.stdin.buffer:
        if not line.strip():
            continue
        message = json.loads(line)
        kind = message.get("type")
        if kind == "hello":
            if message.get("protocol") != 1:
                sys.stderr.write("protocol_bot.py speaks protocol 1\n")
                return 2
            send({"type": "hello", "protocol": 1, "name": "protocol_bot.py"})
        elif kind == "start":
            state = message["seed"] & MASK
        elif kind == "decision":
            legal = message["legal"]
            ids = [move["id"] for move in legal if move["id"] is not None]
            if ids:
                action, state = choose(ids, state)
                send({"type": "move", "game_id": message["game_id"], "id": action})
            else:  # no move has an id (never with the shipped decks): the first, by notation
                send(
                    {
                        "type": "move",
                        "game_id": message["game_id"],
                        "notation": legal[0]["notation"],
                    }
                )
        elif kind == "ping":
            send({"type": "pong"})
        elif kind == "bye":
            break
        # "end": nothing to answer; the next game starts with its own seed
    return 0


if __name__ == "__main__":
    sys.exit(main())
