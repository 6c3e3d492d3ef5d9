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
from typing import Annotated, Any

from fastapi import FastAPI, Query
from fastapi import Path as PathParam
from fastapi.exceptions import RequestValidationError, WebSocketRequestValidationError
from pydantic import BaseModel
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket

from panda_core._core import PandaCoreError
from panda_core.table import Table
from panda_core.web.bodies import JsonApiRoute, read_body
from panda_core.web.bot_arena import Challenges
from panda_core.web.bot_hub import BotHub, BotSettings
from panda_core.web.bot_socket import serve_bot
from panda_core.web.catalog import games_catalog
from panda_core.web.errors import Malformed, NotFound, Unprocessable, WebError
from panda_core.web.guard import Guard, HostPolicy
from panda_core.web.payloads import (
    FrameNumber,
    FrameSeat,
    MaybeSeat,
    MoveRequest,
    NewChallenge,
    NewTable,
    OptionalToken,
    Spectator,
    Viewer,
)
from panda_core.web.refusals import refusal
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


def _body_fields(request: Request) -> list[str]:
    """The fields of the body model of the route a request reached (a refusal names them), read
    from the route FastAPI matched (``APIRoute.body_field``); none if it has no body model."""
    body = getattr(request.scope.get("route"), "body_field", None)
    model = getattr(getattr(body, "field_info", None), "annotation", None)
    if isinstance(model, type) and issubclass(model, BaseModel):
        return list(model.model_fields)
    return []


def _json(text: str) -> Response:
    return Response(text, media_type="application/json")


def _viewer(
    registry: Registry,
    table_id: str,
    seat: int | None,
    token: str | None,
    spectator: str | None,
    *,
    present: bool = True,
) -> tuple[LiveTable, int | None]:
    """The table and who looks at it: a seat (``?seat=S&token=T``) or a spectator
    (``?spectator=TOKEN``, seat ``None``)."""
    if spectator is not None:
        if seat is not None or token is not None:
            raise Malformed("give seat and token (a player's) or spectator, not both")
        return registry.spectate(table_id, spectator), None
    if seat is None or token is None:
        raise Malformed(
            "give seat and token (a player's, from the invite link) or spectator (the "
            "spectators' token)"
        )
    return registry.table(table_id, seat, token, present=present), seat


def _invites(live: LiveTable) -> dict[str, Any]:
    """The links of a new table: one per person's seat, one for its spectators."""
    invites = [
        {
            "seat": s,
            "name": live.name(s),
            "token": live.tokens[s],
            "link": f"#table={live.id}&seat={s}&token={live.tokens[s]}",
        }
        for s in live.people
    ]
    first = live.people[0]
    return {
        "table": live.id,
        "seat": first,
        "token": live.tokens[first],
        "invites": invites,
        "spectator": {
            "token": live.spectator_token,
            "link": f"#table={live.id}&spectator={live.spectator_token}",
        },
        "stand_in": live.stand_in,
        "hold": live.hold,
    }


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
    bots: BotSettings | None = None,
    seat_hold: float = 60.0,
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
    text)``), for tests; ``bots``: the bots that may connect to ``/bots/ws`` (their tokens and
    the protocol's times, docs/bot_server.md; ``None``: none may); ``seat_hold``: seconds an
    absent person's seat is held before its stand-in plays, when the table does not say.
    """
    hub = BotHub(bots) if bots is not None and bots.tokens else None
    registry = Registry(
        idle_timeout=idle_timeout,
        max_tables=max_tables,
        bot_delay=bot_delay,
        creation_rate=creation_rate,
        hub=hub,
        seat_hold=seat_hold,
    )
    challenges = Challenges(hub, bot_time)

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        registry.start()
        try:
            yield
        finally:
            await challenges.stop()
            await registry.stop()

    app = FastAPI(
        title="panda-core",
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,
        openapi_url=None,
    )
    # Every API route takes only JSON bodies, bounded while they are read (JsonApiRoute).
    app.router.route_class = JsonApiRoute
    app.state.registry = registry
    app.state.challenges = challenges
    if traffic is not None:
        app.add_middleware(TrafficRecorder, traffic=traffic)
    # Added last, so it runs first: nothing reaches the app (or the traffic recorder) unchecked.
    app.add_middleware(Guard, policy=hosts or HostPolicy())

    @app.exception_handler(WebError)
    async def web_error(request: Request, err: WebError) -> JSONResponse:
        return _error(err)

    @app.exception_handler(RequestValidationError)
    async def invalid_request(request: Request, err: RequestValidationError) -> JSONResponse:
        return _error(refusal(err.errors(), fields=_body_fields(request)))

    @app.exception_handler(WebSocketRequestValidationError)
    async def invalid_socket(websocket: WebSocket, err: WebSocketRequestValidationError) -> None:
        # Accepted, so that the page is told why (a handshake refused unaccepted says nothing).
        refused = refusal(err.errors())
        await websocket.accept()
        await websocket.send_text(error_message(refused.message))
        await websocket.close(POLICY_VIOLATION, close_reason(refused.message))

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

    # A control request's body must be JSON (415) and is bounded while it is read (413), both
    # by JsonApiRoute; FastAPI then validates it with its model (400, 422: refusals.refusal),
    # and the engine its values.
    @app.post("/api/tables", status_code=201)
    async def create_table(wanted: NewTable) -> dict[str, Any]:
        wanted.check()

        def build() -> Table:
            try:
                return Table(
                    wanted.game,
                    players=wanted.player_count(),
                    seats=wanted.seats_specs(),
                    seed=wanted.seed,
                    bot_time=bot_time,
                    **(wanted.rules or {}),
                )
            except (PandaCoreError, TypeError) as err:
                raise Unprocessable(str(err)) from None

        live = await registry.add_table(
            build,
            wanted.people(),
            wanted.remote(),
            stand_in=wanted.stand_in_bot(),
            hold=wanted.hold,
        )
        return _invites(live)

    @app.get("/api/tables/{table_id}")
    async def table_state(
        table_id: str,
        seat: MaybeSeat = None,
        token: OptionalToken = None,
        spectator: Spectator = None,
    ) -> Response:
        live, who = _viewer(registry, table_id, seat, token, spectator)
        return _json(await registry.state_json(live, who))

    @app.post("/api/tables/{table_id}/moves")
    async def table_move(table_id: str, move: MoveRequest) -> Response:
        live = registry.table(table_id, move.seat, move.token)
        return _json(await registry.play(live, move.seat, move.move))

    @app.get("/api/tables/{table_id}/record")
    async def table_record(
        table_id: str,
        seat: MaybeSeat = None,
        token: OptionalToken = None,
        spectator: Spectator = None,
        names: Annotated[bool, Query()] = False,
    ) -> Response:
        live, _ = _viewer(registry, table_id, seat, token, spectator)
        record = await registry.record(live, names=names)
        name = f"panda-core-{live.table.game_name}-{live.id}.json"
        return Response(
            record,
            media_type="application/json",
            headers={"Content-Disposition": f'attachment; filename="{name}"'},
        )

    @app.post("/api/tables/{table_id}/replay", status_code=201)
    async def table_replay(table_id: str, who: Viewer) -> dict[str, Any]:
        live, _ = _viewer(registry, table_id, who.seat, who.token, who.spectator)
        return (await registry.replay_of(live)).summary()

    # ---- replays ---------------------------------------------------------------------------

    @app.post("/api/replays", status_code=201)
    async def upload_replay(request: Request) -> dict[str, Any]:
        # The record itself is the body (JSON, checked by JsonApiRoute), at most max_upload
        # bytes; its content is checked by the table model's Replay.
        body = await read_body(request, max_upload)
        try:
            record = body.decode("utf-8")
        except UnicodeDecodeError:
            raise Unprocessable("the record is not UTF-8 text (a game record is JSON)") from None
        return (await registry.add_replay(record)).summary()

    @app.get("/api/replays/{replay_id}/frames/{frame}")
    async def replay_frame(replay_id: str, frame: FrameNumber, seat: FrameSeat) -> Response:
        return _json(await registry.frame(replay_id, seat, frame))

    # ---- the table's websocket -------------------------------------------------------------

    @app.websocket("/ws/tables/{table_id}")
    async def table_socket(
        websocket: WebSocket,
        table_id: str,
        seat: MaybeSeat = None,
        token: OptionalToken = None,
        spectator: Spectator = None,
    ) -> None:
        # Host and Origin were checked by the guard before this runs, the seat and the token's
        # form by FastAPI (invalid_socket). The seat's slot is taken with no await between the
        # check and the taking (Registry.connect).
        await websocket.accept()
        try:
            live, who = _viewer(registry, table_id, seat, token, spectator, present=False)
            connection = registry.connect(live, who)
        except WebError as err:
            await websocket.send_text(error_message(err.message))
            await websocket.close(POLICY_VIOLATION, close_reason(err.message))
            return
        await serve_socket(websocket, registry, live, connection)

    # ---- connected bots (docs/bot_server.md) -----------------------------------------------

    @app.websocket("/bots/ws")
    async def bot_socket(websocket: WebSocket) -> None:
        # Host and Origin were checked by the guard; the token is checked by serve_bot.
        await serve_bot(websocket, hub)

    @app.get("/bots")
    async def bots_connected() -> dict[str, Any]:
        return {"connected": [] if hub is None else hub.connected()}

    @app.post("/bots/challenge", status_code=201)
    async def new_challenge(wanted: NewChallenge) -> dict[str, Any]:
        return challenges.start(wanted).summary(games=False)

    @app.get("/bots/challenge/{challenge_id}")
    async def challenge_state(
        challenge_id: Annotated[str, PathParam(max_length=40)],
    ) -> dict[str, Any]:
        return challenges.get(challenge_id).summary()

    return app
