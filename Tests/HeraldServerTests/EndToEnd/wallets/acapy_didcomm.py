#!/usr/bin/env python3
"""DIDComm v1 envelopes packed and unpacked by ACA-Py 1.7.0's own code, the packers a real
ACA-Py agent runs for every message (acapy_agent/transport/pack_format.py):

  askar  acapy_agent/askar/didcomm/v1.py pack_message / unpack_message (Askar wallets)
  nacl   acapy_agent/wallet/crypto.py encode_pack_message / decode_pack_message (PyNaCl)

Usage (the interface of HeraldAriesTests/vectors/didcomm_v1.py):
  acapy_didcomm.py PACKER pack INPUT.json OUTPUT.json     INPUT: [{message, recipient, sender_seed|null}]
  acapy_didcomm.py PACKER unpack INPUT.json OUTPUT.json   INPUT: [{envelope, seed}] -> [{message, sender}]

Seeds and messages are hex; verkeys base58; envelopes JSON text. ACA-Py 1.7.0 needs Python 3.13
to install, so scripts/install-deps.sh unpacks its wheel (pure Python) into
HERALD_ACAPY_PATH (default ~/.cache/herald/acapy-agent-1.7.0) and installs the few packages these
two modules import (aries-askar, marshmallow, pynacl, base58).
"""
import asyncio
import json
import os
import sys

ACAPY = os.environ.get("HERALD_ACAPY_PATH") or os.path.expanduser("~/.cache/herald/acapy-agent-1.7.0")
sys.path.insert(0, ACAPY)

from acapy_agent.askar.didcomm import v1 as askar_v1  # noqa: E402
from acapy_agent.wallet import crypto as nacl_v1  # noqa: E402
from acapy_agent.wallet.util import b58_to_bytes, bytes_to_b58  # noqa: E402
from aries_askar import Key, KeyAlg, Store  # noqa: E402


def askar_key(seed):
    return Key.from_secret_bytes(KeyAlg.ED25519, seed)


async def askar_pack(items):
    results = []
    for item in items:
        sender = askar_key(bytes.fromhex(item["sender_seed"])) if item.get("sender_seed") else None
        results.append(askar_v1.pack_message([item["recipient"]], sender, bytes.fromhex(item["message"])).decode())
    return results


async def askar_unpack(items):
    store = await Store.provision("sqlite://:memory:", "raw", Store.generate_raw_key())
    results = []
    async with store.session() as session:
        for seed in {item["seed"] for item in items}:
            key = askar_key(bytes.fromhex(seed))
            await session.insert_key(bytes_to_b58(key.get_public_bytes()), key)
        for item in items:
            message, _recipient, sender = await askar_v1.unpack_message(session, item["envelope"].encode())
            results.append({"message": bytes(message).hex(), "sender": sender})
    await store.close()
    return results


def nacl_pack(items):
    results = []
    for item in items:
        secret = None
        if item.get("sender_seed"):
            _public, secret = nacl_v1.create_ed25519_keypair(bytes.fromhex(item["sender_seed"]))
        packed = nacl_v1.encode_pack_message(bytes.fromhex(item["message"]).decode(), [b58_to_bytes(item["recipient"])], secret)
        results.append(packed.decode())
    return results


def nacl_unpack(items):
    results = []
    for item in items:
        public, secret = nacl_v1.create_ed25519_keypair(bytes.fromhex(item["seed"]))
        verkey = bytes_to_b58(public)
        message, sender, _recipient = nacl_v1.decode_pack_message(item["envelope"].encode(), lambda kid: secret if kid == verkey else None)
        results.append({"message": message.encode().hex(), "sender": sender})
    return results


def main():
    packer, command, source, destination = sys.argv[1:5]
    with open(source) as handle:
        items = json.load(handle)
    if packer == "askar":
        results = asyncio.run(askar_pack(items) if command == "pack" else askar_unpack(items))
    elif packer == "nacl":
        results = nacl_pack(items) if command == "pack" else nacl_unpack(items)
    else:
        raise SystemExit(f"unknown packer {packer}: askar or nacl")
    with open(destination, "w") as handle:
        json.dump(results, handle)


if __name__ == "__main__":
    main()
