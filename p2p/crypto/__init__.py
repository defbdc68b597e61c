"""Fair dealing: mental-poker cryptography over secp256k1 (see docs/crypto.md).

Barnett-Smart style: seats publish key shares with Schnorr proofs; cards are ElGamal ciphertexts
under the sum of the shares; each seat shuffles piles with a Terelius-Wikström proof (``wt``; the
older cut-and-choose proof stays in ``shuffle``); a card opens with every seat's reveal token (each
with a Chaum-Pedersen proof); a token can be sealed to one seat (ECIES over secp256k1 with
ChaCha20-Poly1305); commit-reveal covers simultaneous choices and joint randomness.

All wire values are bytes; everything from outside is validated and bad input raises
:class:`CryptoError` saying what failed. Every function is deterministic in its secret inputs.
"""

from p2p.crypto.commit import commit, joint_random, verify_opening
from p2p.crypto.elgamal import (
    CIPHERTEXT_SIZE,
    encrypt,
    open_ciphertext,
    parse_ciphertext,
    token_point,
    unmask,
)
from p2p.crypto.errors import CryptoError, make_context
from p2p.crypto.group import (
    GENERATOR,
    ORDER,
    POINT_SIZE,
    CardCodec,
    Point,
    base_mul,
    card_point,
    derive_scalar,
)
from p2p.crypto.keys import KEY_SHARE_SIZE, make_key_share, table_key, verify_key_share
from p2p.crypto.seal import (
    SEAL_PUBLIC_SIZE,
    SealKey,
    bad_seal_evidence,
    derive_seal_key,
    seal,
    seal_public,
    unseal,
    validate_seal_public,
    verify_bad_seal_evidence,
)
from p2p.crypto.shuffle import DEFAULT_SHUFFLE_ROUNDS, MAX_SHUFFLE_ROUNDS, shuffle_pile, verify_shuffle
from p2p.crypto.tokens import TOKEN_SIZE, reveal_token, verify_token
from p2p.crypto.wt import shuffle_pile_wt, verify_shuffle_wt

__all__ = [
    "CIPHERTEXT_SIZE",
    "DEFAULT_SHUFFLE_ROUNDS",
    "GENERATOR",
    "KEY_SHARE_SIZE",
    "MAX_SHUFFLE_ROUNDS",
    "ORDER",
    "POINT_SIZE",
    "SEAL_PUBLIC_SIZE",
    "TOKEN_SIZE",
    "CardCodec",
    "CryptoError",
    "Point",
    "SealKey",
    "bad_seal_evidence",
    "base_mul",
    "card_point",
    "commit",
    "derive_scalar",
    "derive_seal_key",
    "encrypt",
    "joint_random",
    "make_context",
    "make_key_share",
    "open_ciphertext",
    "parse_ciphertext",
    "reveal_token",
    "seal",
    "seal_public",
    "shuffle_pile",
    "shuffle_pile_wt",
    "table_key",
    "token_point",
    "unmask",
    "unseal",
    "validate_seal_public",
    "verify_bad_seal_evidence",
    "verify_key_share",
    "verify_opening",
    "verify_shuffle",
    "verify_shuffle_wt",
    "verify_token",
]
