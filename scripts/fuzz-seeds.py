#!/usr/bin/env python3
"""Writes the fuzz targets' seed corpora (Fuzz/corpus/<Target>/) from Herald's test vectors and
the protocol examples, so the seeds can be checked against their sources and made again.

Run from the repository root: python3 scripts/fuzz-seeds.py. Each seed is a small real input;
the fuzzers' own finds go to .fuzz/, never here."""

import base64
import json
import os
import struct

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, "Fuzz", "corpus")


def vectors(path):
    with open(os.path.join(ROOT, path)) as file:
        return json.load(file)


def write(target, name, data):
    directory = os.path.join(CORPUS, target)
    os.makedirs(directory, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    with open(os.path.join(directory, name), "wb") as file:
        file.write(data)


def varint(value):
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def field(number, value):
    """A protobuf field: int as varint, bytes/str length-delimited."""
    if isinstance(value, bool):
        value = int(value)
    if isinstance(value, int):
        return varint(number << 3) + varint(value)
    if isinstance(value, str):
        value = value.encode()
    return varint(number << 3 | 2) + varint(len(value)) + value


def frame(kind, flags, stream, payload):
    """An HTTP/2 frame (RFC 9113 §4.1)."""
    return struct.pack(">I", len(payload))[1:] + bytes([kind, flags]) + struct.pack(">I", stream) + payload


def literal(name, value):
    """HPACK literal header field without indexing, new name (RFC 7541 §6.2.2)."""
    return b"\x00" + bytes([len(name)]) + name.encode() + bytes([len(value)]) + value.encode()


status = vectors("Tests/HeraldStatusTests/vectors/status.json")
crypto = vectors("Tests/HeraldCryptoTests/vectors/crypto.json")
didcomm = vectors("Tests/HeraldAriesTests/vectors/didcomm_v1.json")

# gorush /api/push bodies (gorush-api.md §2, Tests/HeraldGorushTests/GorushRequestTests.swift).
write("FuzzGorush", "status-go", '{"notifications":[{"tokens":["3c2f5d"],"platform":1,"message":"You have a new message","topic":"im.status.ethereum","data":{"encryptedMessage":"0x","chatId":"0xab","publicKey":"0xcd"}},{"tokens":["fcm-token"],"platform":2,"message":"Someone mentioned you","topic":"","data":{"encryptedMessage":"0x","chatId":"0xab","publicKey":"0xcd"}},{"tokens":["x"],"platform":0,"message":"dropped","topic":"","data":{}}]}')
write("FuzzGorush", "ios-alert", '{"notifications":[{"tokens":["a1b2"],"platform":1,"title":"Hi","message":"Hello","topic":"com.example.app","badge":3,"sound":{"critical":1,"name":"bell","volume":0.5},"priority":"high","apns_id":"AB-CD","collapse_id":"c","push_type":"alert","expiration":1700000000,"thread-id":"t","url-args":["a"],"interruption_level":"active","relevance-score":0.7,"content-state":{"n":1},"attributes":{"k":[1,true,null]}}]}')
write("FuzzGorush", "android", '{"notifications":[{"tokens":["t1","t2"],"to":"t3","platform":2,"title":"T","message":"M","image":"https://e/i.png","topic":"news","condition":"\'a\' in topics","priority":"normal","time_to_live":90,"data":{"s":"v","n":2,"o":{"x":[]}},"notification":{"title":"x"},"android":{"ttl":"5s"},"apns":{"headers":{}},"webpush":{},"fcm_options":{"analytics_label":"l"}}]}')
write("FuzzGorush", "too-many-tokens", '{"notifications":[{"tokens":["a","b","c","d","e","f","g"],"platform":1}]}')
write("FuzzGorush", "wrong-type", '{"notifications":[{"tokens":["a"],"platform":1,"mutable_content":1}]}')

# Waku (status.md §3–4): a selector byte, then the input (Fuzz/FuzzWaku/main.swift).
for index, case in enumerate(status["registrationCases"][:3]):
    write("FuzzWaku", f"messages-{index}", b"\x00" + json.dumps(case["message"]).encode())
write("FuzzWaku", "messages-array", b"\x00" + json.dumps([status["registrationCases"][0]["message"], {"payload": "", "contentTopic": "/waku/1/0x12345678/rfc26"}]).encode())
for payload in status["wakuPayloads"][:3] + status["wakuPayloads"][3:4]:
    write("FuzzWaku", f"payload-{len(payload['data']) // 2}", b"\x01" + bytes.fromhex(payload["encoded"]))
for envelope in status["symmetricEnvelopes"][:1]:
    write("FuzzWaku", "envelope", b"\x02" + bytes.fromhex(envelope["sealed"]))
write("FuzzWaku", "sealed-payload", b"\x03" + bytes.fromhex(status["wakuPayloads"][1]["encoded"]))
write("FuzzWaku", "signed", b"\x04" + bytes.fromhex(status["applicationMessages"][1]["encoded"]))

# ECIES (crypto.json): ciphertexts for the fixed key, a round trip, a key, a signature.
recipient = "3ec31ebd7ca305177d37ff70813d9315b2bc0bc5f6847cf4427bd35e102228e1"
for case in crypto["ecies"]:
    if case["recipientPrivate"] == recipient and len(case["ciphertext"]) < 800:
        write("FuzzECIES", f"decrypt-{len(case['message']) // 2}", b"\x00" + bytes.fromhex(case["ciphertext"]))
wrap = [case for case in crypto["ecies"] if case["name"] == "IV wraps around"][0]
write("FuzzECIES", "round-trip-iv-wraps", b"\x01" + bytes.fromhex(wrap["ephemeralPrivate"]) + bytes.fromhex(wrap["iv"]) + bytes.fromhex(wrap["message"]))
write("FuzzECIES", "key-compressed", b"\x02" + bytes.fromhex(crypto["keys"][0]["compressed"]))
write("FuzzECIES", "key-uncompressed", b"\x02" + bytes.fromhex(crypto["keys"][1]["uncompressed"]))
signature = crypto["signatures"][0]
write("FuzzECIES", "recover", b"\x03" + bytes.fromhex(signature["digest"]) + bytes.fromhex(signature["signature"]))

# Status protobufs: AMMs from the vectors, the query and request they carry, a registration.
for message in status["applicationMessages"][:3]:
    write("FuzzStatusProtobuf", f"amm-type-{message['type']}", b"\x00" + bytes.fromhex(message["encoded"]))
registration = (field(1, 1) + field(2, "a1b2c3d4") + field(3, "0f3ab2c4-5d6e-4f70-8192-a3b4c5d6e7f8")
                + field(4, "{0f3ab2c4-5d6e-4f70-8192-a3b4c5d6e7f8}") + field(5, True) + field(6, 2)
                + field(7, b"\x01" * 32) + field(8, b"\x02" * 32) + field(10, b"\x30\x44") + field(12, "im.status.ethereum")
                + field(14, b"\x03" * 32) + field(15, b"\x04" * 32) + field(99, "unknown field"))
write("FuzzStatusProtobuf", "registration", b"\x01" + registration)
write("FuzzStatusProtobuf", "query", b"\x02" + bytes.fromhex(status["applicationMessages"][1]["payload"]))
write("FuzzStatusProtobuf", "request", b"\x03" + bytes.fromhex(status["applicationMessages"][2]["payload"]))

# Web Push relay requests (webpush-relay.md §5, RFC 8030/8291/8292).
# A P-256 key (private scalar 0x1f2e3d4c…0f10) and an ES256 token it signed for
# https://push.example.net, expiring 12 hours after Fuzz/FuzzWebPush's fixed clock.
vapid_key = "BPqTHmfhXqLHYpjFZvuvDGmalUq2xkjHhd8QyKD1NvgiK1IojqUF8Ftts-PmBrzJdpQMTCfcp39PeFpAfd6ZS-I"
vapid_token = ("eyJ0eXAiOiJKV1QiLCJhbGciOiJFUzI1NiJ9.eyJhdWQiOiJodHRwczovL3B1c2guZXhhbXBsZS5uZXQiLCJleHAiOjE3MDAwNDMy"
               "MDAsInN1YiI6Im1haWx0bzphZG1pbkBleGFtcGxlLm5ldCJ9.cQNYqfwMNfuE6bMGDWAbVZV0qhkw7Yn2bxYVxnckMZL7Q-oTg9dl1eS8kSIg"
               "e51BzKX3JmRrW2cOxtBN005hzQ")
body = bytes(range(64))
sender = base64.urlsafe_b64encode(b"\x04" + b"\x11" * 64).rstrip(b"=").decode()
salt = base64.urlsafe_b64encode(b"\x22" * 16).rstrip(b"=").decode()
write("FuzzWebPush", "aes128gcm-vapid", f"/relay-to/production/a1b2c3d4e5f60718/account-1\ncontent-encoding: aes128gcm\nttl: 86400\nurgency: high\ntopic: update-1\nauthorization: vapid t={vapid_token}, k={vapid_key}\n\n".encode() + body)
write("FuzzWebPush", "aesgcm-webpush", f"/relay-to/development/A1B2C3D4\ncontent-encoding: aesgcm\ncrypto-key: dh={sender};p256ecdsa={vapid_key}\nencryption: salt={salt}\nttl: 0\nurgency: very-low\nauthorization: WebPush {vapid_token}\n\n".encode() + body[:20])
write("FuzzWebPush", "fcm-path", "/relay-to-fcm/app/dGVzdA:token_1-x/extra/part\nContent-Encoding: aes128gcm\nTTL: 60\n\n0123456789abcdefghij")
write("FuzzWebPush", "z85-body", "/relay-to/production/00\ncontent-encoding: aes128gcm\nttl: 5\n\nHelloWorld.-:+=^!/*?&<>()[]{}@%$#")

# DIDComm v1 (Tests/HeraldAriesTests/vectors/didcomm_v1.json) and Aries messages (aries.md).
write("FuzzAries", "authcrypt", b"\x00" + didcomm["authcrypt"].encode())
write("FuzzAries", "anoncrypt", b"\x00" + didcomm["anoncrypt"].encode())
message = bytes.fromhex(didcomm["message"])
write("FuzzAries", "pack-authcrypt", b"\x01" + message)
write("FuzzAries", "pack-anoncrypt", b"\x02" + message)
write("FuzzAries", "set-device-info", b"\x03" + message)
write("FuzzAries", "discover", b"\x03" + b'{"@type":"https://didcomm.org/discover-features/1.0/query","@id":"q1","query":"https://didcomm.org/push-notifications-*"}')
write("FuzzAries", "ack", b"\x03" + b'{"@type":"did:sov:BzCbsNYhMrjHiqZDTUASHg;spec/notification/1.0/ack","@id":"a","~thread":{"thid":"t"},"status":"OK"}')
write("FuzzAries", "fcm-token", b"\x03" + b'{"@type":"https://didcomm.org/push-notifications-fcm/1.0/set-device-info","@id":"i","device_token":"tok:en_-1","device_platform":"android","n":[1.5e300,-0.0,12345678901234567890]}')
write("FuzzAries", "notify", b"\x04" + b'{"connection_id":"c1","message_id":"m1","message_tags":["t1","t2"],"message_ids":["m2"]}')

# NotifyMe PushRegistration (silent-sync.md §1): selector 0 protobuf, 1 JSON.
write("FuzzSilent", "protobuf-ios", b"\x00" + field(1, 1) + field(2, "a1b2c3d4e5f6") + field(3, 0) + field(4, "device-1"))
write("FuzzSilent", "protobuf-fcm", b"\x00" + field(1, 3) + field(2, "fcm:token_1-2") + field(3, 1) + field(4, "device-2"))
write("FuzzSilent", "json-iod", b"\x01" + b'{"version":1,"pushToken":" A1B2 ","pushType":"IOD","deviceId":"device-3"}')
write("FuzzSilent", "json-unregister", b"\x03" + b'{"version":1,"pushToken":"","pushType":2,"deviceId":"d"}')

# Provider answers (apns.md §5, fcm.md §4): status line, headers, body.
write("FuzzProviderAnswers", "apns-410", '410\napns-id: 0a1b2c3d-0000-0000-0000-000000000000\n\n{"reason":"Unregistered","timestamp":1700000000000}')
write("FuzzProviderAnswers", "apns-429", '429\nretry-after: 120\n\n{"reason":"TooManyRequests"}')
write("FuzzProviderAnswers", "apns-503-date", '503\nretry-after: Wed, 21 Oct 2015 07:28:00 GMT\n\n{"reason":"ServiceUnavailable"}')
write("FuzzProviderAnswers", "fcm-404", '404\n\n{"error":{"code":404,"message":"Requested entity was not found.","status":"NOT_FOUND","details":[{"@type":"type.googleapis.com/google.firebase.fcm.v1.FcmError","errorCode":"UNREGISTERED"}]}}')
write("FuzzProviderAnswers", "fcm-200", '200\n\n{"name":"projects/p/messages/0:1"}')
# Found by the fuzzer: a combining mark in Retry-After trapped inside Foundation's DateFormatter.
write("FuzzProviderAnswers", "crash-retry-after-combining-mark", b"4\nretry-after: s\xd6\x9a")

# HTTP/2 server bytes after the preface (RFC 9113): control byte, then frames.
ok = frame(1, 0x04, 1, b"\x88" + literal("apns-id", "x")) + frame(0, 0x01, 1, b"{}")
gone = frame(1, 0x04, 3, b"\x00\x07:status\x03410") + frame(0, 0x01, 3, b'{"reason":"BadDeviceToken"}')
write("FuzzHTTP2", "two-answers", b"\x01" + ok + gone)
write("FuzzHTTP2", "dripped", bytes([0x04 * 3]) + ok)
write("FuzzHTTP2", "rst-and-goaway", b"\x02" + frame(3, 0, 1, struct.pack(">I", 7)) + frame(7, 0, 0, struct.pack(">II", 3, 0) + b'{"reason":"Shutdown"}'))
write("FuzzHTTP2", "settings-ping-window", b"\x03" + frame(4, 0, 0, struct.pack(">HI", 3, 1)) + frame(6, 0, 0, b"12345678") + frame(8, 0, 0, struct.pack(">I", 1000)) + frame(1, 0x05, 1, b"\x8d"))
write("FuzzHTTP2", "informational-trailers", b"\x00" + frame(1, 0x04, 1, b"\x00\x07:status\x03103") + frame(1, 0x04, 1, b"\x89") + frame(0, 0, 1, b"gone") + frame(1, 0x05, 1, literal("grpc-status", "0")))
