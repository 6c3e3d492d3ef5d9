"""The web application of ``panda-core serve``: the page, its static files and the JSON and
websocket API that the page plays and replays through (docs: the module docstrings of this
package; the protocol in ``create_app``).

Every answer is JSON; every error is ``{"error": message}`` with a 4xx status (400 malformed,
403 bad token, 404 no such table/replay/frame, 409 not now, 413 too large, 422 refused by the
engine, 503 too many tables). No path from a request is ever opened: the page and its files are
served from this package's ``static`` folder only, and a deck file (a path) cannot be chosen.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncGenerator, AsyncIterator
from pathlib import Path
from typing import Any

from fastapi import FastAPI
from starlette.datastructures import UploadFile
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.formparsers import MultiPartException, MultiPartParser
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from panda_core._core import PandaCoreError
from panda_core.table import Table
from panda_core.web.catalog import games_catalog
from panda_core.web.errors import Malformed, NotFound, TooLarge, Unprocessable, WebError
from panda_core.web.payloads import (
    client_move,
    move_request,
    new_table,
    query_seat,
    query_token,
    read_body,
    read_json,
    seat_token,
)
from panda_core.web.tables import (
    CLOSE,
    Connection,
    LiveTable,
    Registry,
    error_message,
    state_message,
)
from panda_core.web.traffic import Traffic, TrafficRecorder

__all__ = ["STATIC", "create_app"]

log = logging.getLogger("panda_core.web")

STATIC = Path(__file__).parent / "static"
"""The page and its files (the only files the server ever reads for a client)."""
MULTIPART_SLACK = 64 * 1024
"""Room for the multipart framing around an uploaded record of ``max_upload`` bytes."""
POLICY_VIOLATION = 1008
"""Websocket close code for a connection refused (unknown table, bad token)."""
GOING_AWAY = 1001
"""Websocket close code when the table is closed (idle, or the server stops)."""


def _error(err: WebError) -> JSONResponse:
    return JSONResponse({"error": err.message}, status_code=err.status)


def create_app(
    *,
    idle_timeout: float = 1800.0,
    max_tables: int = 64,
    max_upload: int = 1_000_000,
    bot_delay: float = 0.35,
    bot_time: float = 2.0,
    traffic: Traffic | None = None,
) -> FastAPI:
    """The app: tables with a person and bots, replays of records, the page.

    ``idle_timeout``: seconds without a request or message after which a table or replay is
    closed; ``max_tables``: tables (and, separately, replays) open at once; ``max_upload``: bytes
    of an uploaded record; ``bot_delay``: seconds between two bot moves (so a page can show
    each); ``bot_time``: the longest one bot decision may take (``Table``'s ``bot_time``);
    ``traffic``: a list that receives everything the server sends to clients
    (``("http", path, body)``, ``("ws", path, text)``), for tests.
    """
    registry = Registry(idle_timeout=idle_timeout, max_tables=max_tables, bot_delay=bot_delay)

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        registry.start()
        try:
            yield
        finally:
            await registry.stop()

    app = FastAPI(
        title="panda-core",
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,
        openapi_url=None,
    )
    app.state.registry = registry
    if traffic is not None:
        app.add_middleware(TrafficRecorder, traffic=traffic)

    @app.exception_handler(WebError)
    async def web_error(request: Request, err: WebError) -> JSONResponse:
        return _error(err)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, err: StarletteHTTPException) -> Response:
        if err.status_code < 200 or err.status_code in (204, 304):
            return Response(status_code=err.status_code, headers=err.headers)
        return JSONResponse({"error": str(err.detail)}, err.status_code, headers=err.headers)

    @app.exception_handler(Exception)
    async def internal_error(request: Request, err: Exception) -> JSONResponse:
        log.exception("internal error on %s", request.url.path)
        return JSONResponse({"error": "internal server error"}, status_code=500)

    # ---- the page --------------------------------------------------------------------------

    @app.get("/", include_in_schema=False)
    async def index() -> Response:
        page = STATIC / "index.html"
        if not page.is_file():
            return _error(NotFound("the web page is not installed (panda_core/web/static)"))
        return FileResponse(page, media_type="text/html")

    if STATIC.is_dir():
        app.mount("/static", StaticFiles(directory=STATIC), name="static")

    # ---- games and tables ------------------------------------------------------------------

    @app.get("/api/games")
    async def games() -> dict[str, Any]:
        return games_catalog()

    @app.post("/api/tables", status_code=201)
    async def create_table(request: Request) -> dict[str, Any]:
        wanted = new_table(await read_json(request))
        try:
            table = Table(
                wanted.game,
                players=wanted.players,
                seats=wanted.seats(),
                seed=wanted.seed,
                bot_time=bot_time,
                **wanted.rules,
            )
        except (PandaCoreError, TypeError) as err:
            raise Unprocessable(str(err)) from None
        live = registry.add_table(table, wanted.seat)
        return {"table": live.id, "seat": wanted.seat, "token": live.tokens[wanted.seat]}

    def seated(request: Request, table_id: str) -> tuple[LiveTable, int]:
        seat = query_seat(request)
        assert seat is not None
        return registry.table(table_id, seat, query_token(request)), seat

    @app.get("/api/tables/{table_id}")
    async def table_state(request: Request, table_id: str) -> Any:
        live, seat = seated(request, table_id)
        return await registry.state(live, seat)

    @app.post("/api/tables/{table_id}/moves")
    async def table_move(request: Request, table_id: str) -> Any:
        who, move = move_request(await read_json(request))
        live = registry.table(table_id, who.seat, who.token)
        return await registry.play(live, who.seat, move)

    @app.get("/api/tables/{table_id}/record")
    async def table_record(request: Request, table_id: str) -> Response:
        live, _ = seated(request, table_id)
        record = await registry.record(live)
        name = f"panda-core-{live.table.game_name}-{live.id}.json"
        return Response(
            record,
            media_type="application/json",
            headers={"Content-Disposition": f'attachment; filename="{name}"'},
        )

    @app.post("/api/tables/{table_id}/replay", status_code=201)
    async def table_replay(request: Request, table_id: str) -> dict[str, Any]:
        who = seat_token(await read_json(request))
        live = registry.table(table_id, who.seat, who.token)
        return (await registry.replay_of(live, who.seat)).summary()

    # ---- replays ---------------------------------------------------------------------------

    @app.post("/api/replays", status_code=201)
    async def upload_replay(request: Request) -> dict[str, Any]:
        record = await _uploaded_record(request, max_upload)
        return (await registry.add_replay(record)).summary()

    @app.get("/api/replays/{replay_id}/frames/{k}")
    async def replay_frame(request: Request, replay_id: str, k: str) -> Any:
        if not k.isascii() or not k.isdigit() or len(k) > 9:
            raise Malformed(f"the frame must be a frame number, got {k[:40]!r}")
        return await registry.frame(replay_id, query_seat(request, allow_all=True), int(k))

    # ---- the table's websocket -------------------------------------------------------------

    @app.websocket("/ws/tables/{table_id}")
    async def table_socket(websocket: WebSocket, table_id: str) -> None:
        await websocket.accept()
        try:
            seat = query_seat(websocket)
            assert seat is not None
            live = registry.table(table_id, seat, query_token(websocket))
            connection = await registry.connect(live, seat)
        except WebError as err:
            await websocket.send_text(error_message(err.message))
            await websocket.close(POLICY_VIOLATION)
            return
        sender = asyncio.create_task(_send_queued(websocket, connection))
        try:
            await _receive_moves(websocket, registry, live, connection)
        finally:
            registry.disconnect(live, connection)
            sender.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await sender

    return app


async def _send_queued(websocket: WebSocket, connection: Connection) -> None:
    """Send a connection's messages in order; close the socket on :data:`CLOSE`."""
    while True:
        message = await connection.queue.get()
        if message is CLOSE:
            await websocket.close(GOING_AWAY)
            return
        assert isinstance(message, str)
        await websocket.send_text(message)


async def _receive_moves(
    websocket: WebSocket, registry: Registry, live: LiveTable, connection: Connection
) -> None:
    """Moves from the page; a refused or malformed message is answered with an error and the
    connection stays open."""
    while True:
        try:
            message = await websocket.receive()
        except (WebSocketDisconnect, RuntimeError):
            return
        if message["type"] == "websocket.disconnect":
            return
        registry.touch(live)
        text = message.get("text")
        try:
            if text is None:
                raise Malformed('send text messages: {"type": "move", "move": index or notation}')
            move = client_move(text)
            if move is None:
                connection.put(await _state_text(registry, live, connection.seat))
            else:
                await registry.play(live, connection.seat, move)
        except WebError as err:
            connection.put(error_message(err.message))


async def _state_text(registry: Registry, live: LiveTable, seat: int) -> str:
    return state_message(await registry.state(live, seat))


async def _uploaded_record(request: Request, max_upload: int) -> str:
    """The record of ``POST /api/replays``: the body itself, or the multipart field ``record``;
    at most ``max_upload`` bytes (413 while reading), UTF-8 text (422 otherwise)."""
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind != "multipart/form-data":
        data = await read_body(request, max_upload)
    else:
        body = await read_body(request, max_upload + MULTIPART_SLACK)

        async def stream() -> AsyncGenerator[bytes, None]:
            yield body

        try:
            form = await MultiPartParser(
                request.headers, stream(), max_files=1, max_fields=8, max_part_size=max_upload
            ).parse()
        except MultiPartException as err:
            raise Malformed(f"the upload is not valid multipart data: {err.message}") from None
        field = form.get("record")
        if field is None:
            raise Malformed("the upload needs the record in the multipart field 'record'")
        if isinstance(field, UploadFile):
            data = await field.read(max_upload + 1)
            await field.close()
        else:
            data = field.encode()
        if len(data) > max_upload:
            raise TooLarge(f"the record is over the limit of {max_upload} bytes")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise Unprocessable("the record is not UTF-8 text (a game record is JSON)") from None
