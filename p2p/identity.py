"""A player's long-term identity: an Ed25519 key, stored 0600 in the user's data directory.

Everything secret a peer needs for one game (its ElGamal key share, proof nonces, shuffle
randomness, its seal key) is derived from this key and the game id with HKDF, so a peer that
crashes recomputes exactly the same values and never signs two different things for one step.
"""

from __future__ import annotations

import base64
import hashlib
import os
from pathlib import Path

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

KEY_FILE = "identity.key"


def data_dir() -> Path:
    """Where fairdeck keeps identities and logs: ``$FAIRDECK_HOME`` or the XDG data directory."""
    if home := os.environ.get("FAIRDECK_HOME"):
        return Path(home)
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "fairdeck"


def fingerprint(public_key: bytes) -> str:
    """A short, readable fingerprint of a public key, e.g. ``"QX4T-7MRA-2KDE"``."""
    digest = base64.b32encode(hashlib.sha256(b"fairdeck-fp" + public_key).digest()).decode()
    return "-".join(digest[i : i + 4] for i in range(0, 12, 4))


def verify_signature(public_key: bytes, signature: bytes, message: bytes) -> bool:
    """True if ``signature`` is a valid Ed25519 signature of ``message`` by ``public_key``."""
    try:
        Ed25519PublicKey.from_public_bytes(public_key).verify(signature, message)
    except (InvalidSignature, ValueError, TypeError):
        return False
    return True


class Identity:
    """An Ed25519 signing key plus deterministic per-game derivations."""

    def __init__(self, private_key: Ed25519PrivateKey) -> None:
        self._key = private_key
        self.public_key: bytes = private_key.public_key().public_bytes(
            serialization.Encoding.Raw, serialization.PublicFormat.Raw
        )

    def __repr__(self) -> str:  # never show the secret
        return f"Identity({self.fingerprint})"

    @classmethod
    def generate(cls) -> Identity:
        """A fresh random identity (not stored)."""
        return cls(Ed25519PrivateKey.generate())

    @classmethod
    def from_secret(cls, secret: bytes) -> Identity:
        """The identity whose 32-byte Ed25519 seed is ``secret`` (tests, bots with fixed keys)."""
        return cls(Ed25519PrivateKey.from_private_bytes(secret))

    @classmethod
    def load_or_create(cls, directory: Path | None = None) -> Identity:
        """Load ``identity.key`` from ``directory`` (default :func:`data_dir`), creating it 0600."""
        directory = directory or data_dir()
        path = directory / KEY_FILE
        if path.exists():
            return cls.load(path)
        directory.mkdir(parents=True, exist_ok=True)
        identity = cls.generate()
        identity.save(path)
        return identity

    @classmethod
    def load(cls, path: Path) -> Identity:
        """Load a key file written by :meth:`save`; ``ValueError`` if it is not one."""
        raw = path.read_bytes()
        try:
            key = serialization.load_pem_private_key(raw, password=None)
        except (ValueError, TypeError) as exc:
            raise ValueError(f"{path} is not a fairdeck identity key") from exc
        if not isinstance(key, Ed25519PrivateKey):
            raise ValueError(f"{path} holds a key that is not Ed25519")
        return cls(key)

    def save(self, path: Path) -> None:
        """Write the key as PEM with mode 0600 (created that way, never world-readable)."""
        pem = self._key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as handle:
            handle.write(pem)
        os.chmod(path, 0o600)

    @property
    def fingerprint(self) -> str:
        """See :func:`fingerprint`."""
        return fingerprint(self.public_key)

    def sign(self, message: bytes) -> bytes:
        """An Ed25519 signature of ``message``."""
        return self._key.sign(message)

    def derive(self, label: str, context: bytes, length: int = 32) -> bytes:
        """Secret bytes for ``label`` in ``context`` (e.g. a game id), from this key via HKDF."""
        seed = self._key.private_bytes(
            serialization.Encoding.Raw, serialization.PrivateFormat.Raw, serialization.NoEncryption()
        )
        return HKDF(
            hashes.SHA256(), length, salt=b"fairdeck-v1", info=label.encode() + b"\0" + context
        ).derive(seed)
