"""Reading a request's body before FastAPI validates it: JSON only (415), bounded while it is read
(413), and a body that cannot be parsed refused as not JSON (400, naming the fault).

Not starlette's ``RequestBodyLimitMiddleware`` (FastAPI's ``max_body_size``): past a declared
``Content-Length`` it replaces whatever the app answers with plain text, and every error of this
API is JSON ``{"error": message}``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Coroutine
from typing import Any

from fastapi.routing import APIRoute
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response

from panda_core.web.errors import TooLarge, UnsupportedMediaType
from panda_core.web.refusals import cut

__all__ = ["MAX_JSON", "JsonApiRoute", "read_body", "require_json"]

MAX_JSON = 64 * 1024
"""Largest JSON body of a control request (create a table, a move): far above any real one."""


async def read_body(request: Request, limit: int) -> bytes:
    """The request body, refused with 413 as soon as it passes ``limit`` bytes (the declared
    ``Content-Length`` is checked first; the stream is counted while it is read, so an
    unbounded body is never buffered)."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise TooLarge(f"the body is {int(declared)} bytes; the limit is {limit} bytes")
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise TooLarge(f"the body is over the limit of {limit} bytes")
        chunks.append(chunk)
    return b"".join(chunks)


def require_json(request: Request) -> None:
    """Refuse (415) a body that is not ``Content-Type: application/json``.

    This is half of the server's CSRF defence: a page of another site can send a form or plain
    text anywhere without asking, but a JSON body only after a CORS preflight, which this server
    never grants. (The other half is the ``Origin`` check of :mod:`panda_core.web.guard`.)
    """
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind != "application/json":
        raise UnsupportedMediaType(
            f"send the body as JSON with Content-Type: application/json (got {cut(kind or 'none')}"
            "); forms, multipart and plain text are refused"
        )


class _BoundedJsonRequest(Request):
    """A request whose body FastAPI reads at most :data:`MAX_JSON` bytes, and whose JSON is
    refused as such when it cannot be parsed."""

    async def body(self) -> bytes:
        if not hasattr(self, "_body"):
            try:
                self._body = await read_body(self, MAX_JSON)
            except TooLarge as err:
                # FastAPI lets only an HTTPException through its reading of the body (anything
                # else becomes a 400); the app answers it as {"error": message} all the same.
                raise HTTPException(err.status, err.message) from None
        return self._body

    async def json(self) -> Any:
        # FastAPI answers a json.JSONDecodeError as a body that is not JSON (a validation error
        # naming the fault), anything else as "There was an error parsing the body"; nesting
        # too deep for the decoder and bytes that are not UTF-8 are not JSON either.
        try:
            return await super().json()
        except (RecursionError, UnicodeDecodeError) as err:
            raise json.JSONDecodeError(str(err) or type(err).__name__, "", 0) from None


class JsonApiRoute(APIRoute):
    """A route of the JSON API (FastAPI's documented way to change how a request is read): a
    ``POST`` body must be JSON (415, before anything is read), a body FastAPI validates against
    the route's model is read at most :data:`MAX_JSON` bytes (413, while it is read) and, when
    it is not JSON, refused naming the fault (400). (A record upload reads its own body, with
    its own limit: :func:`read_body`.)"""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def read_json_bounded(request: Request) -> Response:
            if request.method == "POST":
                require_json(request)
            return await handler(_BoundedJsonRequest(request.scope, request.receive))

        return read_json_bounded
