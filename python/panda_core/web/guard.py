"""The server's front door: every HTTP request and websocket handshake is checked here before the
app sees it, and every HTTP answer leaves with the security headers.

- ``Host`` must be a name the server answers to (:class:`HostPolicy`) with the server's own port:
  a page of another site whose name was made to point at 127.0.0.1 (DNS rebinding) sends its
  own name and is refused (HTTP 421; a websocket is closed with 1008 before it is accepted).
- ``Origin``, when a request carries one (browsers send it with every websocket handshake and
  every ``POST``), must be the server's own origin: ``http(s)://`` an allowed name and the
  server's port. Another site's page is refused (HTTP 403; a websocket is closed with 1008
  before it is accepted).
- Every HTTP answer carries :data:`SECURITY_HEADERS` and a ``Content-Security-Policy`` that
  allows the page's own scripts, styles and connections only.

Together with bodies taken only as ``application/json`` (which no other site's page can send
without a CORS preflight, and the server grants none) this makes every state-changing request
CSRF-proof: a foreign page can neither send one nor read an answer.
"""

from __future__ import annotations

import ipaddress
import json
import logging
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import urlsplit

from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["LOOPBACK_NAMES", "SECURITY_HEADERS", "Guard", "HostPolicy"]

log = logging.getLogger("panda_core.web")

LOOPBACK_NAMES = frozenset({"127.0.0.1", "localhost", "::1"})
"""The names of this machine that every server answers to."""

SECURITY_HEADERS: tuple[tuple[bytes, bytes], ...] = (
    (b"x-frame-options", b"DENY"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"cross-origin-resource-policy", b"same-origin"),
)
"""Headers on every HTTP answer: no framing (clickjacking), no type sniffing, no referrer (a
table's address holds its seat token), no window or resource shared with another site."""

CONTENT_SECURITY_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'{sockets}; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
"""The page's own files only: no inline script or style, no other site; ``{sockets}`` is the
server's own ``ws://`` address (older browsers do not count it as ``'self'``)."""

POLICY_VIOLATION = 1008


@dataclass(frozen=True)
class HostPolicy:
    """The names a server answers to: ``names`` (lower case; IPv6 without brackets), and, with
    ``any_ip``, any IP address (a server listening on every address is reached by whichever of
    the machine's addresses a client uses; an address, unlike a name, cannot be rebound)."""

    names: frozenset[str] = LOOPBACK_NAMES
    any_ip: bool = False

    @classmethod
    def listening_on(cls, host: str, extra: Iterable[str] = ()) -> HostPolicy:
        """The policy of a server listening on ``host`` (``--host``), answering also to
        ``extra`` names (``--allow-host``)."""
        names = set(LOOPBACK_NAMES)
        bare = host.strip().strip("[]").lower()
        names.add(bare)
        names.update(name.strip().strip("[]").lower() for name in extra)
        return cls(frozenset(names), any_ip=_is_wildcard(bare))

    def allows(self, name: str) -> bool:
        if name in self.names:
            return True
        return self.any_ip and _is_ip(name)


def _is_ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def _is_wildcard(host: str) -> bool:
    return host in ("", "0.0.0.0", "::")


def _split_host(value: str) -> tuple[str, int | None] | None:
    """``name[:port]`` → (lower-case name, port or None); ``None`` if it is not that."""
    value = value.strip().lower()
    if value.startswith("["):  # [v6]:port
        end = value.find("]")
        if end < 0:
            return None
        name, rest = value[1:end], value[end + 1 :]
        if not rest:
            return name, None
        if not rest.startswith(":"):
            return None
        port_text = rest[1:]
    elif value.count(":") == 1:
        name, port_text = value.split(":")
    elif ":" in value:  # a bare IPv6 address is no Host value
        return None
    else:
        return value, None
    if not port_text.isascii() or not port_text.isdigit() or len(port_text) > 5:
        return None
    return name, int(port_text)


def _header(scope: Scope, wanted: bytes) -> str | None:
    """The one value of header ``wanted``; ``""`` if it is given more than once (refused)."""
    found: list[bytes] = [value for key, value in scope.get("headers", []) if key == wanted]
    if not found:
        return None
    if len(found) > 1:
        return ""
    return found[0].decode("latin-1")


class Guard:
    """Wraps the app: the ``Host`` and ``Origin`` checks, and the security headers."""

    def __init__(self, app: ASGIApp, policy: HostPolicy) -> None:
        self.app = app
        self.policy = policy

    def _server_port(self, scope: Scope) -> int | None:
        server = scope.get("server")
        if not server or server[1] is None:
            return None  # a Unix socket: no port to match
        port: int = server[1]
        return port

    def _host_problem(self, scope: Scope) -> str | None:
        host = _header(scope, b"host")
        if not host:
            return "the request needs one Host header naming this server"
        split = _split_host(host)
        default = 443 if scope.get("scheme") in ("https", "wss") else 80
        port = self._server_port(scope)
        if split is None or not self.policy.allows(split[0]):
            return f"this server does not answer to the name {host[:80]!r}"
        if port is not None and (split[1] or default) != port:
            return f"this server listens on port {port}, not on {host[:80]!r}"
        return None

    def _origin_problem(self, scope: Scope) -> str | None:
        origin = _header(scope, b"origin")
        if origin is None:
            return None  # not a browser's cross-origin request (a script, a same-origin GET)
        refused = f"requests from another site's page are refused (Origin {origin[:80]!r})"
        try:
            parts = urlsplit(origin)
            origin_port = parts.port
        except ValueError:
            return refused
        if parts.scheme not in ("http", "https") or not parts.hostname:
            return refused  # "null" (a sandboxed frame, a file), or not an origin at all
        port = self._server_port(scope)
        default = 443 if parts.scheme == "https" else 80
        if not self.policy.allows(parts.hostname.lower()):
            return refused
        if port is not None and (origin_port or default) != port:
            return refused
        return None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        misdirected = self._host_problem(scope)
        foreign = None if misdirected else self._origin_problem(scope)
        if misdirected or foreign:
            why = misdirected or foreign
            assert why is not None
            log.info("refused %s %s: %s", kind, scope.get("path", "")[:80], why)
            if kind == "websocket":
                # Closed before it is accepted: the handshake is answered 403 and no message of
                # the app's is ever sent to that page.
                await send({"type": "websocket.close", "code": POLICY_VIOLATION, "reason": why})
            else:
                await _refuse(send, 421 if misdirected else 403, why, self._policy_header(None))
            return
        if kind == "websocket":
            await self.app(scope, receive, send)
            return
        csp = self._policy_header(_header(scope, b"host"))
        is_api = scope.get("path", "").startswith("/api/")

        async def secured_send(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                headers.extend(SECURITY_HEADERS)
                headers.append((b"content-security-policy", csp))
                if is_api:  # states and records hold a seat's cards: never cached
                    headers.append((b"cache-control", b"no-store"))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, secured_send)

    @staticmethod
    def _policy_header(host: str | None) -> bytes:
        sockets = f" ws://{host} wss://{host}" if host and _split_host(host) else ""
        return CONTENT_SECURITY_POLICY.format(sockets=sockets).encode("latin-1")


async def _refuse(send: Send, status: int, why: str, csp: bytes) -> None:
    body = json.dumps({"error": why}).encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        *SECURITY_HEADERS,
        (b"content-security-policy", csp),
    ]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
