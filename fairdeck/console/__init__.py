"""The full-screen prompt-toolkit console (``ConsoleUI``) and the pieces it is drawn with.

``fairdeck.commands`` uses :class:`ConsoleUI` when stdin and stdout are a terminal and ``--plain`` is not
given; it has the contract of :class:`fairdeck.plainui.PlainUI` (``ConsoleUI(node)``, then
``await ui.show_notices()``). The replay viewer (``fairdeck.viewer``) reuses :mod:`.table`.

The application is imported on first use: the plain interface words its moves with :mod:`.moves`
(no prompt-toolkit), and a bot or a plain game should not pay for loading the full screen.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .app import ConsoleUI, screen_text

__all__ = ["ConsoleUI", "screen_text"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from . import app

        return getattr(app, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
