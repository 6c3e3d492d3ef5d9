"""The terminal front-end: ``panda-core play`` and ``panda-core replay`` (docs/play_terminal.md).

Front-end only: the legal moves, their notation, card texts and event texts all come from the
table model (:mod:`panda_core.table`); these modules only lay them out and read keystrokes.
"""
