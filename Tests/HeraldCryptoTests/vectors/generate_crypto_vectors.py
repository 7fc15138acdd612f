#!/usr/bin/env python3
"""Writes crypto.json next to this script: cross-implementation vectors for HeraldCrypto.

Every value comes from libraries independent of Herald:
  * Keccak-256: eth-hash with the pycryptodome backend (Ethereum's Keccak, padding 0x01)
  * SHAKE-256: Python's hashlib (OpenSSL), cross-checked against pycryptodome
  * secp256k1 keys, recoverable signatures, point multiplication: coincurve (libsecp256k1)
  * AES-256-GCM and AES-128-CTR: pycryptodome
  * PBKDF2-HMAC-SHA-256, SHA-256, HMAC: Python's hashlib / hmac
  * ECIES: written below from go-ethereum's crypto/ecies (Encrypt/Decrypt, concatKDF, messageTag), with nothing
    taken from Herald.

Install:  pip install coincurve pycryptodome "eth-hash[pycryptodome]"
Run:      python3 generate_crypto_vectors.py [output.json]
The output is deterministic: "random" inputs come from SHA-256 of fixed labels.
"""

import hashlib
import hmac
import json
import os
import sys

from coincurve import PrivateKey, PublicKey
from Crypto.Cipher import AES
from Crypto.Hash import SHAKE256
from Crypto.Util import Counter
from eth_hash.auto import keccak

N = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141
RATE = 136


def det_bytes(label, count):
    """Deterministic pseudo-random bytes for a label."""
    out = b""
    counter = 0
    while len(out) < count:
        out += hashlib.sha256(f"{label}/{counter}".encode()).digest()
        counter += 1
    return out[:count]


def det_private_key(label):
    while True:
        candidate = det_bytes(label, 32)
        if 0 < int.from_bytes(candidate, "big") < N:
            return candidate
        label += "'"


def shake256(data, length=64):
    value = hashlib.shake_256(data).digest(length)
    assert value == SHAKE256.new(data).read(length)
    return value


# ---------------------------------------------------------------------------------------------------------------
# Hashes

def hash_inputs():
    """(name, spec, bytes) where spec is how the Swift side rebuilds the input."""
    cases = []

    def explicit(name, data):
        cases.append((name, {"input": data.hex()}, data))

    def repeated(name, byte, count):
        cases.append((name, {"repeat": f"{byte:02x}", "count": count}, bytes([byte]) * count))

    explicit("empty", b"")
    explicit("abc", b"abc")
    explicit("quick brown fox", b"The quick brown fox jumps over the lazy dog")
    explicit("448-bit NIST message", b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")
    repeated("200 bytes of a3 (NIST 1600-bit)", 0xA3, 200)
    for length in (1, 7, 8, 9, 63, 64, 65, RATE - 2, RATE - 1, RATE, RATE + 1, 2 * RATE - 1, 2 * RATE,
                   2 * RATE + 1, 3 * RATE + 5):
        explicit(f"{length} counting bytes", bytes(i % 256 for i in range(length)))
    explicit("1000 pseudo-random bytes", det_bytes("hash-1000", 1000))
    explicit("compressed public key of 1", PrivateKey.from_int(1).public_key.format(compressed=True))
    repeated("1,000,000 times a", 0x61, 1_000_000)
    return cases


def keccak256_vectors():
    vectors = []
    for name, spec, data in hash_inputs():
        vectors.append(dict(spec, name=name, digest=keccak(data).hex()))
    # Published values (Keccak team / Ethereum): the generator refuses to run if the library disagrees.
    assert keccak(b"").hex() == "c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470"
    assert keccak(b"abc").hex() == "4e03657aea45a94fc7d47ba826c8d667c0d1e6e33a64a036ec44f58fa12d6c45"
    return vectors


def shake256_vectors():
    vectors = []
    for name, spec, data in hash_inputs():
        vectors.append(dict(spec, name=name, output=shake256(data).hex()))
    # Longer outputs cross the rate while squeezing.
    for length in (1, 32, RATE - 1, RATE, RATE + 1, 300):
        vectors.append({"name": f"abc, {length}-byte output", "input": b"abc".hex(),
                        "outputLength": length, "output": shake256(b"abc", length).hex()})
    assert shake256(b"").hex() == (
        "46b9dd2b0ba88d13233b3feb743eeb243fcd52ea62b81b82b50c27646ed5762f"
        "d75dc4ddd8c0f200cb05019d67b592f6fc821c49479ab48640292eacb3b7c4be")
    return vectors


# ---------------------------------------------------------------------------------------------------------------
# secp256k1

def key_labels():
    return ["one", "two", "three", "n-1", "random-a", "random-b", "random-c", "random-d"]


def private_key_bytes(label):
    fixed = {"one": 1, "two": 2, "three": 3, "n-1": N - 1}
    if label in fixed:
        return fixed[label].to_bytes(32, "big")
    return det_private_key(label)


def key_vectors():
    vectors = []
    for label in key_labels():
        secret = private_key_bytes(label)
        public = PrivateKey(secret).public_key
        vectors.append({"name": label, "private": secret.hex(),
                        "compressed": public.format(compressed=True).hex(),
                        "uncompressed": public.format(compressed=False).hex()})
    return vectors


def signature_vectors():
    vectors = []
    # The Status grant vector (status.md §12): client key 1, digest over client ‖ server ‖ access token.
    client = PrivateKey.from_int(1)
    server = PrivateKey.from_int(2)
    grant_digest = keccak(client.public_key.format() + server.public_key.format()
                          + b"b6ae4fde-bb65-11ea-b3de-0242ac130004")
    cases = [("status grant", client.secret, grant_digest)]
    for index, label in enumerate(key_labels()):
        cases.append((f"{label} over keccak of message {index}", private_key_bytes(label),
                      keccak(f"message {index}".encode())))
    cases.append(("random-a over all-zero digest", private_key_bytes("random-a"), bytes(32)))
    cases.append(("random-b over all-ff digest", private_key_bytes("random-b"), b"\xff" * 32))
    for name, secret, digest in cases:
        key = PrivateKey(secret)
        # coincurve's sign_recoverable returns R(32) ‖ S(32) ‖ V(1), V in 0..3; hasher=None signs the digest as is.
        signature = key.sign_recoverable(digest, hasher=None)
        assert len(signature) == 65 and signature[64] in (0, 1)
        s = int.from_bytes(signature[32:64], "big")
        assert s <= N // 2, "libsecp256k1 signs low-S"
        recovered = PublicKey.from_signature_and_message(signature, digest, hasher=None)
        assert recovered.format() == key.public_key.format()
        # The same signature with S negated and V flipped is the high-S twin: it recovers the same key.
        high_s = signature[:32] + (N - s).to_bytes(32, "big") + bytes([signature[64] ^ 1])
        assert PublicKey.from_signature_and_message(high_s, digest, hasher=None).format() == key.public_key.format()
        vectors.append({"name": name, "private": secret.hex(), "digest": digest.hex(), "signature": signature.hex(),
                        "highS": high_s.hex(), "uncompressed": key.public_key.format(compressed=False).hex()})
    return vectors


def ecdh_x(secret, public_bytes):
    """X of secret · public, 32 bytes big-endian, by coincurve's point multiplication (no hashing)."""
    point = PublicKey(public_bytes).multiply(secret)
    return point.format(compressed=False)[1:33]


def ecdh_vectors():
    vectors = []
    labels = key_labels()
    for a, b in [("one", "two"), ("one", "three"), ("two", "three"), ("n-1", "random-a"),
                 ("random-a", "random-b"), ("random-c", "random-d"), ("random-b", "random-b")]:
        secret_a, secret_b = private_key_bytes(a), private_key_bytes(b)
        public_b = PrivateKey(secret_b).public_key.format(compressed=True)
        shared = ecdh_x(secret_a, public_b)
        assert shared == ecdh_x(secret_b, PrivateKey(secret_a).public_key.format())
        vectors.append({"name": f"{a} · {b}", "private": secret_a.hex(), "public": public_b.hex(),
                        "otherPrivate": secret_b.hex(), "shared": shared.hex()})
    assert labels
    return vectors


# ---------------------------------------------------------------------------------------------------------------
# Symmetric

def aes_gcm_vectors():
    vectors = []
    shared = ecdh_x((1).to_bytes(32, "big"), PrivateKey.from_int(2).public_key.format())
    cases = [("status registration vector", shared, bytes(range(12)), bytes.fromhex("0801"))]
    for length in (0, 1, 15, 16, 17, 100, 1000):
        cases.append((f"{length}-byte plaintext", det_bytes(f"gcm-key-{length}", 32),
                      det_bytes(f"gcm-nonce-{length}", 12), det_bytes(f"gcm-plaintext-{length}", length)))
    cases.append(("16-byte key", det_bytes("gcm-key-128", 16), det_bytes("gcm-nonce-128", 12), b"AES-128-GCM"))
    for name, key, nonce, plaintext in cases:
        cipher = AES.new(key, AES.MODE_GCM, nonce=nonce, mac_len=16)
        ciphertext, tag = cipher.encrypt_and_digest(plaintext)
        vectors.append({"name": name, "key": key.hex(), "nonce": nonce.hex(), "plaintext": plaintext.hex(),
                        "frame": (nonce + ciphertext + tag).hex()})
    assert vectors[0]["frame"] == "000102030405060708090a0bb275704e2ca849b204f17ae0f215726c8721", "status.md §12"
    return vectors


def pbkdf2_vectors():
    vectors = []
    status_topic = shake256(PrivateKey.from_int(1).public_key.format()).hex()
    for name in [status_topic, "contact-discovery-1597", "status", "", "ümlaut topic ✓"]:
        key = hashlib.pbkdf2_hmac("sha256", name.encode("utf-8"), b"", 65356, 32)
        vectors.append({"topicName": name, "key": key.hex()})
    assert vectors[0]["key"] == "c97e4b363d05f6d8fec0d7ea3e4c51cc229e98f32a6cbcb50ecd74eb06c02771", "status.md §12"
    return vectors


# ---------------------------------------------------------------------------------------------------------------
# ECIES, go-ethereum crypto/ecies with ECIES_AES128_SHA256 and s1 = s2 = empty

def ecies_encrypt(recipient_public, message, ephemeral_secret, iv):
    # GenerateShared(pub, 16, 16): X of r · pub, left-padded to 32 bytes.
    z = ecdh_x(ephemeral_secret, recipient_public)
    # concatKDF(sha256, z, s1 = empty, 32): one round with the 4-byte big-endian counter 1.
    k = hashlib.sha256(b"\x00\x00\x00\x01" + z).digest()
    ke, km = k[:16], hashlib.sha256(k[16:32]).digest()
    # symEncrypt: AES-128 with Go's cipher.NewCTR, the IV being the whole 128-bit big-endian counter block.
    counter = Counter.new(128, initial_value=int.from_bytes(iv, "big"))
    em = iv + AES.new(ke, AES.MODE_CTR, counter=counter).encrypt(message)
    # messageTag: HMAC-SHA-256 keyed with Km over em ‖ s2.
    d = hmac.new(km, em, hashlib.sha256).digest()
    r = PrivateKey(ephemeral_secret).public_key.format(compressed=False)
    return r + em + d


def ecies_decrypt(recipient_secret, ciphertext):
    r, em, d = ciphertext[:65], ciphertext[65:-32], ciphertext[-32:]
    z = ecdh_x(recipient_secret, r)
    k = hashlib.sha256(b"\x00\x00\x00\x01" + z).digest()
    ke, km = k[:16], hashlib.sha256(k[16:32]).digest()
    assert hmac.compare_digest(hmac.new(km, em, hashlib.sha256).digest(), d)
    counter = Counter.new(128, initial_value=int.from_bytes(em[:16], "big"))
    return AES.new(ke, AES.MODE_CTR, counter=counter).decrypt(em[16:])


def ecies_vectors():
    vectors = []
    cases = [("short message", "random-a", b"hello, world!", None)]
    for length in (0, 1, 16, 17, 256, 1000):
        cases.append((f"{length}-byte message", "random-b" if length % 2 else "random-c",
                      det_bytes(f"ecies-message-{length}", length), None))
    # An IV of all ff bytes: the CTR counter wraps all 128 bits to zero after the first block.
    cases.append(("IV wraps around", "random-d", det_bytes("ecies-wrap", 40), b"\xff" * 16))
    cases.append(("IV carries across 64 bits", "random-d", det_bytes("ecies-carry", 40),
                  b"\x00" * 8 + b"\xff" * 8))
    for name, recipient_label, message, fixed_iv in cases:
        recipient = private_key_bytes(recipient_label)
        ephemeral = det_private_key(f"ecies-ephemeral-{name}")
        iv = fixed_iv if fixed_iv is not None else det_bytes(f"ecies-iv-{name}", 16)
        recipient_public = PrivateKey(recipient).public_key.format(compressed=False)
        ciphertext = ecies_encrypt(recipient_public, message, ephemeral, iv)
        assert len(ciphertext) == 113 + len(message)
        assert ecies_decrypt(recipient, ciphertext) == message
        vectors.append({"name": name, "recipientPrivate": recipient.hex(), "recipientPublic": recipient_public.hex(),
                        "ephemeralPrivate": ephemeral.hex(), "iv": iv.hex(), "message": message.hex(),
                        "ciphertext": ciphertext.hex()})
    return vectors


def main():
    document = {
        "comment": "Generated by generate_crypto_vectors.py; do not edit by hand.",
        "keccak256": keccak256_vectors(),
        "shake256": shake256_vectors(),
        "keys": key_vectors(),
        "signatures": signature_vectors(),
        "ecdh": ecdh_vectors(),
        "aesGCM": aes_gcm_vectors(),
        "pbkdf2": pbkdf2_vectors(),
        "ecies": ecies_vectors(),
    }
    # An explicit path lets the test command regenerate into a scratch file and compare.
    path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "crypto.json")
    with open(path, "w", encoding="utf-8") as out:
        json.dump(document, out, indent=1, ensure_ascii=False)
        out.write("\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
