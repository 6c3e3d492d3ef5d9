"""``panda-core serve``: play and replay in the browser (needs ``pip install panda-core[web]``).

:func:`create_app` builds the FastAPI application; this package imports FastAPI only when it is
first used, so the command line works without the web extra installed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from panda_core.web.app import create_app

__all__ = ["create_app"]


def __getattr__(name: str) -> Any:
    # create_app is imported on first use, so that importing panda_core.web (the CLI does) needs
    # no FastAPI; one definition, panda_core.web.app.create_app.
    if name == "create_app":
        from panda_core.web.app import create_app

        return create_app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
