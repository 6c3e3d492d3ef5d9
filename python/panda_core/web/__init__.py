"""``panda-core serve``: play and replay in the browser (needs ``pip install panda-core[web]``).

:func:`create_app` builds the FastAPI application; this package imports FastAPI only when it is
called, so the command line works without the web extra installed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fastapi import FastAPI

    from panda_core.web.traffic import Traffic

__all__ = ["create_app"]


def create_app(
    *,
    idle_timeout: float = 1800.0,
    max_tables: int = 64,
    max_upload: int = 1_000_000,
    bot_delay: float = 0.35,
    bot_time: float = 2.0,
    traffic: Traffic | None = None,
) -> FastAPI:
    """The web application (see :func:`panda_core.web.app.create_app`)."""
    from panda_core.web.app import create_app as build

    return build(
        idle_timeout=idle_timeout,
        max_tables=max_tables,
        max_upload=max_upload,
        bot_delay=bot_delay,
        bot_time=bot_time,
        traffic=traffic,
    )
