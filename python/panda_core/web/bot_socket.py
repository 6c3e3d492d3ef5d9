"""Serving one bot's websocket (``/bots/ws``): its token, its hello, then three tasks — a sender
of its outbox, a receiver of its messages (each bounded in size and rate, and checked by the
protocol's reader), and a heartbeat that pings it and lets it go when it stops answering.
Whichever ends first ends the others; the hub then decides what becomes of the bot's games.

How a connection ends (the close code and reason; an ``{"type": "error", "message"}`` goes
first, except for the protocol's own closes):

- a bad, missing or doubled token, a second connection of a connected bot, too many bots: 1008;
- a message that is not text, not JSON, of an unknown type or missing a field (the protocol no
  longer holds), or too many messages: 1008, and the bot's games are forfeited now;
- no pong for ``pong_timeout`` seconds, or a bot that stopped reading: 1008, and its games wait
  ``reconnect_grace`` seconds for it to come back;
- the server stops: ``{"type": "bye"}`` and 1001.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging

from starlette.websockets import WebSocket, WebSocketDisconnect

import panda_core
from panda_core._strict_json import strict_loads
from panda_core.protocol.messages import ProtocolError, hello_message, read_bot_message
from panda_core.web.bot_hub import PING, BotHub, BotLink, BotRefused
from panda_core.web.bot_tokens import MAX_TOKEN
from panda_core.web.limits import BOT_FRAMES_BURST, BOT_FRAMES_PER_SECOND, CLOSE_TIMEOUT
from panda_core.web.sockets import INTERNAL_ERROR, POLICY_VIOLATION, close_reason, error_message

__all__ = ["BAD_TOKEN", "FLOODING", "NO_BOTS", "serve_bot"]

log = logging.getLogger("panda_core.web")

BAD_TOKEN = "refused: not a bot token of this server"
NO_TOKEN = (
    "refused: no bot token (send 'Authorization: Bearer TOKEN', or the token in your hello: "
    '{"type": "hello", "protocol": 1, "name": NAME, "token": TOKEN})'
)
NO_BOTS = "this server takes no bots (start it with --bot-token NAME=TOKEN)"
FLOODING = (
    f"this bot sent more than {BOT_FRAMES_BURST} messages at once or "
    f"{BOT_FRAMES_PER_SECOND:g} a second"
)
_BEARER = "bearer "


def _engine() -> str:
    return f"panda-core {panda_core.__version__}"


async def _refuse(websocket: WebSocket, why: str) -> None:
    with contextlib.suppress(WebSocketDisconnect, OSError, RuntimeError):
        await websocket.send_text(error_message(why))
        await websocket.close(POLICY_VIOLATION, close_reason(why))


def _header_token(websocket: WebSocket) -> str | None:
    """The token of an ``Authorization: Bearer`` header; ``""`` for a header of another form
    (refused), ``None`` without one."""
    values = websocket.headers.getlist("authorization")
    if not values:
        return None
    value = values[0].strip()
    if len(values) > 1 or not value[: len(_BEARER)].lower() == _BEARER:
        return ""
    return value[len(_BEARER) :].strip()


async def _hello(websocket: WebSocket, hub: BotHub, known: str | None) -> str:
    """The name of the bot whose hello this is: ``known`` (from its header), or the one whose
    token the hello holds (:class:`BotRefused`, :class:`ProtocolError`)."""
    try:
        async with asyncio.timeout(hub.settings.hello_timeout):
            message = await websocket.receive()
    except TimeoutError:
        raise ProtocolError(
            f"no hello within {hub.settings.hello_timeout:g} s of connecting"
        ) from None
    if message["type"] == "websocket.disconnect":
        raise WebSocketDisconnect(message.get("code", 1000))
    text = message.get("text")
    if text is None:
        raise ProtocolError("send text frames, one JSON message each")
    hello = read_bot_message(text)
    if hello["type"] != "hello":
        raise ProtocolError(f"the first message is a hello, got a {hello['type']!r}")
    if known is not None:
        return known
    token = strict_loads(text).get("token")
    if token is None:
        raise BotRefused(NO_TOKEN)
    if type(token) is not str or len(token) > MAX_TOKEN:
        raise BotRefused(BAD_TOKEN)
    name = hub.tokens.name_of(token)
    if name is None or (hello["name"] and hello["name"] != name):
        raise BotRefused(BAD_TOKEN)
    return name


async def serve_bot(websocket: WebSocket, hub: BotHub | None) -> None:
    """Serve a bot's websocket (Host and Origin were checked by the guard) until it closes
    (``hub``: the server's bots; ``None``: it takes none)."""
    header = _header_token(websocket)
    await websocket.accept()
    if hub is None or not hub.tokens:
        await _refuse(websocket, NO_BOTS)
        return
    if header == "":
        await _refuse(websocket, "refused: the Authorization header is 'Bearer TOKEN'")
        return
    known = None if header is None else hub.tokens.name_of(header)
    if header is not None and known is None:
        log.info("refused a bot connection: bad token")
        await _refuse(websocket, BAD_TOKEN)
        return
    try:
        await websocket.send_text(json.dumps(hello_message(_engine())))
        name = await _hello(websocket, hub, known)
        link = BotLink(name)
        hub.attach(link)
    except (BotRefused, ProtocolError) as err:
        log.info("refused a bot connection: %s", err)
        await _refuse(websocket, str(err))
        return
    except (WebSocketDisconnect, OSError, RuntimeError):
        return
    log.info("bot %s connected", name)
    await _serve(websocket, hub, link)


async def _serve(websocket: WebSocket, hub: BotHub, link: BotLink) -> None:
    sender = asyncio.create_task(_send(websocket, link))
    receiver = asyncio.create_task(_receive(websocket, hub, link))
    heart = asyncio.create_task(_heartbeat(hub, link))
    tasks = (sender, receiver, heart)
    try:
        await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        if link.closing is not None and not sender.done():
            await asyncio.wait({sender}, timeout=CLOSE_TIMEOUT)  # the closing message goes out
    finally:
        if not link.gone.is_set():
            hub.detach(link, "its connection was lost", lost=True)
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        for task in tasks:
            if task.done() and not task.cancelled() and task.exception() is not None:
                log.error("bot %s: its websocket failed", link.name, exc_info=task.exception())
        link.served.set()
        log.info("bot %s disconnected", link.name)


async def _send(websocket: WebSocket, link: BotLink) -> None:
    with contextlib.suppress(WebSocketDisconnect, OSError, RuntimeError):
        while True:
            if link.outbox:
                await websocket.send_text(link.outbox.popleft())
                continue
            if link.closing is not None:
                await websocket.close(link.closing.code, close_reason(link.closing.why))
                return
            link.ready.clear()
            await link.ready.wait()


async def _receive(websocket: WebSocket, hub: BotHub, link: BotLink) -> None:
    """The bot's messages, each checked; a message the protocol does not allow closes the link
    and forfeits its games; one it allows but that is wrong for its game (an illegal move, a
    move out of turn) forfeits that game only (:meth:`BotHub.receive`)."""
    while link.closing is None:
        try:
            frame = await websocket.receive()
        except (WebSocketDisconnect, RuntimeError):
            return
        if frame["type"] == "websocket.disconnect":
            return
        if not link.frames.take():
            _broke(hub, link, FLOODING)
            return
        text = frame.get("text")
        try:
            if text is None:
                raise ProtocolError("send text frames, one JSON message each")
            hub.receive(link, read_bot_message(text))
        except ProtocolError as err:
            _broke(hub, link, f"protocol error: {err}")
            return
        except Exception:  # a bug of the server's: the bot is told, the server stays up
            log.exception("bot %s: a message failed", link.name)
            link.close(INTERNAL_ERROR, "the server failed on this message")
            hub.detach(link, "the server failed on its message", lost=True)
            return


def _broke(hub: BotHub, link: BotLink, why: str) -> None:
    log.info("bot %s: closed: %s", link.name, why)
    link.close(POLICY_VIOLATION, why)
    hub.detach(link, why, lost=False)


async def _heartbeat(hub: BotHub, link: BotLink) -> None:
    """A ping every ``ping_interval`` seconds; a bot that leaves one unanswered for
    ``pong_timeout`` seconds is gone (closed; its games wait for it to come back)."""
    interval = hub.settings.ping_interval
    timeout = hub.settings.pong_timeout
    while link.closing is None:
        wait = interval
        if link.unanswered_since is not None:
            wait = min(wait, link.unanswered_since + timeout - hub.clock())
        await asyncio.sleep(max(0.0, wait))
        now = hub.clock()
        if link.unanswered_since is not None and now - link.unanswered_since >= timeout:
            why = f"no pong within {timeout:g} s of a ping"
            log.info("bot %s: closed: %s", link.name, why)
            link.close(POLICY_VIOLATION, why)
            hub.detach(link, f"it stopped answering pings ({why})", lost=True)
            return
        if link.unanswered_since is None:
            link.unanswered_since = now
        hub.send(link, PING)
