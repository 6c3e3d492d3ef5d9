"""The bot protocol (docs/bot_protocol.md): bots in any language, in a process of their own or
connected to ``panda-core serve``, play a seat through versioned JSON messages, one per line."""

from panda_core.protocol.messages import PROTOCOL, ProtocolError

__all__ = ["PROTOCOL", "ProtocolError"]
