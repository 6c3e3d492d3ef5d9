"""A ten-line bot for any panda-core game: the heuristic's move, but a random one a fifth of the
time. Rate it with ``panda-core arena -e mybot:Wobbly,heuristic,random --deals 200``
(docs/rate_your_bot.md)."""

import random


class Wobbly:
    def reset(self, seed):  # called before every game: a reproducible bot
        self.rng = random.Random(seed)

    def __call__(self, seat, player):  # seat: what seat `player` may know
        if self.rng.random() < 0.2:
            return self.rng.choice(seat.legal_actions())
        return seat.bot_move("heuristic", seed=self.rng.getrandbits(64))
