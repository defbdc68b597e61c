"""The shape of the tree: games are named only in their own packages (and the registry), and each
layer imports only from the layers below it (engine <- p2p <- replay <- fairdeck)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from engine.games import GAMES

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("engine", "p2p", "replay", "fairdeck")
BUILT_IN = ("loveletter", "regicide", "rebelprincess")
ALLOWED = ("engine/games.py",)
"""Outside the games' own folders, only the registry lists games."""


def _sources() -> list[Path]:
    return sorted(p for package in PACKAGES for p in (ROOT / package).rglob("*.py"))


def _game_words() -> re.Pattern[str]:
    words: set[str] = set()
    for name in set(BUILT_IN) | {n for n in GAMES if not n.startswith("test")}:
        words.add(name)
    # the names as people write them ("Love Letter", "Rebel Princess"), too
    words |= {"love letter", "love_letter", "rebel princess", "rebel_princess"}
    return re.compile(r"\b(" + "|".join(sorted(map(re.escape, words))) + r")\b", re.IGNORECASE)


def test_no_module_outside_a_games_folder_names_a_game() -> None:
    pattern = _game_words()
    offenders = []
    for path in _sources():
        rel = path.relative_to(ROOT).as_posix()
        if rel in ALLOWED or any(rel.startswith(f"engine/{game}/") for game in BUILT_IN):
            continue
        for number, text in enumerate(path.read_text().splitlines(), 1):
            if pattern.search(text):
                offenders.append(f"{rel}:{number}: {text.strip()}")
    assert not offenders, "games named outside their packages:\n" + "\n".join(offenders)


def _imports(path: Path) -> set[str]:
    """Top-level package of every module ``path`` imports (at any depth of the file)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module.split(".")[0])
    return found


BELOW = {
    "engine": set(),
    "p2p": {"engine"},
    "replay": {"engine", "p2p"},
    "fairdeck": {"engine", "p2p", "replay"},
}
"""What each layer may import from this project."""


def test_each_layer_imports_only_from_below() -> None:
    offenders = []
    for path in _sources():
        layer = path.relative_to(ROOT).parts[0]
        for package in _imports(path) & set(PACKAGES):
            if package != layer and package not in BELOW[layer]:
                offenders.append(f"{path.relative_to(ROOT)} imports {package}")
    assert not offenders, "\n".join(offenders)


def test_a_game_package_has_the_common_shape_and_no_import_circle() -> None:
    shape = {"__init__.py", "game.py", "state.py", "options.py", "text.py", "present.py", "bots.py"}
    for game in BUILT_IN:
        folder = ROOT / "engine" / game
        assert shape <= {p.name for p in folder.glob("*.py")}, game
        # the words, presentation, state and options never import the rules module back
        for name in ("state.py", "options.py", "text.py", "moves.py", "audit.py"):
            path = folder / name
            if path.exists():
                source = path.read_text()
                assert not re.search(r"from \.game import|from engine\.\w+\.game import", source), path


def test_the_public_replica_imports_nothing_of_a_party() -> None:
    """``p2p/protocol.py`` (the fold every peer, replay and audit runs) holds no secret: what one
    party knows and writes lives in ``p2p/party.py`` above it, so the fold cannot tell the local
    party from the others."""
    tree = ast.parse((ROOT / "p2p" / "protocol.py").read_text())
    modules = {node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    modules |= {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    above = {"p2p.party", "p2p.node", "p2p.memtable", "p2p.recovery", "p2p.transport"}
    assert not {m for m in modules if m in above}, modules
    assert not re.search(r"^class Party\b[(:]", (ROOT / "p2p" / "protocol.py").read_text(), re.M)
