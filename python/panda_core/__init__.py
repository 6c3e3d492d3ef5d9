"""panda-core: fast, exact engines for the panda card games."""

from panda_core._core import __version__

__all__ = ["__version__"]
