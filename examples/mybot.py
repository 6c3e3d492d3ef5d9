"""A ten-line bot for any panda-core game: the heuristic's move, but a random one a fifth of the
time. Rate it with ``panda-core arena -e mybot:Wobbly,heuristic,random --deals 200``
(docs/rate_your_bot.md)."""

import random


class Wobbly:
    def reset(self, seed):  # called before every game: a reproducible bot
        self.rng = random.Random(seed)

    def __call__(self, game, player):  # game: a clone, player: the seat to move
        if self.rng.random() < 0.2:
            return self.rng.choice(game.legal_actions())
        return game.bot_move("heuristic", seed=self.rng.getrandbits(64))
