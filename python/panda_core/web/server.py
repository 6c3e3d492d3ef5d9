"""The uvicorn server of ``panda-core serve``: its settings, the documented goodbye to every page
when it stops, and one log line (not a traceback) for a client's invalid websocket text.

uvicorn closes every open websocket with code 1012 when it stops, before the app hears of it;
:class:`Server` first closes the tables itself, so each page gets the message "the server is
shutting down" and the code 1001 (``docs/web_api.md``), then lets uvicorn finish.
"""

from __future__ import annotations

import logging
import socket
from typing import Any

import uvicorn
from fastapi import FastAPI

from panda_core.web.limits import CLOSE_TIMEOUT
from panda_core.web.payloads import MAX_WS_MESSAGE
from panda_core.web.tables import STOPPING, Registry

__all__ = ["MAX_CONNECTIONS", "OneLineClientErrors", "Server", "make_server"]

MAX_CONNECTIONS = 256
"""HTTP requests and websockets served at once; uvicorn answers 503 past this."""
WS_MAX_SIZE = 4 * MAX_WS_MESSAGE
"""Bytes of one incoming websocket message before uvicorn closes the socket (1009); the app
refuses messages past :data:`~panda_core.web.payloads.MAX_WS_MESSAGE` characters anyway."""

SETTINGS: dict[str, Any] = {
    "log_level": "warning",
    "lifespan": "on",
    "ws_max_size": WS_MAX_SIZE,
    "ws_per_message_deflate": False,  # no decompression work for a client to ask for
    "limit_concurrency": MAX_CONNECTIONS,
    "proxy_headers": False,  # no client may claim another address or scheme
    "timeout_graceful_shutdown": 5,
}
"""uvicorn's settings for the server (each can be overridden in :func:`make_server`)."""


class OneLineClientErrors(logging.Filter):
    """uvicorn logs a websocket text message that is not UTF-8 with a traceback; it is the
    client's mistake (uvicorn closes the socket with 1007): one warning line is enough."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.exc_info and record.getMessage().startswith("Invalid UTF-8 sequence"):
            record.msg = "a websocket client sent text that is not UTF-8: closed it with 1007"
            record.args = ()
            record.exc_info = None
            record.exc_text = None
            record.levelno, record.levelname = logging.WARNING, "WARNING"
        return True


def _quiet_client_errors() -> None:
    logger = logging.getLogger("uvicorn.error")
    if not any(isinstance(f, OneLineClientErrors) for f in logger.filters):
        logger.addFilter(OneLineClientErrors())


class Server(uvicorn.Server):
    """uvicorn's server that says goodbye to the pages of ``registry`` before it stops."""

    def __init__(self, config: uvicorn.Config, registry: Registry) -> None:
        super().__init__(config)
        self.registry = registry
        _quiet_client_errors()

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        for server in getattr(self, "servers", []):
            server.close()  # no new connection while the pages are told
        await self.registry.close_pages(STOPPING, CLOSE_TIMEOUT)
        await super().shutdown(sockets)


def make_server(app: FastAPI, **options: Any) -> Server:
    """The server of ``app`` (from ``create_app``), with :data:`SETTINGS` and ``options``
    (uvicorn's ``Config`` arguments: ``host``, ``port``, ...)."""
    config = uvicorn.Config(app, **{**SETTINGS, **options})
    registry: Registry = app.state.registry
    return Server(config, registry)
