"""Issue 8, item 10: sharing one game between threads (docs/errors.md, "Thread safety").

Reads run in parallel; a change while another thread is inside a GIL-releasing call on the same
game (ISMCTS, determinization) raises ``ConcurrentUseError`` and changes nothing, where it raised
``RuntimeError: Already borrowed``. Real threads, no mocks.
"""

from __future__ import annotations

import pickle
import threading
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from panda_core import (
    ClimbGame,
    ConcurrentUseError,
    HeadGame,
    IllegalMoveError,
    PandaCoreError,
)

SEARCH_SECONDS = 1.5
"""How long the background search should run: long enough for the checks made meanwhile
(milliseconds), short enough to wait for at the end of each test."""


def long_search(game: HeadGame | ClimbGame) -> str:
    """An ISMCTS bot name whose search on `game` takes about `SEARCH_SECONDS` on this machine."""
    probe = 500
    start = time.perf_counter()
    if isinstance(game, HeadGame):
        game.clone().bot_move(f"ismcts:{probe}", 0)
    else:
        game.clone().bot_move(f"ismcts:{probe}", 0)
    per_iteration = max(time.perf_counter() - start, 1e-6) / probe
    return f"ismcts:{min(max(int(SEARCH_SECONDS / per_iteration), probe), 10**8)}"


class Background:
    """Run `call` in a thread; remember its result or exception."""

    def __init__(self, call: Callable[[], Any]) -> None:
        self.result: Any = None
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, args=(call,))
        self.thread.start()

    def _run(self, call: Callable[[], Any]) -> None:
        try:
            self.result = call()
        except BaseException as err:  # reported by the test
            self.error = err


def wait_until_refused(change: Callable[[], object], worker: Background) -> ConcurrentUseError:
    """Call `change` (a call the engine refuses on its own, so trying it changes nothing) until it
    is refused as concurrent use; fails if `worker` ends first."""
    while worker.thread.is_alive():
        try:
            change()
        except ConcurrentUseError as err:
            return err
        except IllegalMoveError:
            continue  # the worker has not borrowed the game yet
    pytest.fail("the worker finished before a concurrent change was seen")


@pytest.mark.slow
def test_head_apply_while_a_bot_thinks_is_refused() -> None:
    g = HeadGame(4, 11)
    before = g.snapshot()
    search = long_search(g)
    worker = Background(lambda: g.bot_move(search, 1).action_id)
    err = wait_until_refused(lambda: g.apply(99), worker)
    assert isinstance(err, PandaCoreError) and "another thread" in str(err)
    legal = g.legal_actions()[0]
    with pytest.raises(ConcurrentUseError):
        g.apply(legal)  # a legal move too: refused, nothing changed
    assert g.snapshot() == before
    # Reads work meanwhile, from this thread and others.
    readers = [Background(lambda: (g.view(1), g.legal_moves(), g.observation(2))) for _ in range(4)]
    assert g.legal_actions() and g.view(0)["player"] == 0
    assert pickle.loads(pickle.dumps(g)).snapshot() == before
    assert g.clone().snapshot() == before
    for r in readers:
        r.thread.join(30)
        assert r.error is None and r.result is not None
    assert worker.thread.is_alive(), "the search must still run for the checks above to mean much"
    worker.thread.join()
    assert worker.error is None and worker.result in g.legal_actions()


@pytest.mark.slow
def test_climb_apply_in_every_form_while_a_bot_thinks_is_refused() -> None:
    g = ClimbGame(4, 11)
    before = g.snapshot()
    search = long_search(g)
    worker = Background(lambda: g.bot_move(search, 1))
    wait_until_refused(lambda: g.apply(10**9), worker)
    with pytest.raises(ConcurrentUseError):
        g.apply(g.legal_moves()[0])
    with pytest.raises(ConcurrentUseError):
        g.apply(g.legal_moves()[0].notation)
    with pytest.raises(ConcurrentUseError):
        g.apply(g.legal_moves()[0].to_json())
    with pytest.raises(ConcurrentUseError):
        g.apply(int(np.flatnonzero(g.legal_action_mask())[0]))
    assert g.snapshot() == before
    assert worker.thread.is_alive()
    worker.thread.join()
    assert worker.error is None and worker.result in g.legal_moves()


def test_after_the_search_the_game_plays_on() -> None:
    """Once the other call is done, changes work again and the bot's answer is a legal move."""
    g = HeadGame(3, 2)
    worker = Background(lambda: g.bot_move("ismcts:3000", 1).action_id)
    while worker.thread.is_alive():
        try:
            g.apply(99)
        except (ConcurrentUseError, IllegalMoveError):
            pass
    worker.thread.join()
    assert worker.error is None
    assert worker.result in g.legal_actions()
    g.apply(worker.result)
    c = ClimbGame(3, 2)
    worker = Background(lambda: c.determinize(0, 5))
    worker.thread.join()
    assert worker.error is None and worker.result.snapshot()["players"] == 3
    c.apply(c.legal_moves()[0])


def test_parallel_searches_on_one_game_work_and_agree() -> None:
    g = HeadGame(4, 3)
    workers = [Background(lambda: g.bot_move("ismcts:2000", 7).action_id) for _ in range(4)]
    for w in workers:
        w.thread.join(120)
    assert all(w.error is None for w in workers)
    assert len({w.result for w in workers}) == 1  # seeded: same answer whatever the thread
    c = ClimbGame(4, 3)
    samples = [Background(lambda: c.determinize(1, 9).snapshot()) for _ in range(4)]
    for s in samples:
        s.thread.join(60)
    assert all(s.error is None for s in samples)
    assert all(s.result == samples[0].result for s in samples)


def test_many_threads_hammering_one_game_stay_in_the_contract() -> None:
    """Threads applying, reading and searching on one game: every error is a documented one and
    the game ends in a consistent state (its record replays to it)."""
    g = HeadGame(4, 8)
    errors: list[BaseException] = []
    refusals = [0]
    searches_done = threading.Event()
    lock = threading.Lock()

    def note(err: BaseException) -> None:
        with lock:
            errors.append(err)

    def player() -> None:
        k = 0
        while not searches_done.is_set():
            k += 1
            try:
                g.view(k % 4)
                g.apply(g.legal_actions()[0] if k % 50 == 0 and not g.is_over else 99)
            except ConcurrentUseError:
                with lock:
                    refusals[0] += 1
            except IllegalMoveError:
                pass
            except BaseException as err:
                note(err)

    def searcher() -> None:
        for k in range(10):
            try:
                g.bot_move("ismcts:400", k)
                g.determinize(k % 4, k)
            except IllegalMoveError:  # GameOverError once the game ends
                pass
            except BaseException as err:
                note(err)

    players = [threading.Thread(target=player) for _ in range(2)]
    searchers = [threading.Thread(target=searcher) for _ in range(2)]
    for t in players + searchers:
        t.start()
    for t in searchers:
        t.join(300)
    searches_done.set()
    for t in players:
        t.join(60)
    assert errors == []
    assert refusals[0] > 0  # the threads did meet
    assert HeadGame.from_json(g.to_json()).snapshot() == g.snapshot()
