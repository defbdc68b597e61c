"""Private show: a reveal token (or any short plaintext) encrypted from one seat to another, and
evidence of a bad seal that opens nothing else.

Keys: each seat derives a per-game seal key ``y`` (a secp256k1 scalar) from its identity secret and
the game (HKDF, one-way) and publishes ``Y = y*G`` (33 bytes, validated by everyone:
:func:`validate_seal_public`). secp256k1 has cofactor 1, so a valid point has no small-order part
that could stall or bias anything.

Sealing (ECIES with one fresh ephemeral key per sealed item):

- ``r`` is derived from the sender's seal secret, the context, the recipient key and the plaintext,
  so a crashed peer re-seals byte-identically and two items never share ``r``;
- ``R = r*G`` with a Schnorr proof of knowledge of ``r`` bound to (context, sender, recipient), so
  nobody can put someone else's ``R`` (or a public key) in a blob of their own;
- ``S = r*Y`` (the recipient computes ``y*R``), ``key, nonce = HKDF(S; R, Y, sender key, context)``,
  ChaCha20-Poly1305 with the context as associated data.

Blob layout: ``0x02 | R (33) | e (32) | s (32) | ciphertext+tag`` (211 bytes for a token).

Bad-seal evidence: the recipient publishes ``S = y*R`` for that one blob with a Chaum-Pedersen
proof that ``log_G(Y) = log_R(S)`` bound to the context, the sender and the blob. The judge checks
the proof, derives the key, decrypts and verifies the token: a blob that does not decrypt, or a
token that fails, is the sender's fault. ``S`` opens only blobs whose ephemeral key is ``R``, and
the proof of knowledge means only someone who knows ``r`` (who could compute ``S`` anyway) can
make such a blob. A blob that is malformed on its face (including a bad proof of knowledge) needs
no secret at all: the evidence is just the 4-byte header.

Evidence layout: ``b"FDE\\x02"`` then, for a well-formed blob, ``S (33) | e (32) | s (32)``.
"""

from __future__ import annotations

from typing import Any, NoReturn

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from p2p.crypto.elgamal import parse_ciphertext
from p2p.crypto.errors import CryptoError, lp, require_bytes
from p2p.crypto.group import (
    ORDER,
    POINT_SIZE,
    SCALAR_SIZE,
    Point,
    base_mul,
    derive_scalar,
    hash_to_scalar,
    lincomb,
    lincomb_base,
    parse_point,
    read_scalar,
)
from p2p.crypto.tokens import verify_token

SEAL_VERSION = 2
"""First byte of every sealed blob (1 was X25519)."""
SEAL_PUBLIC_SIZE = POINT_SIZE
"""Bytes in a published seal key."""
_TAG = 16
_PROOF = 2 * SCALAR_SIZE
_BLOB_HEAD = 1 + POINT_SIZE + _PROOF
_EVIDENCE_MAGIC = b"FDE\x02"
_EVIDENCE_SIZE = len(_EVIDENCE_MAGIC) + POINT_SIZE + 2 * SCALAR_SIZE


class SealKey:
    """A seat's per-game seal key: the secret scalar ``y`` and its public point ``Y``.

    Immutable; its repr shows only the start of the public key, and it cannot be pickled.
    """

    __slots__ = ("_y", "_public")
    _y: int
    _public: Point

    def __init__(self, y: int) -> None:
        if not isinstance(y, int) or isinstance(y, bool) or not 0 < y < ORDER:
            raise CryptoError("seal key must be a scalar in [1, n)")
        object.__setattr__(self, "_y", y)
        object.__setattr__(self, "_public", base_mul(y))

    def public_bytes(self) -> bytes:
        """The 33-byte public key ``Y``."""
        return self._public.to_bytes()

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("SealKey is immutable")

    def __delattr__(self, name: str) -> None:
        raise AttributeError("SealKey is immutable")

    def __reduce__(self) -> NoReturn:
        raise TypeError("a seal key is not pickled")

    def __copy__(self) -> SealKey:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> SealKey:
        return self

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SealKey) and self._public == other._public

    def __hash__(self) -> int:
        return hash(self._public)

    def __repr__(self) -> str:
        return f"SealKey(public={self._public.to_bytes()[:6].hex()}…)"


def derive_seal_key(secret: bytes, context: bytes) -> SealKey:
    """The per-game seal key of a seat, derived from its identity ``secret`` and ``context``."""
    require_bytes(context, "context")
    return SealKey(derive_scalar(secret, "seal-key", context))


def seal_public(key: SealKey) -> bytes:
    """The 33-byte public half of a seal key, to publish (e.g. in the key-share entry)."""
    return _own(key).public_bytes()


def validate_seal_public(blob: bytes) -> None:
    """Raise CryptoError unless ``blob`` is a valid seal public key (33-byte point, not the identity)."""
    parse_point(require_bytes(blob, "seal public key"), "seal public key")


def seal(plaintext: bytes, sender_key: SealKey, recipient_public: bytes, context: bytes) -> bytes:
    """Encrypt ``plaintext`` (a token or any short bytes) to the holder of ``recipient_public``."""
    require_bytes(plaintext, "sealed plaintext")
    require_bytes(context, "context")
    key = _own(sender_key)
    recipient = parse_point(require_bytes(recipient_public, "recipient seal key"), "recipient seal key")
    sender_public = key.public_bytes()
    secret = key._y.to_bytes(SCALAR_SIZE, "big")
    r = derive_scalar(secret, "seal-ephemeral", lp(context, recipient_public, plaintext))
    big_r = base_mul(r)
    # Schnorr proof of knowledge of r, bound to who seals to whom for which step
    k = derive_scalar(r.to_bytes(SCALAR_SIZE, "big"), "seal-ephemeral-nonce", lp(context, recipient_public))
    e = _pok_challenge(context, sender_public, recipient_public, big_r, base_mul(k))
    s = (k + e * r) % ORDER
    shared = recipient.mul_secret(r)
    aead, nonce = _aead(shared, big_r, recipient_public, sender_public, context)
    return b"".join(
        [
            bytes([SEAL_VERSION]),
            big_r.to_bytes(),
            e.to_bytes(SCALAR_SIZE, "big"),
            s.to_bytes(SCALAR_SIZE, "big"),
            aead.encrypt(nonce, plaintext, lp("seal", context)),
        ]
    )


def unseal(blob: bytes, recipient_key: SealKey, sender_public: bytes, context: bytes) -> bytes:
    """Decrypt a sealed blob; CryptoError if it is malformed or does not decrypt with these keys."""
    require_bytes(context, "context")
    key = _own(recipient_key)
    parse_point(require_bytes(sender_public, "sender seal key"), "sender seal key")
    big_r = _parse_blob(blob, sender_public, key.public_bytes(), context)
    shared = big_r.mul_secret(key._y)
    return _decrypt(blob, shared, big_r, key.public_bytes(), sender_public, context)


def bad_seal_evidence(blob: bytes, recipient_key: SealKey, sender_public: bytes, context: bytes) -> bytes:
    """Evidence that ``blob`` is bad, publishable by its recipient; it opens this blob and no other.

    For a blob that is malformed on its face it is the bare header (nothing secret is needed);
    otherwise the shared point ``S = y*R`` of this blob with a proof that it is correct.
    """
    require_bytes(context, "context")
    key = _own(recipient_key)
    parse_point(require_bytes(sender_public, "sender seal key"), "sender seal key")
    try:
        big_r = _parse_blob(blob, sender_public, key.public_bytes(), context)
    except CryptoError:
        return _EVIDENCE_MAGIC
    shared = big_r.mul_secret(key._y)
    y_bytes = key._y.to_bytes(SCALAR_SIZE, "big")
    k = derive_scalar(y_bytes, "seal-evidence-nonce", lp(context, sender_public, blob))
    a1, a2 = base_mul(k), big_r.mul_secret(k)
    e = _evidence_challenge(context, sender_public, key.public_bytes(), blob, shared, a1, a2)
    s = (k + e * key._y) % ORDER
    return b"".join(
        [_EVIDENCE_MAGIC, shared.to_bytes(), e.to_bytes(SCALAR_SIZE, "big"), s.to_bytes(SCALAR_SIZE, "big")]
    )


def verify_bad_seal_evidence(
    evidence: bytes,
    blob: bytes,
    sender_seal_public: bytes,
    accuser_seal_public: bytes,
    sender_share: Point,
    ciphertext: bytes,
    context: bytes,
) -> str | None:
    """Judge a bad-seal accusation: the reason the sender is at fault, or None if the seal is fine.

    ``sender_seal_public`` and ``accuser_seal_public`` are the seal keys of the sender and of the
    recipient that the log names for ``blob``; ``context`` is the seal's context.

    Raises CryptoError if an input taken from the log is malformed, or if the evidence itself is
    malformed or does not prove the shared point (then the accuser, not the sender, is at fault).
    """
    require_bytes(evidence, "evidence")
    require_bytes(blob, "sealed token")
    require_bytes(context, "context")
    # inputs taken from the log by the judge are checked first: a malformed one is not the sender's fault
    if not isinstance(sender_share, Point):
        raise CryptoError("sender share must be a Point")
    parse_ciphertext(ciphertext)
    parse_point(require_bytes(sender_seal_public, "sender seal key"), "sender seal key")
    accuser = parse_point(require_bytes(accuser_seal_public, "accuser seal key"), "accuser seal key")
    if not evidence.startswith(_EVIDENCE_MAGIC):
        raise CryptoError("bad-seal evidence malformed: bad header")
    try:
        big_r = _parse_blob(blob, sender_seal_public, accuser_seal_public, context)
    except CryptoError as exc:
        return str(exc)
    if len(evidence) != _EVIDENCE_SIZE:
        raise CryptoError(
            f"bad-seal evidence malformed: {len(evidence)} bytes, a well-formed sealed token needs "
            f"{_EVIDENCE_SIZE}"
        )
    pos = len(_EVIDENCE_MAGIC)
    shared = parse_point(evidence[pos : pos + POINT_SIZE], "bad-seal evidence shared point")
    pos += POINT_SIZE
    e = read_scalar(evidence[pos : pos + SCALAR_SIZE], "bad-seal evidence challenge")
    s = read_scalar(evidence[pos + SCALAR_SIZE :], "bad-seal evidence response")
    try:
        a1 = lincomb_base(s, ORDER - e, accuser)
        a2 = lincomb(s, big_r, ORDER - e, shared)
    except CryptoError:
        raise CryptoError("bad-seal evidence proof invalid") from None
    if _evidence_challenge(context, sender_seal_public, accuser_seal_public, blob, shared, a1, a2) != e:
        raise CryptoError("bad-seal evidence proof invalid (not the accuser's key or not this sealed token)")
    try:
        token = _decrypt(blob, shared, big_r, accuser_seal_public, sender_seal_public, context)
    except CryptoError as exc:
        return str(exc)
    try:
        verify_token(sender_share, ciphertext, token, context)
    except CryptoError as exc:
        return f"sealed token is bad: {exc}"
    return None


# ---------------------------------------------------------------------------------------------
# internals
# ---------------------------------------------------------------------------------------------


def _own(key: object) -> SealKey:
    if not isinstance(key, SealKey):
        raise CryptoError("seal key must be a SealKey (from derive_seal_key)")
    return key


def _parse_blob(blob: bytes, sender_public: bytes, recipient_public: bytes, context: bytes) -> Point:
    """Check a blob's shape and its proof of knowledge of r; return R. Errors say "malformed"."""
    require_bytes(blob, "sealed token")
    if len(blob) < _BLOB_HEAD + _TAG or blob[0] != SEAL_VERSION:
        raise CryptoError("sealed token malformed")
    try:
        big_r = parse_point(blob[1 : 1 + POINT_SIZE], "ephemeral key")
        e = read_scalar(blob[1 + POINT_SIZE : 1 + POINT_SIZE + SCALAR_SIZE], "ephemeral key proof")
        s = read_scalar(blob[1 + POINT_SIZE + SCALAR_SIZE : _BLOB_HEAD], "ephemeral key proof")
        commitment = lincomb_base(s, ORDER - e, big_r)
    except CryptoError as exc:
        raise CryptoError(f"sealed token malformed: {exc}") from None
    if _pok_challenge(context, sender_public, recipient_public, big_r, commitment) != e:
        raise CryptoError(
            "sealed token malformed: ephemeral key proof invalid (not sealed by this sender to this "
            "recipient for this context)"
        )
    return big_r


def _decrypt(
    blob: bytes, shared: Point, big_r: Point, recipient_public: bytes, sender_public: bytes, context: bytes
) -> bytes:
    aead, nonce = _aead(shared, big_r, recipient_public, sender_public, context)
    try:
        return aead.decrypt(nonce, blob[_BLOB_HEAD:], lp("seal", context))
    except InvalidTag:
        raise CryptoError("sealed token does not decrypt (wrong keys or context, or tampered)") from None


def _aead(
    shared: Point, big_r: Point, recipient_public: bytes, sender_public: bytes, context: bytes
) -> tuple[ChaCha20Poly1305, bytes]:
    """The AEAD and nonce of one blob: HKDF over its shared point, R, both keys and the context."""
    okm = HKDF(
        hashes.SHA256(),
        32 + 12,
        b"fairdeck/v1/seal-ecies",
        lp(big_r.to_bytes(), recipient_public, sender_public, context),
    ).derive(shared.to_bytes())
    return ChaCha20Poly1305(okm[:32]), okm[32:]


def _pok_challenge(
    context: bytes, sender_public: bytes, recipient_public: bytes, big_r: Point, commitment: Point
) -> int:
    return hash_to_scalar(
        "seal-ephemeral", context, sender_public, recipient_public, big_r.to_bytes(), commitment.to_bytes()
    )


def _evidence_challenge(
    context: bytes,
    sender_public: bytes,
    accuser_public: bytes,
    blob: bytes,
    shared: Point,
    a1: Point,
    a2: Point,
) -> int:
    return hash_to_scalar(
        "seal-evidence",
        context,
        sender_public,
        accuser_public,
        blob,
        shared.to_bytes(),
        a1.to_bytes(),
        a2.to_bytes(),
    )
