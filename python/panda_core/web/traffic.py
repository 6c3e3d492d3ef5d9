"""An ASGI middleware that records everything the server sends to clients, for tests that check
what reached a page (the no-hidden-card property): each HTTP response body as
``("http", path, body_bytes)`` and each websocket message as ``("ws", path, text)``."""

from __future__ import annotations

from typing import TypeAlias

from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["Traffic", "TrafficRecorder"]

Traffic: TypeAlias = list[tuple[str, str, bytes | str]]


class TrafficRecorder:
    """Wraps an ASGI app; appends to ``traffic`` what the app sends (in the order it is sent)."""

    def __init__(self, app: ASGIApp, traffic: Traffic) -> None:
        self.app = app
        self.traffic = traffic

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        path: str = scope["path"]
        body: list[bytes] = []

        async def recording_send(message: Message) -> None:
            kind = message["type"]
            if kind in ("http.response.body", "websocket.http.response.body"):
                body.append(message.get("body", b""))
                if not message.get("more_body", False):
                    self.traffic.append(("http", path, b"".join(body)))
                    body.clear()
            elif kind == "websocket.send":
                text = message.get("text")
                if text is None:
                    text = bytes(message.get("bytes") or b"").decode("utf-8", "replace")
                self.traffic.append(("ws", path, text))
            elif kind == "websocket.close" and message.get("reason"):
                self.traffic.append(("ws", path, str(message["reason"])))
            await send(message)

        await self.app(scope, receive, recording_send)
