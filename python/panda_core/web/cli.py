"""``panda-core serve``: the web application on a local port (uvicorn)."""

from __future__ import annotations

import argparse
import contextlib
import ipaddress
import socket
import sys
from typing import Any

from panda_core.web.limits import BOT_RECONNECT_GRACE, MAX_HOLD, SEAT_HOLD

__all__ = ["register", "serve"]


def _positive(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected a number of seconds, got {text[:40]!r}"
        ) from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds, got {text[:40]}")
    return value


def _delay(text: str) -> float:
    value = 0.0 if text.strip() in ("0", "0.0") else _positive(text)
    if value > 60:
        raise argparse.ArgumentTypeError(f"must be at most 60 seconds, got {text[:40]}")
    return value


def _bot_time(text: str) -> float:
    value = _positive(text)
    if value > 60:
        raise argparse.ArgumentTypeError(f"must be at most 60 seconds, got {text[:40]}")
    return value


def _grace(text: str) -> float:
    value = _positive(text)
    if value > 3600:
        raise argparse.ArgumentTypeError(f"must be at most 3600 seconds, got {text[:40]}")
    return value


def _hold(text: str) -> float:
    value = 0.0 if text.strip() in ("0", "0.0") else _positive(text)
    if value > MAX_HOLD:
        raise argparse.ArgumentTypeError(f"must be at most {MAX_HOLD:g} seconds, got {text[:40]}")
    return value


def _port(text: str) -> int:
    if not text.isdigit() or not 0 <= int(text) <= 65535:
        raise argparse.ArgumentTypeError(f"must be a port number 0..=65535, got {text[:40]!r}")
    return int(text)


def register(subparsers: Any) -> argparse.ArgumentParser:
    """Add ``serve`` to the ``panda-core`` sub-commands (``subparsers`` of ``add_subparsers``)."""
    serve_parser: argparse.ArgumentParser = subparsers.add_parser(
        "serve",
        help="play and replay in the browser (a local web server)",
        description="Start the web application: play any game against the bots and replay "
        "records from any seat, in the browser. Needs the web extra: pip install "
        "'panda-core[web]'. The server listens on 127.0.0.1 only unless --host says otherwise.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    serve_parser.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to listen on; 0.0.0.0 serves the local network, so that friends play one "
        "table from their own machines (read the warning it prints: no login, no encryption)",
    )
    serve_parser.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="NAME",
        help="another name the server answers to in the Host header (repeatable; the loopback "
        "names and --host always are)",
    )
    serve_parser.add_argument("--port", type=_port, default=8000, help="port (0: any free port)")
    serve_parser.add_argument(
        "--idle-timeout",
        type=_positive,
        default=1800.0,
        help="seconds without a request after which a table is closed",
    )
    serve_parser.add_argument(
        "--bot-delay",
        type=_delay,
        default=0.35,
        help="seconds between two bot moves (so each can be seen)",
    )
    serve_parser.add_argument(
        "--bot-time",
        type=_bot_time,
        default=2.0,
        help="the longest a bot may think per move, in seconds (default 2, at most 60)",
    )
    serve_parser.add_argument(
        "--seat-hold",
        type=_hold,
        default=SEAT_HOLD,
        metavar="SECONDS",
        help="seconds a person's seat is held after their last page closed, before the table's "
        f"stand-in bot plays it (until they come back); a table may ask for 0 to {MAX_HOLD:g}",
    )
    bots = serve_parser.add_argument_group(
        "connected bots", "bots that play over a websocket, /bots/ws (docs/bot_server.md)"
    )
    bots.add_argument(
        "--bot-token",
        action="append",
        default=[],
        metavar="NAME=TOKEN",
        help="let bot NAME connect with TOKEN (repeatable; 16 to 200 characters; a token on the "
        "command line is visible to other users of this machine: prefer --bot-tokens)",
    )
    bots.add_argument(
        "--bot-tokens",
        action="append",
        default=[],
        metavar="FILE",
        help="a file of bots that may connect, one 'name token' a line (repeatable)",
    )
    bots.add_argument(
        "--bot-grace",
        type=_grace,
        default=BOT_RECONNECT_GRACE,
        metavar="SECONDS",
        help="seconds a bot's games wait for it after its connection was lost",
    )
    serve_parser.set_defaults(func=serve)
    return serve_parser


def serve(args: argparse.Namespace, given: set[str] | None = None) -> int:
    """Run the server until Ctrl-C; print the address to open."""
    try:
        from panda_core.web.app import create_app
        from panda_core.web.guard import HostPolicy
        from panda_core.web.server import make_server
    except ImportError as err:
        print(
            f"panda-core serve needs the web extra ({err.name} is missing): "
            "pip install 'panda-core[web]'",
            file=sys.stderr,
        )
        return 2
    bots = _bot_settings(args)
    if bots is None:
        return 2
    try:
        sock = _listen(args.host, args.port)
    except OSError as err:
        print(f"panda-core serve: cannot listen on {args.host}:{args.port}: {err}", file=sys.stderr)
        return 2
    names = list(args.allow_host)
    if _is_wildcard(args.host):  # reached by the machine's own names too
        names += [socket.gethostname(), socket.getfqdn(), f"{socket.gethostname()}.local"]
    hosts = HostPolicy.listening_on(args.host, names)
    app = create_app(
        idle_timeout=args.idle_timeout,
        bot_delay=args.bot_delay,
        bot_time=args.bot_time,
        hosts=hosts,
        bots=bots if bots.tokens else None,
        seat_hold=args.seat_hold,
    )
    server = make_server(app)
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    if not _is_loopback(args.host):
        print(
            f"panda-core serve: WARNING: listening on {args.host}, not only on this machine: "
            f"anyone who can reach port {port} of this machine can open tables (and so use its "
            "CPU for bots), upload records and watch or play any table whose link they have; "
            "there is no login, and the traffic is plain HTTP (not encrypted), so anyone on the "
            "network path can read the invite links, the seat tokens and the cards sent to "
            "every seat. Serve only a network you trust (a home LAN), and use --host 127.0.0.1 "
            "otherwise.",
            file=sys.stderr,
            flush=True,
        )
    print(f"panda-core serve: open http://{shown}:{port}/  (Ctrl-C stops)", flush=True)
    if _is_wildcard(args.host):
        lan = _lan_address()
        where = f"http://{lan}:{port}/ or " if lan else ""
        print(
            f"panda-core serve: friends on the network open {where}"
            f"http://{socket.gethostname()}:{port}/ (open it so yourself before making a table: "
            "the invite links name the address the page was opened with)",
            flush=True,
        )
    if bots.tokens:
        print(
            f"panda-core serve: bots {', '.join(bots.tokens.names)} may connect to "
            f"ws://{shown}:{port}/bots/ws",
            flush=True,
        )
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:  # uvicorn shuts down cleanly, then passes Ctrl-C on
        pass
    finally:
        sock.close()
    print("panda-core serve: stopped", flush=True)
    return 0


def _bot_settings(args: argparse.Namespace) -> Any:
    """The bots of ``--bot-token`` / ``--bot-tokens`` / ``--bot-grace`` (``None`` after printing
    why they cannot be used; never a token)."""
    from panda_core.web.bot_hub import BotSettings
    from panda_core.web.bot_tokens import BotTokenError, BotTokens

    try:
        tokens = BotTokens.parse(args.bot_token, args.bot_tokens)
    except BotTokenError as err:
        print(f"panda-core serve: {err}", file=sys.stderr)
        return None
    return BotSettings(tokens, reconnect_grace=args.bot_grace)


def _is_wildcard(host: str) -> bool:
    return host.strip().strip("[]") in ("", "0.0.0.0", "::")


def _lan_address() -> str | None:
    """This machine's address on its outgoing network (``None`` if it has none)."""
    with contextlib.suppress(OSError), socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.connect(("192.0.2.1", 9))  # a documentation address: no packet is sent
        address: str = probe.getsockname()[0]
        return address
    return None


def _is_loopback(host: str) -> bool:
    """Whether ``host`` (``--host``) is this machine only (a loopback name or address)."""
    bare = host.strip().strip("[]").lower()
    if bare == "localhost":
        return True
    try:
        return ipaddress.ip_address(bare).is_loopback
    except ValueError:
        return False


def _listen(host: str, port: int) -> socket.socket:
    """A listening socket on ``host:port`` (bound here so that the address printed is the one
    served, the port of ``--port 0`` included)."""
    family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0][0]
    return socket.create_server((host, port), family=family)
