#!/usr/bin/env python3
"""DIDComm v1 encryption envelopes (Aries RFC 0019) with PyNaCl, sharing no code with Herald:
the independent side of Herald's envelope tests.

Usage:
  didcomm_v1.py vectors OUTPUT.json      deterministic vectors (fixed keys, nonces and ephemeral
                                         keys), committed and compared by scripts/check-vectors.sh
  didcomm_v1.py pack INPUT.json OUTPUT.json     INPUT: [{message, recipient, sender_seed|null}]
  didcomm_v1.py unpack INPUT.json OUTPUT.json   INPUT: [{envelope, seed}] -> [{message, sender}]

Seeds and messages are hex; verkeys base58; envelopes JSON text.
"""
import base64
import json
import sys

import base58
import nacl.bindings
import nacl.hash
import nacl.public
import nacl.signing
import nacl.utils


def b64(data):
    return base64.urlsafe_b64encode(data).decode()


def unb64(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def agent(seed):
    signing = nacl.signing.SigningKey(seed)
    return {
        "verkey": base58.b58encode(bytes(signing.verify_key)).decode(),
        "curve_public": bytes(signing.verify_key.to_curve25519_public_key()),
        "curve_secret": bytes(signing.to_curve25519_private_key()),
    }


def curve_of(verkey):
    return bytes(nacl.signing.VerifyKey(base58.b58decode(verkey)).to_curve25519_public_key())


def seal(message, curve_public, ephemeral_seed=None):
    """crypto_box_seal; with a fixed ephemeral key (vectors) built from crypto_box and BLAKE2b."""
    if ephemeral_seed is None:
        return nacl.public.SealedBox(nacl.public.PublicKey(curve_public)).encrypt(message)
    ephemeral = nacl.public.PrivateKey(ephemeral_seed)
    nonce = nacl.hash.blake2b(bytes(ephemeral.public_key) + curve_public, digest_size=24, encoder=nacl.encoding.RawEncoder)
    return bytes(ephemeral.public_key) + nacl.bindings.crypto_box(message, nonce, curve_public, bytes(ephemeral))


def seal_open(sealed, me):
    return nacl.public.SealedBox(nacl.public.PrivateKey(me["curve_secret"])).decrypt(sealed)


def content_seal(message, aad, iv, cek):
    """The content AEAD by the iv's length: wallets (RFC 0019, ACA-Py, Credo) use 12-byte
    ChaCha20-Poly1305 IETF under the label xchacha20poly1305_ietf; only XChaCha20 takes 24."""
    if len(iv) == 12:
        return nacl.bindings.crypto_aead_chacha20poly1305_ietf_encrypt(message, aad, iv, cek)
    return nacl.bindings.crypto_aead_xchacha20poly1305_ietf_encrypt(message, aad, iv, cek)


def content_open(sealed, aad, iv, cek):
    if len(iv) == 12:
        return nacl.bindings.crypto_aead_chacha20poly1305_ietf_decrypt(sealed, aad, iv, cek)
    return nacl.bindings.crypto_aead_xchacha20poly1305_ietf_decrypt(sealed, aad, iv, cek)


def pack(message, recipient, sender_seed=None, cek=None, iv=None, box_nonce=None, ephemeral=None):
    cek = cek or nacl.utils.random(32)
    iv = iv or nacl.utils.random(12)
    curve = curve_of(recipient)
    if sender_seed is not None:
        sender = agent(sender_seed)
        box_nonce = box_nonce or nacl.utils.random(24)
        encrypted_key = nacl.bindings.crypto_box(cek, box_nonce, curve, sender["curve_secret"])
        header = {"kid": recipient, "sender": b64(seal(sender["verkey"].encode(), curve, ephemeral)), "iv": b64(box_nonce)}
        alg = "Authcrypt"
    else:
        encrypted_key = seal(cek, curve, ephemeral)
        header = {"kid": recipient}
        alg = "Anoncrypt"
    protected = b64(json.dumps({
        "enc": "xchacha20poly1305_ietf", "typ": "JWM/1.0", "alg": alg,
        "recipients": [{"encrypted_key": b64(encrypted_key), "header": header}],
    }).encode())
    sealed = content_seal(message, protected.encode(), iv, cek)
    return json.dumps({"protected": protected, "iv": b64(iv), "ciphertext": b64(sealed[:-16]), "tag": b64(sealed[-16:])})


def unpack(envelope, seed):
    me = agent(seed)
    outer = json.loads(envelope)
    protected = json.loads(unb64(outer["protected"]))
    recipient = next(r for r in protected["recipients"] if r["header"]["kid"] == me["verkey"])
    sender = None
    if protected["alg"] == "Authcrypt":
        sender = seal_open(unb64(recipient["header"]["sender"]), me).decode()
        cek = nacl.bindings.crypto_box_open(unb64(recipient["encrypted_key"]), unb64(recipient["header"]["iv"]), curve_of(sender), me["curve_secret"])
    else:
        cek = seal_open(unb64(recipient["encrypted_key"]), me)
    message = content_open(unb64(outer["ciphertext"]) + unb64(outer["tag"]), outer["protected"].encode(), unb64(outer["iv"]), cek)
    return {"message": message.hex(), "sender": sender}


def vectors():
    herald_seed = bytes(range(32))
    wallet_seed = bytes(range(100, 132))
    herald, wallet = agent(herald_seed), agent(wallet_seed)
    message = json.dumps({
        "@type": "https://didcomm.org/push-notifications-fcm/1.0/set-device-info", "@id": "7b0e9d2a-vector",
        "device_token": "vector-token:APA91b", "device_platform": "Android",
    }).encode()
    fixed = dict(cek=bytes(range(200, 232)), iv=bytes(range(50, 74)), ephemeral=bytes(range(150, 182)))
    return {
        "herald": {"seed": herald_seed.hex(), "verkey": herald["verkey"], "curve_public": herald["curve_public"].hex()},
        "wallet": {"seed": wallet_seed.hex(), "verkey": wallet["verkey"], "curve_public": wallet["curve_public"].hex()},
        "message": message.hex(),
        "authcrypt": pack(message, herald["verkey"], wallet_seed, box_nonce=bytes(range(10, 34)), **fixed),
        "anoncrypt": pack(message, herald["verkey"], None, **fixed),
        # As wallets pack: a 12-byte iv, ChaCha20-Poly1305 IETF under the same label.
        "authcrypt_chacha": pack(message, herald["verkey"], wallet_seed, box_nonce=bytes(range(10, 34)), **dict(fixed, iv=bytes(range(60, 72)))),
    }


def main():
    command = sys.argv[1]
    if command == "vectors":
        with open(sys.argv[2], "w") as output:
            json.dump(vectors(), output, indent=2, sort_keys=True)
            output.write("\n")
        return
    with open(sys.argv[2]) as source:
        items = json.load(source)
    if command == "pack":
        results = [pack(bytes.fromhex(i["message"]), i["recipient"], bytes.fromhex(i["sender_seed"]) if i.get("sender_seed") else None) for i in items]
    else:
        results = [unpack(i["envelope"], bytes.fromhex(i["seed"])) for i in items]
    with open(sys.argv[3], "w") as output:
        json.dump(results, output)


if __name__ == "__main__":
    main()
