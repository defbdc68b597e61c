"""The full-screen prompt-toolkit console (``ConsoleUI``) and the pieces it is drawn with.

``fairdeck.commands`` uses :class:`ConsoleUI` when stdin and stdout are a terminal and ``--plain`` is not
given; it has the contract of :class:`fairdeck.plainui.PlainUI` (``ConsoleUI(node)``, then
``await ui.show_notices()``). The replay viewer (``fairdeck.viewer``) reuses :mod:`.table`.
"""

from .app import ConsoleUI, screen_text

__all__ = ["ConsoleUI", "screen_text"]
