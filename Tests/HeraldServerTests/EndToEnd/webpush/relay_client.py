#!/usr/bin/env python3
"""A Web Push sender and an app-side decoder that share no code with Herald.

Usage: relay_client.py send|decrypt INPUT.json OUTPUT.json

`send`: reads a JSON list of pushes, each {endpoint, encoding, vapid (none, vapid or
webpush), vapid_key_file, aud (the relay's public origin; default: the endpoint's), plaintext (hex),
headers}; makes a fresh subscription (P-256 key pair and
auth secret) per push, encrypts and sends it with pywebpush, and writes one JSON object per push:
{status, headers, subscription private key (hex), auth secret (hex)}.

`decrypt`: reads a JSON list of {fields (p, k, s as the relay put them), encoding, private_key,
auth}; decodes extended z85 with its own decoder and decrypts with http_ece; writes the
plaintexts in hex.
"""
import base64
import json
import os
import sys

import http_ece
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from py_vapid import Vapid01, Vapid02
from pywebpush import WebPushException, webpush

ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#"
DIGITS = {c: i for i, c in enumerate(ALPHABET)}


def z85ext_decode(text):
    """Toot!'s extended z85: 5 characters per 4 bytes, a tail of c characters is c-1 bytes."""
    if len(text) % 5 == 1:
        raise ValueError("length %d is 1 mod 5" % len(text))
    out = bytearray()
    for start in range(0, len(text), 5):
        group = text[start:start + 5]
        value = 0
        for char in group:
            value = value * 85 + DIGITS[char]
        size = len(group) - 1
        if value >= 1 << (8 * size):
            raise ValueError("group at %d overflows" % start)
        out += value.to_bytes(size, "big")
    return bytes(out)


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def send(pushes, output):
    results = []
    for push in pushes:
        private = ec.generate_private_key(ec.SECP256R1())
        public = private.public_key().public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
        auth = os.urandom(16)
        subscription = {"endpoint": push["endpoint"], "keys": {"p256dh": b64url(public), "auth": b64url(auth)}}
        vapid = None
        claims = None
        if push.get("vapid", "none") != "none":
            cls = Vapid02 if push["vapid"] == "vapid" else Vapid01
            vapid = cls.from_file(push["vapid_key_file"])
            claims = {"sub": "mailto:admin@mastodon.example"}
            if push.get("aud"):
                claims["aud"] = push["aud"]
        try:
            response = webpush(
                subscription,
                data=bytes.fromhex(push["plaintext"]),
                vapid_private_key=vapid,
                vapid_claims=claims,
                content_encoding=push["encoding"],
                headers=dict(push.get("headers", {})),
                ttl=push.get("ttl", 172800),
                timeout=30,
            )
        except WebPushException as error:
            response = error.response
        scalar = private.private_numbers().private_value.to_bytes(32, "big")
        results.append({
            "status": response.status_code,
            "headers": {k.lower(): v for k, v in response.headers.items()},
            "body": response.text,
            "private_key": scalar.hex(),
            "auth": auth.hex(),
        })
    json.dump(results, output)


def decrypt(items, output):
    plaintexts = []
    for item in items:
        fields = item["fields"]
        private = ec.derive_private_key(int(item["private_key"], 16), ec.SECP256R1())
        content = z85ext_decode(fields["p"])
        if item["encoding"] == "aesgcm":
            plain = http_ece.decrypt(
                content,
                salt=z85ext_decode(fields["s"]),
                dh=z85ext_decode(fields["k"]),
                private_key=private,
                auth_secret=bytes.fromhex(item["auth"]),
                version="aesgcm",
            )
        else:
            plain = http_ece.decrypt(content, private_key=private, auth_secret=bytes.fromhex(item["auth"]), version="aes128gcm")
        plaintexts.append(plain.hex())
    json.dump(plaintexts, output)


if __name__ == "__main__":
    command, source, target = sys.argv[1:4]
    with open(source) as input_file, open(target, "w") as output_file:
        {"send": send, "decrypt": decrypt}[command](json.load(input_file), output_file)
