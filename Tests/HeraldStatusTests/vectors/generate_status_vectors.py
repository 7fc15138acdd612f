#!/usr/bin/env python3
"""Writes status.json next to this script: cross-implementation vectors for HeraldStatus.

The Status push-notification protocol as status-go speaks it (/work/shared/protocols/status.md, cited below
as §n) is rebuilt here from libraries independent of Herald:
  * Keccak-256: eth-hash with the pycryptodome backend; SHAKE-256, PBKDF2, SHA-256, HMAC: hashlib / hmac
  * secp256k1 keys, recoverable signatures, ECDH points: coincurve (libsecp256k1)
  * AES-256-GCM, AES-128-CTR: pycryptodome
  * protobuf: Google protobuf; the _pb2 modules are generated at run time by `protoc --python_out` from
    Sources/HeraldStatus/Protobuf/*.proto into a temporary directory that is deleted again
  * Waku payload v1, ECIES (go-ethereum crypto/ecies, as in generate_crypto_vectors.py), topics, grants,
    the server's registration/query/push rules and the gorush body: written below from status.md.
Expectations are written by hand next to each case; every message is then opened as the server would open it
(check()) and the expectation is held against what comes out. No Herald code is used.

Install:  pip install coincurve pycryptodome "eth-hash[pycryptodome]" protobuf
          apt-get install protobuf-compiler   # protoc; tested with protoc 3.21.12 and python protobuf 7.36.2.
          If the protobuf runtime refuses protoc's generated code: pip install "protobuf>=4.21,<5"
Run:      python3 generate_status_vectors.py [output.json]
The output is deterministic: every "random" input comes from SHA-256 of a fixed label.
"""

import base64
import functools
import hashlib
import hmac
import importlib
import json
import os
import shutil
import subprocess
import sys
import tempfile

from coincurve import PrivateKey, PublicKey
from Crypto.Cipher import AES
from Crypto.Util import Counter
from eth_hash.auto import keccak
from google.protobuf.message import DecodeError

HERE = os.path.dirname(os.path.abspath(__file__))
PROTO_DIR = os.path.normpath(os.path.join(HERE, "..", "..", "..", "Sources", "HeraldStatus", "Protobuf"))
N = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141
BASE_TIMESTAMP = 1763884800000000000  # Waku timestamps (ns) are this + the case or step index

ACCESS_TOKEN = "b6ae4fde-bb65-11ea-b3de-0242ac130004"
WRONG_TOKEN = "e6ae4fde-bb65-11ea-b3de-0242ac130004"
SECOND_TOKEN = "a7ae4fde-bb65-11ea-b3de-0242ac130004"
IPHONE_ID = "c6ae4fde-bb65-11ea-b3de-0242ac130004"
ANDROID_ID = "d6ae4fde-bb65-11ea-b3de-0242ac130004"
SECOND_ID = "f6ae4fde-bb65-11ea-b3de-0242ac130004"
APN_TOPIC = "im.status.ethereum"

KEYS = {name: PrivateKey.from_int(value) for name, value in
        {"server": 2, "client": 1, "contact": 3, "ephemeralQuery": 4, "ephemeralPush": 5, "stranger": 7,
         "secondClient": 11}.items()}

# AMM types (§2.2) and enum values (§2.1)
REGISTRATION, REGISTRATION_RESPONSE, QUERY, QUERY_RESPONSE, REQUEST, RESPONSE = 16, 17, 18, 19, 20, 21
APN, FIREBASE = 1, 2
MALFORMED, VERSION_MISMATCH = 1, 2
WRONG_TOKEN_ERROR, NOT_REGISTERED = 1, 3
MESSAGE, MENTION = 1, 2


def load_protobuf():
    """Runs protoc into a temporary directory and imports the two _pb2 modules from there."""
    out = tempfile.mkdtemp(prefix="herald-status-pb2-")
    sys.path.insert(0, out)
    try:
        subprocess.run(["protoc", f"-I{PROTO_DIR}", f"--python_out={out}", "push_notifications.proto",
                        "application_metadata_message.proto"], check=True, cwd=PROTO_DIR)
        return (importlib.import_module("push_notifications_pb2"),
                importlib.import_module("application_metadata_message_pb2"))
    finally:
        sys.path.remove(out)
        shutil.rmtree(out, ignore_errors=True)


PB, AMM_PB = load_protobuf()


# ---------------------------------------------------------------------------------------------------------------
# Primitives (§3)

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

def shake64(data):
    return hashlib.shake_256(data).digest(64)

def compressed(key):
    return (key.public_key if isinstance(key, PrivateKey) else key).format(compressed=True)

def uncompressed(key):
    return (key.public_key if isinstance(key, PrivateKey) else key).format(compressed=False)

def hashed(key):
    """HashPublicKey: SHAKE256_64 of the compressed key (§3.1)."""
    return shake64(compressed(key))

def sign(key, digest):
    """R ‖ S ‖ V with V in {0, 1}, RFC 6979 nonce, low-S (§3.3)."""
    signature = key.sign_recoverable(digest, hasher=None)
    assert signature[64] in (0, 1) and int.from_bytes(signature[32:64], "big") <= N // 2
    return signature

def recover(signature, digest):
    """The signer's PublicKey, or None as in geth's cgo recovery (length ≠ 65, V ≥ 4, bad r or s)."""
    if len(signature) != 65 or signature[64] >= 4:
        return None
    try:
        return PublicKey.from_signature_and_message(signature, digest, hasher=None)
    except ValueError:
        return None

def ecdh_x(secret, public):
    """GenerateShared(pub, 16, 16): X of secret · pub, 32 bytes, no KDF (§3.4)."""
    secret = secret.secret if isinstance(secret, PrivateKey) else secret
    public = PublicKey(public) if isinstance(public, bytes) else public
    public = public.public_key if isinstance(public, PrivateKey) else public
    return public.multiply(secret).format(compressed=False)[1:33]

def gcm_seal(key, nonce, plaintext):
    """§3.5 container: nonce ‖ ciphertext ‖ tag, no AAD."""
    ciphertext, tag = AES.new(key, AES.MODE_GCM, nonce=nonce, mac_len=16).encrypt_and_digest(plaintext)
    return nonce + ciphertext + tag

def gcm_open(key, blob):
    if len(blob) < 28:  # < 12: "invalid cyphertext length"; 12…27: no room for the tag, GCM open fails
        raise ValueError("ciphertext too short")
    return AES.new(key, AES.MODE_GCM, nonce=blob[:12], mac_len=16).decrypt_and_verify(blob[12:-16], blob[-16:])

def grant_digest(client, server, token):
    return keccak(compressed(client) + compressed(server) + token.encode())

def make_grant(client, server, token):
    """§3.6; the unregister grant uses the empty token (§5.1)."""
    return sign(client, grant_digest(client, server, token))

def message_id(signer, amm_bytes):
    """§3.7, over the AMM bytes as received."""
    return keccak(uncompressed(signer) + amm_bytes)

def amm_encode(signer, amm_type, payload, signature=None):
    """AMM as Go emits it: fields 1, 2, 3 in order, zero values omitted (§2.2)."""
    signature = sign(signer, keccak(payload)) if signature is None else signature
    return AMM_PB.ApplicationMetadataMessage(signature=signature, payload=payload, type=amm_type).SerializeToString()


# ---------------------------------------------------------------------------------------------------------------
# Waku (§4)

def size_field_length(data_length):
    return max(1, (data_length.bit_length() + 7) // 8)  # minimal little-endian length field

def det_padding(label, data_length, signed):
    """§4.2: p = 256 − ((1 + n + len(data) + 65 if signed) mod 256), always 1…256 bytes."""
    size = 256 - (1 + size_field_length(data_length) + data_length + (65 if signed else 0)) % 256
    padding = det_bytes(label + "/waku-padding", size)
    assert len(padding) <= 3 or any(padding), "validateDataIntegrity rejects all-zero padding"
    return padding

def waku_encode(data, padding, signer=None):
    """26/WAKU2-PAYLOAD v1: flags ‖ size ‖ data ‖ padding [‖ signature]; flag 0x04 is set before hashing (§4.2)"""
    n = size_field_length(len(data))
    plain = bytes([n | (0x04 if signer else 0)]) + len(data).to_bytes(n, "little") + data + padding
    return plain + sign(signer, keccak(plain)) if signer else plain

def waku_decode(payload):
    """→ (data, padding, signer PublicKey or None); raises ValueError on malformed input."""
    signed = bool(payload) and payload[0] & 0x04
    signer = recover(payload[-65:], keccak(payload[:-65])) if signed and len(payload) > 66 else None
    if not payload or (signed and signer is None):
        raise ValueError("empty payload or bad signature")
    payload = payload[:-65] if signed else payload
    n = payload[0] & 0x03
    size = int.from_bytes(payload[1:1 + n], "little")
    if 1 + n + size > len(payload):
        raise ValueError("truncated payload")
    return payload[1 + n:1 + n + size], payload[1 + n + size:], signer

def sym_seal(key, nonce, plaintext):
    """§4.3: AES-256-GCM, output ciphertext ‖ tag ‖ nonce."""
    ciphertext, tag = AES.new(key, AES.MODE_GCM, nonce=nonce, mac_len=16).encrypt_and_digest(plaintext)
    return ciphertext + tag + nonce

def sym_open(key, sealed):
    return gcm_open(key, sealed[-12:] + sealed[:-12])

def ecies_keys(z):
    k = hashlib.sha256(b"\x00\x00\x00\x01" + z).digest()
    return k[:16], hashlib.sha256(k[16:32]).digest()

def ecies_encrypt(recipient_public, message, ephemeral_secret, iv):
    """go-ethereum ECIES, ECIES_AES128_SHA256, s1 = s2 = empty: R ‖ IV ‖ c ‖ tag (§4.4)."""
    ke, km = ecies_keys(ecdh_x(ephemeral_secret, recipient_public))
    counter = Counter.new(128, initial_value=int.from_bytes(iv, "big"))
    em = iv + AES.new(ke, AES.MODE_CTR, counter=counter).encrypt(message)
    return uncompressed(PrivateKey(ephemeral_secret)) + em + hmac.new(km, em, hashlib.sha256).digest()

def ecies_decrypt(recipient, ciphertext):
    if len(ciphertext) < 113 or ciphertext[0] != 0x04:
        raise ValueError("invalid ECIES message")
    em = ciphertext[65:-32]
    ke, km = ecies_keys(ecdh_x(recipient, ciphertext[:65]))
    if not hmac.compare_digest(hmac.new(km, em, hashlib.sha256).digest(), ciphertext[-32:]):
        raise ValueError("invalid ECIES tag")
    counter = Counter.new(128, initial_value=int.from_bytes(em[:16], "big"))
    return AES.new(ke, AES.MODE_CTR, counter=counter).decrypt(em[16:])

def content_topic(name):
    """§4.5: first 4 bytes of Keccak-256 of the name."""
    return "/waku/1/0x" + keccak(name.encode()).hex()[:8] + "/rfc26"

def partitioned_name(key):
    return f"contact-discovery-{int.from_bytes(uncompressed(key)[1:33], 'big') % 5000}"

def partitioned(key):
    return content_topic(partitioned_name(key))

def personal_name(key):
    return "contact-discovery-" + uncompressed(key).hex()

def query_name(key):
    return hashed(key).hex()

@functools.lru_cache(maxsize=None)
def topic_key(name):
    """AddSymKeyFromPassword: PBKDF2-HMAC-SHA-256, empty salt, 65356 iterations (§3.1)."""
    return hashlib.pbkdf2_hmac("sha256", name.encode(), b"", 65356, 32)

def go_json(value):
    """Go encoding/json: compact, keys in insertion order, HTML-safe escapes (§9)."""
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    for char, escape in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"), ("\u2028", "\\u2028"),
                         ("\u2029", "\\u2029")):
        text = text.replace(char, escape)
    return text

def go_uuid_ok(text):
    """github.com/google/uuid v1.6.0 Parse, lengths in bytes (§5.3)."""
    raw, digits = text.encode(), b"0123456789abcdefABCDEF"
    if len(raw) == 32:
        return all(c in digits for c in raw)
    if len(raw) == 45 and raw[:9].lower() == b"urn:uuid:":
        raw = raw[9:]
    elif len(raw) == 38:
        raw = raw[1:37]  # neither the first nor the last byte is checked
    return len(raw) == 36 and all((c == 0x2D) if i in (8, 13, 18, 23) else (c in digits) for i, c in enumerate(raw))


# ---------------------------------------------------------------------------------------------------------------
# Sending side: nwaku REST JSON messages

CONTACT_STRING = "0x" + uncompressed(KEYS["contact"]).hex()  # the Status "0x04…" key string (§3.2)
IPHONE_TOKEN = det_bytes("iphone-apns-device-token", 32).hex()
ANDROID_TOKEN = (base64.urlsafe_b64encode(det_bytes("android-fcm-instance", 17)).decode()[:22] + ":APA91b"
                 + base64.urlsafe_b64encode(det_bytes("android-fcm-token", 101)).decode()[:134])

def waku_message(label, timestamp, amm, node, topic, recipient=None, sym_key=None, signed=True):
    """Waku payload signed by the sender's node identity, then ECIES to recipient or symmetric with sym_key."""
    plain = waku_encode(amm, det_padding(label, len(amm), signed), node if signed else None)
    if sym_key is not None:
        sealed = sym_seal(sym_key, det_bytes(label + "/sym-nonce", 12), plain)
    else:
        sealed = ecies_encrypt(uncompressed(recipient), plain, det_private_key(label + "/ecies-ephemeral"),
                               det_bytes(label + "/ecies-iv", 16))
    return {"payload": base64.b64encode(sealed).decode(), "contentTopic": topic, "version": 1,
            "timestamp": timestamp}

def registration_fields(client=KEYS["client"], installation_id=IPHONE_ID):
    return dict(token_type=APN, device_token=IPHONE_TOKEN, installation_id=installation_id,
                access_token=ACCESS_TOKEN, enabled=True, version=1,
                grant=make_grant(client, KEYS["server"], ACCESS_TOKEN), apn_topic=APN_TOPIC)

def unregister_fields(version):
    """§5.1: version, installation id, unregister, and the grant over the empty token."""
    return dict(installation_id=IPHONE_ID, version=version, unregister=True,
                grant=make_grant(KEYS["client"], KEYS["server"], ""))

def registration_blob(label, fields=None, plaintext=None, client=KEYS["client"], ecdh_peer=KEYS["server"]):
    if plaintext is None:
        plaintext = PB.PushNotificationRegistration(**fields).SerializeToString()
    return gcm_seal(ecdh_x(client, ecdh_peer), det_bytes(label + "/gcm-nonce", 12), plaintext)

def registration_message(label, timestamp, blob, client=KEYS["client"], topic=None, recipient=KEYS["server"]):
    """AMM type 16 signed by the client, on the server's personal topic, ECIES to the server (§5.1)."""
    return waku_message(label, timestamp, amm_encode(client, REGISTRATION, blob), client,
                        topic or content_topic(personal_name(KEYS["server"])), recipient=recipient)

def query_amm(target):
    query = PB.PushNotificationQuery(public_keys=[hashed(target)])
    return amm_encode(KEYS["ephemeralQuery"], QUERY, query.SerializeToString())

def query_message(label, timestamp, amm, target):
    """§6.1: on the target's query topic, symmetric; the Waku payload is signed by the sender (contact)."""
    name = query_name(target)
    return waku_message(label, timestamp, amm, KEYS["contact"], content_topic(name), sym_key=topic_key(name))

def notification(installation_id, token, kind=MESSAGE, chat=None):
    """§7.1: chat_id and author are SHAKE256_64 of ASCII strings; the 1:1 chat id is the sender's key string."""
    return PB.PushNotification(access_token=token, chat_id=shake64((chat or CONTACT_STRING).encode()),
                               public_key=hashed(KEYS["client"]), installation_id=installation_id, type=kind,
                               author=shake64(CONTACT_STRING.encode()))

def push_message(label, timestamp, amm):
    """§7.1: on the server's partitioned topic, ECIES to the server, Waku payload signed by the sender."""
    server = KEYS["server"]
    return waku_message(label, timestamp, amm, KEYS["contact"], partitioned(server), recipient=server)

def push_amm(status_id, notifications):
    request = PB.PushNotificationRequest(requests=notifications, message_id=status_id)
    return amm_encode(KEYS["ephemeralPush"], REQUEST, request.SerializeToString())


# ---------------------------------------------------------------------------------------------------------------
# Expectations: a reply is (recipient, AMM type, response protobuf); render() gives its JSON form

def name_of(public):
    return next((name for name, key in KEYS.items() if compressed(key) == compressed(public)), None)

def delivery(platform, token, topic, pn):
    text = {1: "You have a new message", 3: "Someone requested to join a community you are an admin of"}
    return {"platform": platform, "token": token, "topic": topic,
            "message": text.get(pn.type, "Someone mentioned you"),
            "data": {"encryptedMessage": "0x" + pn.message.hex(), "chatId": "0x" + pn.chat_id.hex(),
                     "publicKey": "0x" + pn.public_key.hex()}}

def gorush_body(deliveries):
    """The POST body of §9, or None when nothing is pushed (no POST at all)."""
    return go_json({"notifications": [
        {"tokens": [d["token"]], "platform": {"apns": 1, "fcm": 2}[d["platform"]], "message": d["message"],
         "topic": d["topic"], "data": d["data"]} for d in deliveries]}) if deliveries else None

def render(reply, deliveries=()):
    if reply is None:
        return {"kind": "none"}
    public, amm_type, r = reply
    out = {"kind": {REGISTRATION_RESPONSE: "registrationResponse", QUERY_RESPONSE: "queryResponse",
                    RESPONSE: "pushResponse"}[amm_type]}
    if name_of(public):
        out["recipient"] = name_of(public)
    out.update(recipientPublic=uncompressed(public).hex(), contentTopic=partitioned(public))
    if amm_type == REGISTRATION_RESPONSE:
        out.update(success=r.success, error=r.error, requestID=r.request_id.hex())
    elif amm_type == QUERY_RESPONSE:
        out.update(success=r.success, messageID=r.message_id.hex(), infos=[
            {"installationID": i.installation_id, "publicKey": i.public_key.hex(), "accessToken": i.access_token,
             "allowedKeyList": [e.hex() for e in i.allowed_key_list], "grant": i.grant.hex(), "version": i.version}
            for i in r.info])
    else:
        out.update(messageID=r.message_id.hex(), reports=[
            {"success": p.success, "error": p.error, "publicKey": p.public_key.hex(),
             "installationID": p.installation_id} for p in r.reports],
            deliveries=list(deliveries), gorushBody=gorush_body(deliveries))
    return out

def registration_reply(key, blob, error=0):
    """§5.2: request_id = SHAKE256_64 of the encrypted blob, success iff no error."""
    return key, REGISTRATION_RESPONSE, PB.PushNotificationRegistrationResponse(
        success=not error, error=error, request_id=shake64(blob))

def query_reply(amm, infos):
    return KEYS["ephemeralQuery"], QUERY_RESPONSE, PB.PushNotificationQueryResponse(
        info=infos, message_id=message_id(KEYS["ephemeralQuery"], amm), success=True)

def push_reply(status_id, reports):
    return KEYS["ephemeralPush"], RESPONSE, PB.PushNotificationResponse(message_id=status_id, reports=reports)

def info(key, installation_id, grant, token="", allowed=()):
    return PB.PushNotificationQueryInfo(access_token=token, installation_id=installation_id, public_key=hashed(key),
                                        allowed_key_list=allowed, grant=grant, version=1)

def report(success, error, installation_id):
    return PB.PushNotificationReport(success=success, error=error, public_key=hashed(KEYS["client"]),
                                     installation_id=installation_id)


# ---------------------------------------------------------------------------------------------------------------
# Self-check of every case: open the message as the server would and hold the hand-written reply against it

def server_open(message):
    """§4.7 on the server's side → (AMM, signer, message ID), or None where status-go drops the message."""
    server = KEYS["server"]
    sealed, topic = base64.b64decode(message["payload"]), message["contentTopic"]
    names = [query_name(KEYS["client"]), query_name(KEYS["secondClient"])]
    query_keys = {content_topic(name): topic_key(name) for name in names}
    try:
        if topic in query_keys:
            plain = sym_open(query_keys[topic], sealed)
        else:
            assert topic in (partitioned(server), content_topic(personal_name(server)))
            plain = ecies_decrypt(server, sealed)
        data, _, waku_signer = waku_decode(plain)
        amm = AMM_PB.ApplicationMetadataMessage.FromString(data)
    except (ValueError, DecodeError):
        return None
    signer = recover(amm.signature, keccak(amm.payload))
    return (amm, signer, message_id(signer, data)) if waku_signer and amm.payload and signer else None

def check(message, reply):
    """The reply goes to the AMM signer (§4.6) and answers the request type; request_id is over the blob (§3.8);
    a query answer carries the query's message ID (§6.2); a push answer echoes message_id with one report per
    entry of non-zero type (§7.2); an accepted registration decrypts, parses and carries a valid grant (§5.2)."""
    opened = server_open(message)
    if reply is None:
        return opened
    (amm, signer, amm_id), (recipient, reply_type, response) = opened, reply
    assert compressed(signer) == compressed(recipient) and amm.type == reply_type - 1
    if reply_type == REGISTRATION_RESPONSE:
        assert response.request_id == shake64(amm.payload)
        if response.success:
            registration = PB.PushNotificationRegistration.FromString(
                gcm_open(ecdh_x(KEYS["server"], signer), amm.payload))
            grant = recover(registration.grant, grant_digest(signer, KEYS["server"], registration.access_token))
            assert go_uuid_ok(registration.installation_id) and registration.version >= 1
            assert registration.unregister or (go_uuid_ok(registration.access_token) and registration.token_type and
                                               registration.device_token and compressed(grant) == compressed(signer))
    elif reply_type == QUERY_RESPONSE:
        keys = PB.PushNotificationQuery.FromString(amm.payload).public_keys
        assert response.message_id == amm_id and all(i.public_key in keys for i in response.info)
    else:
        request = PB.PushNotificationRequest.FromString(amm.payload)
        assert response.message_id == request.message_id
        assert [(r.public_key, r.installation_id) for r in response.reports] == [
            (pn.public_key, pn.installation_id) for pn in request.requests if pn.type]
    return opened


# ---------------------------------------------------------------------------------------------------------------
# Sections

def key_sections():
    keys = {name: {"private": key.secret.hex(), "compressed": compressed(key).hex(),
                   "uncompressed": uncompressed(key).hex(), "hashed": hashed(key).hex()} for name, key in KEYS.items()}
    topics = [{"key": name, "partitionedName": partitioned_name(key), "partitioned": partitioned(key),
               "personalName": personal_name(key), "personal": content_topic(personal_name(key)),
               "queryName": query_name(key), "query": content_topic(query_name(key)),
               "querySymmetricKey": topic_key(query_name(key)).hex()} for name, key in KEYS.items()]
    return keys, topics

def waku_payload_section():
    rows = []
    for length in (0, 1, 120, 190, 255, 256, 300, 70000):
        label = f"waku-payload-{length}"
        data, padding = det_bytes(label + "/data", length), det_padding(label, length, True)
        encoded = waku_encode(data, padding, KEYS["client"])
        decoded = waku_decode(encoded)
        assert len(encoded) % 256 == 0 and decoded[:2] == (data, padding)
        assert compressed(decoded[2]) == compressed(KEYS["client"])
        rows.append({"name": f"{length}-byte data", "data": data.hex(), "padding": padding.hex(),
                     "signer": KEYS["client"].secret.hex(), "encoded": encoded.hex()})
    assert [len(r["encoded"]) // 2 for r in rows[:4]] == [256, 256, 256, 512], "190 bytes crosses 256"
    assert rows[6]["encoded"][:6] == "062c01" and rows[7]["encoded"][:8] == "07701101"
    return rows

def envelope_sections():
    """§4.3 symmetric (ciphertext ‖ tag ‖ nonce) and §4.4 ECIES envelopes."""
    symmetric, asymmetric = [], []
    for name, key, plaintext in [
            ("client query topic key, 256-byte plaintext", topic_key(query_name(KEYS["client"])),
             det_bytes("sym-plain-256", 256)),
            ("empty plaintext", det_bytes("sym-key-empty", 32), b""),
            ("1000-byte plaintext", det_bytes("sym-key-1000", 32), det_bytes("sym-plain-1000", 1000))]:
        nonce = det_bytes(f"sym-nonce-{name}", 12)
        sealed = sym_seal(key, nonce, plaintext)
        assert sealed[-12:] == nonce and sym_open(key, sealed) == plaintext
        symmetric.append({"name": name, "key": key.hex(), "nonce": nonce.hex(), "plaintext": plaintext.hex(),
                          "sealed": sealed.hex()})
    for name, recipient, plaintext in [("to server, 256-byte plaintext", "server", det_bytes("ecies-256", 256)),
                                       ("to client, 1 byte", "client", b"\x2a"),
                                       ("to ephemeralPush, 512 bytes", "ephemeralPush", det_bytes("ecies-512", 512))]:
        key = KEYS[recipient]
        ephemeral, iv = det_private_key(f"ecies-ephemeral-{name}"), det_bytes(f"ecies-iv-{name}", 16)
        sealed = ecies_encrypt(uncompressed(key), plaintext, ephemeral, iv)
        assert len(sealed) == 113 + len(plaintext) and ecies_decrypt(key, sealed) == plaintext
        asymmetric.append({"name": name, "recipientPublic": uncompressed(key).hex(),
                           "recipientPrivate": key.secret.hex(), "ephemeralPrivate": ephemeral.hex(), "iv": iv.hex(),
                           "plaintext": plaintext.hex(), "sealed": sealed.hex()})
    return symmetric, asymmetric

def application_message_section(flow_payloads):
    rows = []
    for name, signer, amm_type, payload in [
            ("registration (type 16)", "client", REGISTRATION, flow_payloads["registration"]),
            ("query (type 18)", "ephemeralQuery", QUERY, flow_payloads["query"]),
            ("push request (type 20)", "ephemeralPush", REQUEST, flow_payloads["push"]),
            ("push response (type 21)", "server", RESPONSE, det_bytes("amm-response", 40)),
            ("type 0 is omitted", "client", 0, b"\x01"),
            ("300-byte payload, 2-byte length varint", "contact", 15, det_bytes("amm-300", 300))]:
        key = KEYS[signer]
        encoded = amm_encode(key, amm_type, payload)
        assert encoded[:2] == b"\x0a\x41" and encoded.endswith(bytes([0x18, amm_type]) if amm_type else payload)
        assert compressed(recover(encoded[2:67], keccak(payload))) == compressed(key)
        rows.append({"name": name, "signer": key.secret.hex(), "type": amm_type, "payload": payload.hex(),
                     "encoded": encoded.hex(), "messageID": message_id(key, encoded).hex()})
    return rows

def grant_section():
    rows = []
    for name, client, server, token in [("status.md §12 grant", "client", "server", ACCESS_TOKEN),
                                        ("unregister grant (empty token)", "client", "server", ""),
                                        ("secondClient grant", "secondClient", "server", SECOND_TOKEN),
                                        ("grant for another server", "client", "stranger", ACCESS_TOKEN)]:
        digest, grant = grant_digest(KEYS[client], KEYS[server], token), make_grant(KEYS[client], KEYS[server], token)
        assert compressed(recover(grant, digest)) == compressed(KEYS[client])
        rows.append({"name": name, "client": KEYS[client].secret.hex(),
                     "serverCompressed": compressed(KEYS[server]).hex(), "accessToken": token,
                     "digest": digest.hex(), "grant": grant.hex()})
    assert rows[0]["digest"] == "d88a70bd0ce41f5c403b15cd59b3d37e77fea284f1c8d7bae3dc655e0a19db8e"
    assert rows[0]["grant"] == ("f3e18fa1ddea1b02c5b130fdd4fbd9e16865b4f7b6997554f9bacc49bde176ed"
                                "77544abd657fc2fe71490b25bc92611f017681353e3069a8c3a3f03c77d2d19101")
    return rows

def registration_cases():
    """Each case goes to a fresh server."""
    client, server, stranger = KEYS["client"], KEYS["server"], KEYS["stranger"]
    cases = []

    def add(name, blob, reply="ok", amm=None, **wrap):
        label, timestamp = f"registration/{name}", BASE_TIMESTAMP + len(cases)
        if amm is None:
            message = registration_message(label, timestamp, blob, **wrap)
        else:
            message = waku_message(label, timestamp, amm, client, content_topic(personal_name(server)),
                                   recipient=server, **wrap)
        reply = registration_reply(client, blob) if reply == "ok" else reply
        cases.append({"name": name, "message": message, "expect": render(reply)})
        opened = check(message, reply)
        assert reply or opened is None or opened[0].type == 0, name

    def accept(name, **changes):
        add(name, registration_blob(f"registration/{name}", dict(registration_fields(), **changes)))

    def reject(name, error=MALFORMED, **changes):
        blob = registration_blob(f"registration/{name}", dict(registration_fields(), **changes))
        add(name, blob, registration_reply(client, blob, error))

    accept("valid APN registration")
    accept("token_type 5 is accepted", token_type=5)
    for name, installation_id in [("32 hex digits", IPHONE_ID.replace("-", "")),
                                  ("38 bytes in braces", "{" + IPHONE_ID + "}"),
                                  ("38 bytes, wrapper bytes not checked", "x" + IPHONE_ID + "y"),
                                  ("urn:uuid: prefix", "urn:uuid:" + IPHONE_ID),
                                  ("URN:UUID: prefix", "URN:UUID:" + IPHONE_ID), ("uppercase", IPHONE_ID.upper())]:
        accept(f"installation id {name} is accepted", installation_id=installation_id)
    blob = registration_blob("registration/partitioned", registration_fields())
    add("valid registration on the server's partitioned topic", blob, topic=partitioned(server))
    add("registration ECIES-encrypted to a stranger → dropped", blob, None, recipient=stranger)

    for name, blob in [
            ("encrypted under ECDH with the stranger",
             registration_blob("registration/wrong-ecdh", registration_fields(), ecdh_peer=stranger)),
            ("garbage 40-byte ciphertext", det_bytes("garbage-40", 40)),
            ("5-byte ciphertext", det_bytes("garbage-5", 5)),
            ("non-protobuf plaintext ff ff ff", registration_blob("registration/ff", plaintext=b"\xff\xff\xff"))]:
        add(name, blob, registration_reply(client, blob, MALFORMED))
    reject("empty installation id", installation_id="")
    reject("installation id abc", installation_id="abc")
    reject("installation id with a non-hex digit", installation_id="g" + IPHONE_ID[1:])
    reject("version 0", VERSION_MISMATCH, version=0)
    reject("missing access token", access_token="")
    reject("access token bc", access_token="bc")
    reject("missing grant", grant=b"")
    reject("32-byte grant", grant=det_bytes("grant-32", 32))
    reject("grant made for another server key", grant=make_grant(client, stranger, ACCESS_TOKEN))
    reject("grant by another client key", grant=make_grant(stranger, server, ACCESS_TOKEN))
    reject("missing device token", device_token="")
    reject("token_type 0", token_type=0)
    add("unregister of a never-registered installation", registration_blob("registration/unregister",
                                                                           unregister_fields(1)))

    blob = registration_blob("registration/amm", registration_fields())
    signature = bytearray(sign(client, keccak(blob)))
    signature[64] = 4
    add("AMM signature with V = 4 → dropped", blob, None, amm_encode(client, REGISTRATION, blob, bytes(signature)))
    signature[64] = sign(client, keccak(blob))[64]
    signature[63] ^= 0x01
    other = recover(bytes(signature), keccak(blob))
    assert other is not None and compressed(other) != compressed(client)
    add("AMM signature with one bit of S flipped → MALFORMED to the recovered key", blob,
        registration_reply(other, blob, MALFORMED), amm_encode(client, REGISTRATION, blob, bytes(signature)))
    add("Waku payload unsigned → dropped", blob, None, amm_encode(client, REGISTRATION, blob), signed=False)
    add("AMM with empty payload → dropped", b"", None, amm_encode(client, REGISTRATION, b""))
    add("AMM type 0 (unknown) → dropped", blob, None, amm_encode(client, 0, blob))
    return cases

def flow_section():
    """Applied in order to one server → (section, AMM payloads, server reply by step number)."""
    client, contact, second = KEYS["client"], KEYS["contact"], KEYS["secondClient"]
    steps, replies, opened = [], {}, {}

    def step(name, message, reply=None, deliveries=()):
        steps.append({"name": name, "message": message, "expect": render(reply, deliveries)})
        replies[len(steps)], opened[len(steps)] = reply, check(message, reply)

    def ts():
        return BASE_TIMESTAMP + len(steps) + 1

    iphone = registration_fields()
    blob1 = registration_blob("flow/1", iphone)
    message1 = registration_message("flow/1", ts(), blob1)
    step("register client iPhone (APN), version 1", message1, registration_reply(client, blob1))
    android = dict(registration_fields(installation_id=ANDROID_ID), token_type=FIREBASE, device_token=ANDROID_TOKEN,
                   apn_topic="", allowed_mentions_chat_list=[shake64(b"status")])
    blob2 = registration_blob("flow/2", android)
    step("register client Android (FCM), version 1", registration_message("flow/2", ts(), blob2),
         registration_reply(client, blob2))
    step("replay of step 1 (same payload, later timestamp) → VERSION_MISMATCH", dict(message1, timestamp=ts()),
         registration_reply(client, blob1, VERSION_MISMATCH))

    query = query_amm(client)
    both = [info(client, IPHONE_ID, iphone["grant"], ACCESS_TOKEN),
            info(client, ANDROID_ID, iphone["grant"], ACCESS_TOKEN)]
    step("query for client → 2 infos", query_message("flow/4", ts(), query, client), query_reply(query, both))

    status_id = det_bytes("flow/status-message-5", 32)
    pn_iphone, pn_android = notification(IPHONE_ID, ACCESS_TOKEN), notification(ANDROID_ID, ACCESS_TOKEN)
    push5 = push_amm(status_id, [pn_iphone, pn_android])
    step("push MESSAGE to both installations", push_message("flow/5", ts(), push5),
         push_reply(status_id, [report(True, 0, IPHONE_ID), report(True, 0, ANDROID_ID)]),
         [delivery("apns", IPHONE_TOKEN, APN_TOPIC, pn_iphone), delivery("fcm", ANDROID_TOKEN, "", pn_android)])
    step("same push AMM again in a new envelope → dropped", push_message("flow/6", ts(), push5))

    status_id = det_bytes("flow/status-message-7", 32)
    push7 = push_amm(status_id, [notification(IPHONE_ID, WRONG_TOKEN),
                                 notification(ANDROID_ID, ACCESS_TOKEN, MENTION, chat="other-public-chat")])
    step("push with wrong token (iPhone) and unlisted MENTION (Android)", push_message("flow/7", ts(), push7),
         push_reply(status_id, [report(False, WRONG_TOKEN_ERROR, IPHONE_ID), report(True, 0, ANDROID_ID)]))

    blob8 = registration_blob("flow/8", unregister_fields(2))
    step("unregister iPhone, version 2 (unregister grant, §5.1)", registration_message("flow/8", ts(), blob8),
         registration_reply(client, blob8))
    step("same query AMM again in a new envelope → 1 info (Android)", query_message("flow/9", ts(), query, client),
         query_reply(query, both[1:]))

    status_id = det_bytes("flow/status-message-10", 32)
    push10 = push_amm(status_id, [notification(IPHONE_ID, ACCESS_TOKEN), notification(ANDROID_ID, ACCESS_TOKEN, 0)])
    step("push to the unregistered iPhone (+ a type-0 entry: no report)", push_message("flow/10", ts(), push10),
         push_reply(status_id, [report(False, NOT_REGISTERED, IPHONE_ID)]))

    entry = gcm_seal(ecdh_x(second, contact), det_bytes("flow/11/allowed-key-nonce", 12), SECOND_TOKEN.encode())
    assert len(entry) == 64 and gcm_open(ecdh_x(contact, second), entry) == SECOND_TOKEN.encode()
    contacts_only = dict(registration_fields(client=second, installation_id=SECOND_ID), access_token=SECOND_TOKEN,
                         device_token=det_bytes("second-apns-device-token", 32).hex(),
                         grant=make_grant(second, KEYS["server"], SECOND_TOKEN),
                         allow_from_contacts_only=True, allowed_key_list=[entry])
    blob11 = registration_blob("flow/11", contacts_only, client=second)
    step("secondClient registers contacts-only", registration_message("flow/11", ts(), blob11, client=second),
         registration_reply(second, blob11))
    query12 = query_amm(second)
    step("query for secondClient → allowedKeyList, no token", query_message("flow/12", ts(), query12, second),
         query_reply(query12, [info(second, SECOND_ID, contacts_only["grant"], allowed=[entry])]))

    assert [s["message"]["timestamp"] - BASE_TIMESTAMP for s in steps] == list(range(1, 13))
    assert opened[6][2] == opened[5][2] and opened[9][2] == opened[4][2], "same AMM message IDs"
    payloads = {"registration": blob1, "query": AMM_PB.ApplicationMetadataMessage.FromString(query).payload,
                "push": AMM_PB.ApplicationMetadataMessage.FromString(push5).payload}
    return {"steps": steps}, payloads, replies

def response_section(replies):
    """Server answers of flow steps 1 (registration), 9 (query, one info) and 5 (push, two reports)."""
    server, rows = KEYS["server"], []
    for name, number in [("registration response, success", 1), ("query response, one info", 9),
                         ("push response, two reports", 5)]:
        recipient, amm_type, response = replies[number]
        label, payload = f"response/{name}", response.SerializeToString()
        amm = amm_encode(server, amm_type, payload)
        padding = det_padding(label, len(amm), True)
        plain = waku_encode(amm, padding, server)
        ephemeral, iv = det_private_key(label + "/ecies-ephemeral"), det_bytes(label + "/ecies-iv", 16)
        sealed = ecies_encrypt(uncompressed(recipient), plain, ephemeral, iv)
        opened = waku_decode(ecies_decrypt(KEYS[name_of(recipient)], sealed))
        assert opened[0] == amm and compressed(opened[2]) == compressed(server)
        rows.append({"name": name, "serverPrivate": server.secret.hex(),
                     "recipientPublic": uncompressed(recipient).hex(), "type": amm_type, "payload": payload.hex(),
                     "amm": amm.hex(), "wakuPadding": padding.hex(),
                     "wakuPlain": plain.hex(), "eciesEphemeralPrivate": ephemeral.hex(), "iv": iv.hex(),
                     "sealed": sealed.hex(), "contentTopic": partitioned(recipient)})
    assert len(replies[9][2].info) == 1 and len(replies[5][2].reports) == 2 and replies[1][2].success
    return rows

def known_values():
    """status.md §3.1 and §12."""
    client, server, contact = KEYS["client"], KEYS["server"], KEYS["contact"]
    assert keccak(b"").hex() == "c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470"
    assert shake64(b"").hex().startswith("46b9dd2b0ba88d13233b3feb743eeb243fcd52ea62b81b82b50c27646ed5762f")
    assert query_name(client) == ("b9fc6bc4aa9fcfce676d2e93312a203da8da4bc414f6115fbd569fe4607a59b3"
                                  "1efcc388c210496740d02196fdff2e02d03e953ccce3da69f593d44629a01c7e")
    assert content_topic(query_name(client)) == "/waku/1/0xb58ebe56/rfc26"
    assert topic_key(query_name(client)).hex() == "c97e4b363d05f6d8fec0d7ea3e4c51cc229e98f32a6cbcb50ecd74eb06c02771"
    assert ecdh_x(client, server).hex() == "c6047f9441ed7d6d3045406e95c07cd85c778e4b8cef3ca7abac09b95c709ee5"
    assert ecdh_x(client, contact).hex() == "f9308a019258c31049344f85f89d5229b531c845836f99b08601f113bce036f9"
    blob = gcm_seal(ecdh_x(server, client), bytes(range(12)), b"\x08\x01")
    assert blob.hex() == "000102030405060708090a0bb275704e2ca849b204f17ae0f215726c8721"
    assert shake64(blob).hex().startswith("fb80b6d5fd9bbf23df7d9f4fbb17ff5c4e03961a54e95a6041cabe9e7d7bbee4")
    entry = gcm_seal(ecdh_x(client, contact), bytes(range(12)), ACCESS_TOKEN.encode())
    assert entry.hex() == ("000102030405060708090a0bfca2b0bd3231c30ab1a360f0204c3a469def7f030ad4d3ad2037a7224876dcdb"
                           "962a29fc7d8f80397a9f94a9cc0dc549a433b52a")
    assert partitioned_name(server) == "contact-discovery-1597" and partitioned(server) == "/waku/1/0xc78e811e/rfc26"
    assert content_topic(personal_name(server)) == "/waku/1/0x4ed499e9/rfc26"
    assert all(map(go_uuid_ok, (IPHONE_ID, WRONG_TOKEN, SECOND_TOKEN))) and not go_uuid_ok("abc")
    assert len(IPHONE_TOKEN) == 64 and len(ANDROID_TOKEN) == 163 and ANDROID_TOKEN[22] == ":"

def main():
    known_values()
    flow, flow_payloads, replies = flow_section()
    keys, topics = key_sections()
    symmetric, asymmetric = envelope_sections()
    document = {
        "comment": "Generated by generate_status_vectors.py from status.md; do not edit by hand.",
        "keys": keys,
        "topics": topics,
        "wakuPayloads": waku_payload_section(),
        "symmetricEnvelopes": symmetric,
        "asymmetricEnvelopes": asymmetric,
        "applicationMessages": application_message_section(flow_payloads),
        "grants": grant_section(),
        "registrationCases": registration_cases(),
        "flow": flow,
        "responses": response_section(replies),
    }
    # An explicit path lets the test command regenerate into a scratch file and compare.
    path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "status.json")
    with open(path, "w", encoding="utf-8") as out:
        json.dump(document, out, indent=1, ensure_ascii=False)
        out.write("\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
