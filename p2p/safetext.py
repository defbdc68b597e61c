"""Text from a log or a peer, made safe to print on a terminal.

Player names, abandon reasons, chat lines and anything else another party wrote may hold control
characters, ANSI escape sequences, newlines or bidirectional overrides. Printed raw, they could fake
a verdict line, hide the real one or reorder what a reader sees. :func:`safe_text` turns every such
character into a visible escape (``\\x1b``, ``\\x0a``, ``\\u202e``) so the reader sees exactly what was
written and nothing can act on the terminal. :func:`is_printable_name` is the rule for names at join
time.
"""

from __future__ import annotations

import unicodedata

MAX_NAME_LENGTH = 40

# Unicode categories that must never reach a terminal as themselves: controls (Cc), format
# characters such as bidi overrides and zero-width joiners (Cf), separators other than the plain
# space (Zl, Zp), surrogates (Cs), private use (Co) and unassigned code points (Cn).
_UNSAFE_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})


def _escape(char: str) -> str:
    code = ord(char)
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def safe_text(value: object, limit: int | None = None) -> str:
    """``value`` as one line of inert text: unsafe characters escaped, optionally cut to ``limit``
    characters (with ``…``). Anything that is not a string is shown through ``str``."""
    text = value if isinstance(value, str) else str(value)
    if limit is not None:
        # an escape is never shorter than its character: the first ``limit`` characters hold all
        # that can be shown (the rest only says there was more), so megabytes are never walked
        text = text[: max(limit, 0) + 1]
    out = "".join(_escape(c) if unicodedata.category(c) in _UNSAFE_CATEGORIES else c for c in text)
    if limit is not None and len(out) > limit:
        out = out[: max(limit - 1, 0)] + "…"
    return out


def is_printable_name(name: object) -> bool:
    """True for a player name a table accepts: 1–40 characters, none of them unsafe, not blank."""
    return (
        isinstance(name, str)
        and 1 <= len(name) <= MAX_NAME_LENGTH
        and name.strip() != ""
        and all(unicodedata.category(c) not in _UNSAFE_CATEGORIES for c in name)
    )
