"""The bots a server lets in: one name and one secret token each, given on the command line
(``--bot-token NAME=TOKEN``) or in a file (``--bot-tokens FILE``, one ``name token`` a line).

A token is compared in constant time: both sides are hashed (SHA-256) and the digests compared
with :func:`hmac.compare_digest`, against every bot's token whatever matched before, so neither
the time of a refusal nor its message says how much of a token was right, how long the right one
is, or which names exist. No token is ever printed, logged or sent to a client.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from panda_core._args import cut

__all__ = [
    "MAX_TOKEN",
    "MIN_TOKEN",
    "NAME_TEXT",
    "BotTokenError",
    "BotTokens",
    "check_bot_name",
]

NAME_TEXT = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,39}$")
"""A bot's name: 1 to 40 letters, digits, ``_``, ``.``, ``-``, starting with a letter or digit
(it appears in seat specs, ``bot:NAME``, and in results)."""
MIN_TOKEN = 16
"""The shortest token taken (``secrets.token_urlsafe(24)`` gives 32 characters)."""
MAX_TOKEN = 200
"""The longest token taken."""
_TOKEN_TEXT = re.compile(r"^[\x21-\x7e]+$")  # printable ASCII, no space
_MAX_FILE = 1 << 20


class BotTokenError(ValueError):
    """A bot token or name that cannot be used (the message never holds the token)."""


def check_bot_name(name: str) -> str:
    """``name`` if it is a valid bot name, else :class:`BotTokenError`."""
    if not NAME_TEXT.match(name):
        raise BotTokenError(
            f"a bot's name is 1 to 40 letters, digits, '_', '.' or '-' (starting with a letter "
            f"or digit), got {cut(name)!r}"
        )
    return name


def _check_token(name: str, token: str) -> str:
    if not MIN_TOKEN <= len(token) <= MAX_TOKEN or not _TOKEN_TEXT.match(token):
        raise BotTokenError(
            f"the token of bot {name!r} must be {MIN_TOKEN} to {MAX_TOKEN} printable ASCII "
            "characters without spaces (make one with: python -c 'import secrets; "
            "print(secrets.token_urlsafe(24))')"
        )
    return token


def _digest(token: str) -> bytes:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).digest()


@dataclass(frozen=True)
class BotTokens:
    """The bots a server lets in, by name, each with the digest of its token."""

    names: tuple[str, ...] = ()
    _digests: tuple[bytes, ...] = field(default=(), repr=False)

    @classmethod
    def of(cls, pairs: Iterable[tuple[str, str]]) -> BotTokens:
        """From ``(name, token)`` pairs; a name or a token given twice is refused."""
        names: list[str] = []
        digests: list[bytes] = []
        for name, token in pairs:
            check_bot_name(name)
            digest = _digest(_check_token(name, token))
            if name in names:
                raise BotTokenError(f"bot {name!r} is given two tokens; give each bot one")
            if digest in digests:
                raise BotTokenError(
                    f"bot {name!r} has the token of bot {names[digests.index(digest)]!r}: "
                    "give each bot its own token"
                )
            names.append(name)
            digests.append(digest)
        return cls(tuple(names), tuple(digests))

    @classmethod
    def parse(
        cls, options: Sequence[str] = (), files: Sequence[str | os.PathLike[str]] = ()
    ) -> BotTokens:
        """From ``--bot-token NAME=TOKEN`` texts and ``--bot-tokens FILE`` files (one ``name
        token`` a line; blank lines and lines starting with ``#`` are skipped)."""
        pairs: list[tuple[str, str]] = []
        for text in options:
            name, sep, token = text.partition("=")
            if not sep:
                raise BotTokenError("--bot-token takes NAME=TOKEN, got a value without '='")
            pairs.append((name.strip(), token.strip()))
        for path in files:
            pairs.extend(_read_file(Path(path)))
        return cls.of(pairs)

    def __bool__(self) -> bool:
        return bool(self.names)

    def __len__(self) -> int:
        return len(self.names)

    def name_of(self, token: str) -> str | None:
        """The bot whose token ``token`` is (``None``: no bot's). Every bot's digest is compared,
        in constant time each, whatever matched."""
        given = _digest(token)
        found: str | None = None
        for name, digest in zip(self.names, self._digests, strict=True):
            if hmac.compare_digest(given, digest) and found is None:
                found = name
        return found

    def check(self, name: str, token: str) -> bool:
        """Whether ``token`` is bot ``name``'s (compared as :meth:`name_of` does)."""
        return self.name_of(token) == name and name in self.names


def _read_file(path: Path) -> list[tuple[str, str]]:
    try:
        if path.stat().st_size > _MAX_FILE:
            raise BotTokenError(f"the bot token file {path} is over {_MAX_FILE} bytes")
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise BotTokenError(f"cannot read the bot token file {path}: {err}") from None
    pairs = []
    for number, line in enumerate(text.splitlines(), start=1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        parts = line.split()
        if len(parts) != 2:
            raise BotTokenError(
                f"{path}, line {number}: a line is 'name token' (two words), got {len(parts)} words"
            )
        pairs.append((parts[0], parts[1]))
    return pairs
