"""The web application of ``panda-core serve``: the page, its static files and the JSON and
websocket API that the page plays and replays through (docs: ``docs/web_api.md``).

Every answer is JSON; every error is ``{"error": message}`` with a 4xx or 503 status (400
malformed, 403 bad token or another site's page, 404 no such table/replay/frame, 409 not now, 413
too large, 415 not JSON, 421 not this server's name, 422 refused by the engine, 429 too fast, 503
too many tables or replay builds). No path from a request is ever opened: the page and its files
are served from this package's ``static`` folder only, and a deck file (a path) cannot be chosen.
Every request passes :class:`~panda_core.web.guard.Guard` first (``Host``, ``Origin``, security
headers); every engine call runs in a worker thread (:mod:`panda_core.web.tables`).
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from fastapi import FastAPI
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket

from panda_core._core import PandaCoreError
from panda_core.table import Table
from panda_core.web.catalog import games_catalog
from panda_core.web.errors import Malformed, NotFound, Unprocessable, WebError
from panda_core.web.guard import Guard, HostPolicy
from panda_core.web.payloads import (
    move_request,
    new_table,
    query_seat,
    query_token,
    read_json,
    read_record,
    seat_token,
)
from panda_core.web.session import serve_socket
from panda_core.web.sockets import POLICY_VIOLATION, close_reason, error_message
from panda_core.web.tables import LiveTable, Registry
from panda_core.web.traffic import Traffic, TrafficRecorder

__all__ = ["STATIC", "create_app"]

log = logging.getLogger("panda_core.web")

STATIC = Path(__file__).parent / "static"
"""The page and its files (the only files the server ever reads for a client)."""


def _error(err: WebError) -> JSONResponse:
    return JSONResponse({"error": err.message}, status_code=err.status, headers=err.headers())


def _json(text: str) -> Response:
    return Response(text, media_type="application/json")


def create_app(
    *,
    idle_timeout: float = 1800.0,
    max_tables: int = 64,
    max_upload: int = 1_000_000,
    bot_delay: float = 0.35,
    bot_time: float = 2.0,
    creation_rate: float = 1.0,
    hosts: HostPolicy | None = None,
    traffic: Traffic | None = None,
) -> FastAPI:
    """The app: tables with a person and bots, replays of records, the page.

    ``idle_timeout``: seconds without a request or message after which a table or replay is
    closed; ``max_tables``: games being played at once (and, separately, finished tables kept
    and replays open); ``max_upload``: bytes of an uploaded record; ``bot_delay``: seconds between
    two bot moves (so a page can show each); ``bot_time``: the longest one bot decision may take
    (``Table``'s ``bot_time``); ``creation_rate``: tables and replays created per second after a
    burst of ``max_tables``; ``hosts``: the names the server answers to (default: this machine's
    loopback names, see :class:`~panda_core.web.guard.HostPolicy`); ``traffic``: a list that
    receives everything the server sends to clients (``("http", path, body)``, ``("ws", path,
    text)``), for tests.
    """
    registry = Registry(
        idle_timeout=idle_timeout,
        max_tables=max_tables,
        bot_delay=bot_delay,
        creation_rate=creation_rate,
    )

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
    # Added last, so it runs first: nothing reaches the app (or the traffic recorder) unchecked.
    app.add_middleware(Guard, policy=hosts or HostPolicy())

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

        def build() -> Table:
            try:
                return Table(
                    wanted.game,
                    players=wanted.players,
                    seats=wanted.seats(),
                    seed=wanted.seed,
                    bot_time=bot_time,
                    **wanted.rules,
                )
            except (PandaCoreError, TypeError) as err:
                raise Unprocessable(str(err)) from None

        live = await registry.add_table(build, wanted.seat)
        return {"table": live.id, "seat": wanted.seat, "token": live.tokens[wanted.seat]}

    def seated(request: Request, table_id: str) -> tuple[LiveTable, int]:
        seat = query_seat(request)
        assert seat is not None
        return registry.table(table_id, seat, query_token(request)), seat

    @app.get("/api/tables/{table_id}")
    async def table_state(request: Request, table_id: str) -> Response:
        live, seat = seated(request, table_id)
        return _json(await registry.state_json(live, seat))

    @app.post("/api/tables/{table_id}/moves")
    async def table_move(request: Request, table_id: str) -> Response:
        who, move = move_request(await read_json(request))
        live = registry.table(table_id, who.seat, who.token)
        return _json(await registry.play(live, who.seat, move))

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
        record = await read_record(request, max_upload)
        return (await registry.add_replay(record)).summary()

    @app.get("/api/replays/{replay_id}/frames/{k}")
    async def replay_frame(request: Request, replay_id: str, k: str) -> Response:
        if not k.isascii() or not k.isdigit() or len(k) > 9:
            raise Malformed(f"the frame must be a frame number, got {k[:40]!r}")
        seat = query_seat(request, allow_all=True)
        return _json(await registry.frame(replay_id, seat, int(k)))

    # ---- the table's websocket -------------------------------------------------------------

    @app.websocket("/ws/tables/{table_id}")
    async def table_socket(websocket: WebSocket, table_id: str) -> None:
        # Host and Origin were checked by the guard before this runs. The seat's slot is taken
        # with no await between the check and the taking (Registry.connect).
        await websocket.accept()
        try:
            seat = query_seat(websocket)
            assert seat is not None
            live = registry.table(table_id, seat, query_token(websocket))
            connection = registry.connect(live, seat)
        except WebError as err:
            await websocket.send_text(error_message(err.message))
            await websocket.close(POLICY_VIOLATION, close_reason(err.message))
            return
        await serve_socket(websocket, registry, live, connection)

    return app
