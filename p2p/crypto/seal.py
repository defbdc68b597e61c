"""Private show: a reveal token encrypted from one seat to another, and evidence when it is bad.

Keys: each seat derives a per-game X25519 key from its identity secret (HKDF, one-way, so the
per-game key reveals nothing about the identity). Sealing: X25519 between the sender's and the
recipient's per-game keys, HKDF-SHA256 over the shared secret, the context and both public keys
gives an encryption key and a nonce key; the nonce is ``HMAC(nonce key, token)[:12]`` (synthetic
IV), so sealing is deterministic (a crashed peer reproduces the same blob) and two different tokens
under one context still never share a nonce. ChaCha20-Poly1305 with the context as associated data.

Blob layout: ``0x01 | nonce (12) | ciphertext+tag``.

Bad-seal evidence: the recipient publishes its *per-game* seal private key (never its identity
key). Anyone can then check that it matches the recipient's published seal key, redo the key
agreement, decrypt the blob and verify the token proof: a blob that does not decrypt, or a token
that fails, is the sender's fault (the sender signed the blob). The cost of the evidence is that
every token sealed *to* the recipient in this game becomes readable; it is only published when
the game stops for that fault. X25519 offers no proof of a correct shared secret in
``cryptography``, which is why the key itself is disclosed rather than one shared secret.
"""

from __future__ import annotations

import hmac

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from p2p.crypto.elgamal import parse_ciphertext
from p2p.crypto.errors import CryptoError, lp, require_bytes
from p2p.crypto.group import Point
from p2p.crypto.tokens import verify_token

SEAL_VERSION = 1
"""First byte of every sealed blob."""
_NONCE = 12
_EVIDENCE_MAGIC = b"FDE\x01"
_RAW = serialization.Encoding.Raw


def derive_seal_key(secret: bytes, context: bytes) -> X25519PrivateKey:
    """The per-game X25519 key of a seat, derived from its identity ``secret`` and ``context``."""
    if not isinstance(secret, bytes) or len(secret) < 16:
        raise CryptoError("secret must be at least 16 bytes")
    require_bytes(context, "context")
    raw = HKDF(hashes.SHA256(), 32, b"fairdeck/v1/seal-key", lp(context)).derive(secret)
    return X25519PrivateKey.from_private_bytes(raw)


def seal_public(key: X25519PrivateKey) -> bytes:
    """The 32-byte public half of a seal key, to publish (e.g. in the genesis or a setup entry)."""
    if not isinstance(key, X25519PrivateKey):
        raise CryptoError("seal key must be an X25519PrivateKey")
    return key.public_key().public_bytes(_RAW, serialization.PublicFormat.Raw)


def validate_seal_public(data: bytes) -> None:
    """Refuse a published seal key that no one could seal to (malformed or of small order)."""
    public = _public_key(data, "seal key")
    probe = X25519PrivateKey.from_private_bytes(bytes(range(1, 33)))
    try:
        probe.exchange(public)
    except ValueError:
        raise CryptoError("seal key is a small-order point") from None


def seal(token: bytes, sender: X25519PrivateKey, recipient_public: bytes, context: bytes) -> bytes:
    """Encrypt ``token`` from ``sender`` to the holder of ``recipient_public``, bound to ``context``."""
    require_bytes(token, "token")
    aead, nonce_key = _keys(sender, seal_public(sender), recipient_public, True, context)
    nonce = hmac.new(nonce_key, token, "sha256").digest()[:_NONCE]
    return bytes([SEAL_VERSION]) + nonce + aead.encrypt(nonce, token, lp("seal", context))


def unseal(blob: bytes, recipient: X25519PrivateKey, sender_public: bytes, context: bytes) -> bytes:
    """Decrypt a sealed token; CryptoError if it does not decrypt with these keys and context."""
    require_bytes(blob, "sealed token")
    aead, nonce_key = _keys(recipient, sender_public, seal_public(recipient), False, context)
    if len(blob) < 1 + _NONCE + 16 or blob[0] != SEAL_VERSION:
        raise CryptoError("sealed token malformed")
    nonce = blob[1 : 1 + _NONCE]
    try:
        token = aead.decrypt(nonce, blob[1 + _NONCE :], lp("seal", context))
    except InvalidTag:
        raise CryptoError("sealed token does not decrypt (wrong keys or context, or tampered)") from None
    if not hmac.compare_digest(nonce, hmac.new(nonce_key, token, "sha256").digest()[:_NONCE]):
        raise CryptoError("sealed token nonce is not the deterministic one")
    return token


def bad_seal_evidence(
    blob: bytes, recipient: X25519PrivateKey, sender_public: bytes, context: bytes
) -> bytes:
    """Evidence that ``blob`` is bad, publishable by the recipient: its per-game seal key.

    See the module docstring for what this discloses. ``blob``, ``sender_public`` and ``context``
    are checked for shape so that evidence is only produced for a well-formed accusation.
    """
    require_bytes(blob, "sealed token")
    require_bytes(context, "context")
    _public_key(sender_public, "sender seal key")
    if not isinstance(recipient, X25519PrivateKey):
        raise CryptoError("seal key must be an X25519PrivateKey")
    raw = recipient.private_bytes(_RAW, serialization.PrivateFormat.Raw, serialization.NoEncryption())
    return _EVIDENCE_MAGIC + raw


def verify_bad_seal_evidence(
    evidence: bytes,
    blob: bytes,
    sender_public: bytes,
    recipient_public: bytes,
    sender_share: Point,
    ciphertext: bytes,
    context: bytes,
) -> str | None:
    """Judge a bad-seal accusation: the reason the sender is at fault, or None if the seal is fine.

    Raises CryptoError if the evidence itself is malformed or is not the recipient's seal key
    (then the accuser, not the sender, is at fault).
    """
    require_bytes(evidence, "evidence")
    # inputs taken from the log by the judge are checked first: a malformed one is not the sender's fault
    if not isinstance(sender_share, Point):
        raise CryptoError("sender share must be a Point")
    parse_ciphertext(ciphertext)
    if len(evidence) != len(_EVIDENCE_MAGIC) + 32 or not evidence.startswith(_EVIDENCE_MAGIC):
        raise CryptoError("bad-seal evidence malformed")
    key = X25519PrivateKey.from_private_bytes(evidence[len(_EVIDENCE_MAGIC) :])
    _public_key(recipient_public, "recipient seal key")
    if not hmac.compare_digest(seal_public(key), recipient_public):
        raise CryptoError("bad-seal evidence does not match the recipient's seal key")
    try:
        token = unseal(blob, key, sender_public, context)
    except CryptoError as exc:
        return f"sealed token is bad: {exc}"
    try:
        verify_token(sender_share, ciphertext, token, context)
    except CryptoError as exc:
        return f"sealed token is bad: {exc}"
    return None


def _public_key(data: bytes, what: str) -> X25519PublicKey:
    require_bytes(data, what)
    if len(data) != 32:
        raise CryptoError(f"{what} must be 32 bytes, got {len(data)}")
    return X25519PublicKey.from_public_bytes(data)


def _keys(
    own: X25519PrivateKey, sender_public: bytes, recipient_public: bytes, own_is_sender: bool, context: bytes
) -> tuple[ChaCha20Poly1305, bytes]:
    """AEAD and nonce key for the (sender, recipient, context) triple, from either side."""
    if not isinstance(own, X25519PrivateKey):
        raise CryptoError("seal key must be an X25519PrivateKey")
    require_bytes(context, "context")
    sender = _public_key(sender_public, "sender seal key")
    recipient = _public_key(recipient_public, "recipient seal key")
    peer, peer_name = (recipient, "recipient") if own_is_sender else (sender, "sender")
    try:
        shared = own.exchange(peer)
    except ValueError:
        raise CryptoError(f"{peer_name} seal key is a low-order point") from None
    okm = HKDF(hashes.SHA256(), 64, b"fairdeck/v1/seal", lp(context, sender_public, recipient_public)).derive(
        shared
    )
    return ChaCha20Poly1305(okm[:32]), okm[32:]
