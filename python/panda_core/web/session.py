"""Serving one table websocket: a receiver that takes the page's messages (at the rate its token
bucket allows) and a sender that delivers the connection's outbox, building each state only when
it is about to be sent. Whichever ends first ends the other."""

from __future__ import annotations

import asyncio
import contextlib
import logging

from starlette.websockets import WebSocket, WebSocketDisconnect

from panda_core.web.errors import Forbidden, Malformed, NotFound, WebError
from panda_core.web.limits import CLOSE_TIMEOUT, FRAMES_BURST, FRAMES_PER_SECOND
from panda_core.web.payloads import client_move
from panda_core.web.sockets import (
    INTERNAL_ERROR,
    POLICY_VIOLATION,
    STATE,
    Connection,
    close_reason,
    error_message,
    state_message,
)
from panda_core.web.tables import NOT_READING, LiveTable, Registry

__all__ = ["FLOODING", "serve_socket"]

log = logging.getLogger("panda_core.web")

FLOODING = (
    f"this page sent more than {FRAMES_BURST} messages at once or {FRAMES_PER_SECOND:g} a "
    "second; reload the page"
)


async def serve_socket(
    websocket: WebSocket, registry: Registry, live: LiveTable, connection: Connection
) -> None:
    """Serve an accepted websocket whose slot ``connection`` already holds, until it closes."""
    sender = asyncio.create_task(_send(websocket, registry, live, connection))
    receiver = asyncio.create_task(_receive(websocket, registry, live, connection))
    try:
        done, _ = await asyncio.wait({sender, receiver}, return_when=asyncio.FIRST_COMPLETED)
        if receiver in done and connection.closing is not None and not sender.done():
            # The page is being closed (it flooded, or stopped reading): give the closing
            # message a moment to go out, never more.
            await asyncio.wait({sender}, timeout=CLOSE_TIMEOUT)
    finally:
        registry.disconnect(live, connection)
        for task in (sender, receiver):
            task.cancel()
        for task in (sender, receiver):
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        for task in (sender, receiver):
            if task.done() and not task.cancelled() and task.exception() is not None:
                log.error("table %s: a websocket failed", live.id, exc_info=task.exception())
        connection.done.set()


async def _send(
    websocket: WebSocket, registry: Registry, live: LiveTable, connection: Connection
) -> None:
    """Send the outbox in order; a :data:`STATE` is built when reached; then the close. Ends
    quietly when the page has gone (a send then fails: starlette raises ``WebSocketDisconnect``
    or, after a close, ``RuntimeError``)."""
    with contextlib.suppress(WebSocketDisconnect, OSError, RuntimeError):
        await _send_outbox(websocket, registry, live, connection)


async def _send_outbox(
    websocket: WebSocket, registry: Registry, live: LiveTable, connection: Connection
) -> None:
    while True:
        item = connection.next()
        if item is None:
            if connection.closing is not None:
                code, why = connection.closing.code, connection.closing.why
                await websocket.close(code, close_reason(why))
                return
            connection.ready.clear()
            await connection.ready.wait()
            continue
        if item is STATE:
            again = connection.take_again()
            try:
                version, state = await registry.versioned_state(live, connection.seat)
            except NotFound:  # closed meanwhile: its closing message comes next
                continue
            if version == connection.sent_version and not again:
                continue  # two changes were asked for and both are in the state already sent
            connection.sent_version = version
            text = state_message(state)
        else:
            assert isinstance(item, str)
            text = item
        await websocket.send_text(text)


async def _receive(
    websocket: WebSocket, registry: Registry, live: LiveTable, connection: Connection
) -> None:
    """The page's messages: moves and state requests. A refused or malformed message is answered
    with an error message (and one log line) and the connection stays open; a page that sends
    too fast is closed."""
    while connection.closing is None:
        try:
            message = await websocket.receive()
        except (WebSocketDisconnect, RuntimeError):
            return
        if message["type"] == "websocket.disconnect":
            return
        if not connection.frames.take():
            log.info("table %s seat %s: closed a page that flooded", live.id, connection.seat)
            connection.close(POLICY_VIOLATION, FLOODING)
            return
        registry.touch(live)
        text = message.get("text")
        try:
            if text is None:
                raise Malformed('send text messages: {"type": "move", "move": index or notation}')
            move = client_move(text)
            if move is None:
                answered = connection.want_state(again=True)
            elif connection.seat is None:
                raise Forbidden("a spectator watches the table: only its players move")
            else:
                await registry.play(live, connection.seat, move)
                answered = True
        except WebError as err:
            log.info(
                "table %s seat %s: refused a message: %s", live.id, connection.seat, err.message
            )
            answered = connection.put(error_message(err.message))
        except Exception:  # a bug of the server's: the page is told, the server stays up
            log.exception("table %s: a websocket message failed", live.id)
            connection.close(INTERNAL_ERROR, "the server failed on this message")
            return
        if not answered:
            registry.disconnect(live, connection)
            connection.close(POLICY_VIOLATION, NOT_READING)
            return
