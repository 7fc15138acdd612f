#!/usr/bin/env python3
"""Writes Tests/HeraldMatrixTests/Vectors/sygnal-webpush-vectors.json: what Sygnal 0.17.0's WebPush
pushkin (sygnal/webpushpushkin.py) itself sends to a Web Push endpoint, and answers the homeserver, for a
set of POST /_matrix/push/v1/notify bodies.

How to run (from the repository root; nothing here is needed at test time, the Swift tests read the
committed JSON):

    python3 -m venv /tmp/sygvenv
    mkdir -p /tmp/syg && git --git-dir=<bare clone of github.com/element-hq/sygnal> archive v0.17.0 | tar -x -C /tmp/syg
    /tmp/sygvenv/bin/pip install /tmp/syg 'pywebpush==2.0.0' 'py-vapid==1.9.1' 'http-ece==1.2.0'
        # matrix-sygnal 0.17.0 with the WebPush libraries its poetry.lock pins (what its Docker image
        # ships), plus matrix-common 1.3.0 and Twisted. The pins matter: pyproject only says
        # pywebpush>=1.13.0, and pywebpush >= 2.2.0 (2026-01) breaks Sygnal 0.17.0's WebPush: its
        # WebPusher.send() logs resp.headers, which Sygnal's HttpDelayedRequest lacks, so every push
        # raises AttributeError and the homeserver gets a 500 (this script refuses to run with them).
    /tmp/sygvenv/bin/python scripts/matrix-webpush-vectors.py            # rewrites the JSON
    /tmp/sygvenv/bin/python scripts/matrix-webpush-vectors.py --check    # exit 1 if the JSON differs
    /tmp/sygvenv/bin/python scripts/matrix-webpush-vectors.py --out FILE # write elsewhere

What runs: Sygnal's own Sygnal object, HTTP resource (V1NotifyHandler) and WebpushPushkin, configured
from the dict below, on Twisted's MemoryReactorClock, with pywebpush's real webpush() (VAPID signing with
py-vapid, aes128gcm encryption with http_ece) and Sygnal's own HttpRequestFactory/HttpDelayedRequest;
scripts/sygnal_harness.py, shared with matrix-vectors.py, starts it, POSTs the requests and holds the
command line. Only the network is replaced: WebpushPushkin.http_agent (Twisted ProxyAgent) is replaced by
a recorder of the method, URL, headers and body bytes that HttpDelayedRequest.execute hands it, answering
a chosen status/body/headers (or failing like a refused connection).

Nothing else is patched. webpushpushkin.webpush is wrapped by a spy that records the arguments Sygnal
passes (subscription_info, the plaintext `data` string, ttl, the vapid_claims dict before pywebpush adds
aud/exp) and then calls the real webpush(). The recorder decrypts every body it receives with the
subscription's private key (http_ece.decrypt) and stops with an error unless the result is byte-for-byte
the `data` string Sygnal passed: "plaintext" in the JSON is therefore exactly what went over the wire.

Keys are derived deterministically (P-256 private scalars from SHA-256 of fixed labels) so the JSON is
stable: the subscription's p256dh/auth (the pushkey and data.auth of the requests) and the VAPID key
(Sygnal's vapid_private_key; its public key is the k= of the Authorization header). Values that change on
every run are replaced: the JWT in Authorization (ES256, random signature, exp = now + 12 h) by
"<ES256 JWT>", after checking its signature with the VAPID public key, its header and claims; the
encrypted body (random salt and ephemeral key) is described by its length and aes128gcm header fields.
"""

import base64
import copy
import hashlib
import importlib.metadata
import json
import math
import os
import struct
import sys
import tempfile
import time

# python scripts/matrix-webpush-vectors.py already has this folder on the path; runpy, exec or an import
# from elsewhere do not, and sygnal_harness lives next to this file.
HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

try:
    import http_ece
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec, utils as ec_utils
    from twisted.internet.defer import fail, succeed
    from twisted.internet.error import ConnectionRefusedError

    import sygnal.webpushpushkin
    from sygnal.webpushpushkin import WebpushPushkin

    import sygnal_harness  # inside the try: its Twisted and Sygnal imports fail the same way
except ImportError as error:
    sys.exit("matrix-webpush-vectors: run me with the Python of a venv holding matrix-sygnal 0.17.0 (see the top of this file): %s" % error)

DEFAULT_OUT = os.path.join(sygnal_harness.VECTORS, "sygnal-webpush-vectors.json")

# --- apps and keys --------------------------------------------------------------------------------

WEB_APP = "com.example.web"  # allowed_endpoints set, default ttl
OPEN_APP = "com.example.web.open"  # no allowed_endpoints, ttl 3600
VAPID_EMAIL = "push-admin@example.org"
ALLOWED_ENDPOINTS = ["fcm.googleapis.com", "updates.push.services.mozilla.com", "*.notify.windows.com", "push.example.org:8443"]
OPEN_TTL = 3600
PUSHKEY_TS = 1700000000

EV = "$qTOWWTEL48yPm3uT-gdNhFcoHxfKbZuqRVnnWWSkGBs"
ROOM = "!slw48wfj34rtnrf:example.org"
FCM_ENDPOINT = "https://fcm.googleapis.com/fcm/send/dQw4w9WgXcQ:APA91bExampleWebPushToken"
MOZ_ENDPOINT = "https://updates.push.services.mozilla.com/wpush/v2/gAAAAABexampleToken"
WNS_ENDPOINT = "https://wns2-par02p.notify.windows.com/w/?token=BQYAAABexample"
OPEN_ENDPOINT = "https://push.example.net:8443/push/abc123"

P256_ORDER = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def derived_key(label):
    scalar = int.from_bytes(hashlib.sha256(label.encode()).digest(), "big") % (P256_ORDER - 1) + 1
    return ec.derive_private_key(scalar, ec.SECP256R1())


def public_point(key):
    return key.public_key().public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)


RECEIVER_KEY = derived_key("herald sygnal-webpush-vectors receiver")
P256DH = b64url(public_point(RECEIVER_KEY))  # the pushkey: base64url, no padding (PushSubscription.toJSON())
AUTH_SECRET = hashlib.sha256(b"herald sygnal-webpush-vectors auth").digest()[:16]
AUTH = b64url(AUTH_SECRET)
SECOND_KEY = derived_key("second receiver")  # a second browser, for the two-device rows
RECEIVERS = {public_point(k): k for k in (RECEIVER_KEY, SECOND_KEY)}
VAPID_KEY = derived_key("herald sygnal-webpush-vectors vapid")
VAPID_PUBLIC = b64url(public_point(VAPID_KEY))


def web_device(app=WEB_APP, pushkey=None, endpoint=FCM_ENDPOINT, auth=AUTH, **data):
    device = {"app_id": app, "pushkey": P256DH if pushkey is None else pushkey, "pushkey_ts": PUSHKEY_TS}
    d = {}
    if endpoint is not None:
        d["endpoint"] = endpoint
    if auth is not None:
        d["auth"] = auth
    d.update(data)
    device["data"] = d
    return device


# --- the vectors ----------------------------------------------------------------------------------


def long_body(prefix_scalars, tail):
    return "x" * prefix_scalars + tail


def vectors():
    out = []

    def add(name, description, notification, devices=None):
        out.append({"name": name, "description": description, "notification": notification, "devices": devices or [web_device()]})

    full = {
        "event_id": EV,
        "room_id": ROOM,
        "type": "m.room.message",
        "sender": "@major:example.org",
        "sender_display_name": "Major Tom",
        "room_name": "Mission Control",
        "room_alias": "#mission:example.org",
        "prio": "high",
        "content": {"msgtype": "m.text", "body": "I'm floating in a most peculiar way.", "format": "org.matrix.custom.html", "formatted_body": "<i>I'm floating</i> in a most peculiar way."},
        "counts": {"unread": 2, "missed_calls": 1},
    }
    add(
        "full_message",
        "m.text in a named room with alias and sender display name, unread + missed_calls, tweaks (ignored), format/formatted_body in content (formatted_body removed)",
        full,
        [dict(web_device(), tweaks={"sound": "bing", "highlight": False})],
    )
    add(
        "event_id_only",
        "Synapse's event_id_only shape (event_id, room_id, counts, prio); data.format is not read by Sygnal",
        {"event_id": EV, "room_id": ROOM, "prio": "high", "counts": {"unread": 3}},
        [web_device(format="event_id_only")],
    )
    add(
        "mention_unread_missed_calls",
        "mention in a DM (no room name/alias) with m.mentions, counts unread + missed_calls, highlight tweak",
        {
            "event_id": "$mention1",
            "room_id": "!dm:example.org",
            "type": "m.room.message",
            "sender": "@bob:example.org",
            "sender_display_name": "Bob",
            "prio": "high",
            "content": {"msgtype": "m.text", "body": "@alice: lunch?", "m.mentions": {"user_ids": ["@alice:example.org"]}},
            "counts": {"unread": 1, "missed_calls": 3},
        },
        [dict(web_device(), tweaks={"sound": "default", "highlight": True})],
    )
    enc = {
        "algorithm": "m.megolm.v1.aes-sha2",
        "device_id": "RJYKSTBOIE",
        "sender_key": "IlRMeOPX2e0MurIyfWEucYBRVOEEUMrOHqn/8mLqMjA",
        "session_id": "X3lUlvLELLYxeTx4yOVu6UDpasGEVO0Jbu+QFnm0cKQ",
    }
    ct_unit = "AwgAEnACgAkLmt6qF84IK++J7UDH2Za1YVchHyprqTqsg/"  # 46 chars of base64
    for name, length, what in (
        ("encrypted_ciphertext_short", 300, "kept"),
        ("encrypted_ciphertext_2000", 2000, "exactly 2000 chars: kept"),
        ("encrypted_ciphertext_2001", 2001, "2001 chars: removed"),
        ("encrypted_ciphertext_long", 2600, "2600 chars: removed, the rest of content kept"),
    ):
        content = dict(enc, ciphertext=(ct_unit * 100)[:length])
        add(
            name,
            "m.room.encrypted in a named room, ciphertext of %d chars (%s)" % (length, what),
            {"event_id": "$enc-%d" % length, "room_id": ROOM, "type": "m.room.encrypted", "sender": "@major:example.org", "sender_display_name": "Major Tom", "room_name": "Mission Control", "prio": "high", "content": content, "counts": {"unread": 4}},
        )
    add(
        "invite",
        "m.room.member invite, membership invite, user_is_target true, room name",
        {"event_id": "$invite1", "room_id": "!party:example.org", "type": "m.room.member", "sender": "@alice:example.org", "sender_display_name": "Alice", "room_name": "Party", "membership": "invite", "user_is_target": True, "prio": "high", "content": {"membership": "invite", "displayname": "Carol"}, "counts": {"unread": 1}},
    )
    add(
        "member_join_user_is_target_false",
        "m.room.member join with user_is_target false (falsy: omitted), prio low, no counts",
        {"event_id": "$join1", "room_id": ROOM, "type": "m.room.member", "sender": "@major:example.org", "membership": "join", "user_is_target": False, "prio": "low", "content": {"membership": "join"}},
    )
    add(
        "badge_only_synapse_shape",
        "Synapse _send_badge shape {id:'', type:null, sender:'', counts:{unread:0}}: only unread (0 is kept: 'is not None')",
        {"id": "", "type": None, "sender": "", "counts": {"unread": 0}},
    )
    add(
        "badge_only_spec_shape",
        "badge-only with counts only: unread and missed_calls flattened",
        {"counts": {"unread": 5, "missed_calls": 2}},
    )
    add(
        "badge_only_no_counts",
        "badge-only without counts, with default_payload: payload is the default_payload alone",
        {"id": "", "type": None, "sender": ""},
        [web_device(default_payload={"acct": "a1"})],
    )
    owl = "\U0001F989"  # 4 UTF-8 bytes, 1 scalar, 2 UTF-16 units
    family = "\U0001F469\u200D\U0001F469\u200D\U0001F467"  # 5 scalars
    e_acute = "e\u0301"  # 2 scalars
    flag = "\U0001F1E9\U0001F1EA"  # 2 scalars
    # 990 "x", then an owl at scalar 990, the family at 991..995, e+acute at 996..997, flag at 998..999:
    # the cut keeps scalars 0..998 (the first regional indicator) and appends U+2026.
    cut_body = "x" * 990 + owl + family + e_acute + flag + "\u00e9" * 20 + "\u4e2d" * 20
    add(
        "body_over_1000_multibyte_at_cut",
        "body of %d scalars with astral, ZWJ, combining and flag sequences across scalar 999: cut to 999 scalars + U+2026 (splits the flag)" % len(cut_body),
        {"event_id": "$long1", "room_id": ROOM, "type": "m.room.message", "sender": "@major:example.org", "sender_display_name": "Major Tom", "room_name": "Mission Control", "prio": "high", "content": {"msgtype": "m.text", "body": cut_body}, "counts": {"unread": 2}},
    )
    add(
        "body_1000_owls",
        "body of exactly 1000 astral scalars (2000 UTF-16 units): not cut (the limit counts scalars)",
        {"event_id": "$long2", "room_id": ROOM, "type": "m.room.message", "sender": "@major:example.org", "prio": "high", "content": {"msgtype": "m.text", "body": owl * 1000}},
    )
    add(
        "body_1001_owls",
        "body of 1001 astral scalars: cut to 999 owls + U+2026",
        {"event_id": "$long3", "room_id": ROOM, "type": "m.room.message", "sender": "@major:example.org", "prio": "high", "content": {"msgtype": "m.text", "body": owl * 1001}},
    )
    add(
        "body_1001_ascii",
        "body of 1001 ASCII chars: cut to 999 + U+2026 (1000 scalars)",
        {"event_id": "$long4", "room_id": ROOM, "type": "m.room.message", "sender": "@major:example.org", "prio": "high", "content": {"msgtype": "m.text", "body": "a" * 1001}},
    )
    add(
        "body_not_a_string",
        "content.body that is not a string (a list of 2000 items) is neither cut nor removed; ciphertext not a string is kept",
        {"event_id": "$weird", "room_id": ROOM, "type": "m.room.message", "sender": "@major:example.org", "prio": "high", "content": {"msgtype": "m.text", "body": list(range(5)), "ciphertext": {"k": "x" * 2500}}},
    )
    add(
        "non_ascii_fields",
        "non-ASCII room name, display name and body: json.dumps' default ASCII output (\\u escapes, surrogate pairs), spaced separators",
        {"event_id": "$utf8", "room_id": ROOM, "type": "m.room.message", "sender": "@j\u00fcrgen:example.org", "sender_display_name": "J\u00fcrgen \U0001F98A", "room_name": "Caf\u00e9 \u2615 \u4e2d\u6587", "prio": "high", "content": {"msgtype": "m.text", "body": "Gr\u00fc\u00dfe \"quoted\" back\\slash\nnewline\ttab \u2028 / \u007f \U0001F989"}, "counts": {"unread": 1}},
    )
    add(
        "falsy_fields_omitted",
        "empty room_name / sender_display_name / room_alias / membership, user_is_target false: omitted; counts 0 kept; empty content object omitted",
        {"event_id": "$falsy", "room_id": ROOM, "type": "m.room.message", "sender": "@a:example.org", "sender_display_name": "", "room_name": "", "room_alias": "", "membership": "", "user_is_target": False, "prio": "high", "content": {}, "counts": {"unread": 0, "missed_calls": 0}},
    )
    add(
        "non_string_fields_forwarded",
        "fields are not type-checked: a numeric room_name, a list sender_display_name, a string content (ignored: not an object)",
        {"event_id": "$types", "room_id": ROOM, "type": "m.room.message", "sender": "@a:example.org", "sender_display_name": ["x"], "room_name": 42, "prio": "high", "content": "just a string"},
    )
    add(
        "events_only_badge_dropped",
        "events_only: true with a badge-only notification: nothing sent, nothing rejected",
        {"id": "", "type": None, "sender": "", "counts": {"unread": 0}},
        [web_device(events_only=True)],
    )
    add(
        "events_only_with_event",
        "events_only: true with an event: sent normally (events_only not in the payload)",
        {"event_id": "$eo", "room_id": ROOM, "prio": "high", "counts": {"unread": 1}},
        [web_device(events_only=True)],
    )
    add(
        "events_only_string_true",
        "events_only: \"true\" (a string) is not True: the badge push is sent",
        {"counts": {"unread": 0}},
        [web_device(events_only="true")],
    )
    add(
        "events_only_empty_event_id",
        "events_only: true and event_id '' (falsy): dropped",
        {"event_id": "", "room_id": ROOM, "counts": {"unread": 1}},
        [web_device(events_only=True)],
    )
    add(
        "only_last_per_room",
        "only_last_per_room: true: Topic = urlsafe_b64encode(blake2s(room_id, digest_size=22)), with padding",
        {"event_id": "$olpr", "room_id": ROOM, "type": "m.room.message", "sender": "@major:example.org", "prio": "high", "content": {"msgtype": "m.text", "body": "hi"}, "counts": {"unread": 1}},
        [web_device(only_last_per_room=True)],
    )
    add(
        "only_last_per_room_other_room",
        "only_last_per_room with a non-ASCII room ID (UTF-8 hashed)",
        {"event_id": "$olpr2", "room_id": "!r\u00e4um:example.org", "prio": "high", "counts": {"unread": 1}},
        [web_device(only_last_per_room=True)],
    )
    add(
        "only_last_per_room_badge",
        "only_last_per_room: true but no room_id (badge-only): no Topic",
        {"counts": {"unread": 2}},
        [web_device(only_last_per_room=True)],
    )
    add(
        "only_last_per_room_string_true",
        "only_last_per_room: \"true\" (a string) is not True: no Topic",
        {"event_id": "$olpr3", "room_id": ROOM, "prio": "high"},
        [web_device(only_last_per_room="true")],
    )
    add("prio_low", "prio low: Urgency low", {"event_id": "$p1", "room_id": ROOM, "prio": "low", "counts": {"unread": 1}})
    add("prio_high", "prio high: Urgency normal (Web Push high is never used)", {"event_id": "$p2", "room_id": ROOM, "prio": "high", "counts": {"unread": 1}})
    add("prio_missing", "no prio: Urgency normal", {"event_id": "$p3", "room_id": ROOM, "counts": {"unread": 1}})
    add("prio_other", "prio 'LOW' (case differs): Urgency normal", {"event_id": "$p4", "room_id": ROOM, "prio": "LOW", "counts": {"unread": 1}})
    add(
        "default_payload_merged",
        "default_payload first (its key order), notification fields overwrite same-named keys in place (room_id, unread, content), other keys kept",
        {"event_id": "$dp1", "room_id": ROOM, "type": "m.room.message", "sender": "@major:example.org", "room_alias": "#mission:example.org", "prio": "low", "content": {"msgtype": "m.emote", "body": "waves"}, "counts": {"unread": 7}},
        [web_device(default_payload={"acct": "a1", "room_id": "overridden", "unread": 99, "content": {"body": "overridden"}, "prio": "kept", "nested": {"a": [1, 2, None, True]}})],
    )
    add(
        "default_payload_kept_when_absent",
        "default_payload keys with the names of absent/falsy notification fields survive (room_name '', no counts, no content)",
        {"event_id": "$dp2", "room_id": ROOM, "room_name": "", "prio": "high"},
        [web_device(default_payload={"room_name": "from default", "unread": "n/a", "missed_calls": 0, "content": {"x": 1}, "user_is_target": "dp"})],
    )
    add(
        "default_payload_not_object",
        "default_payload that is not an object: ignored (not rejected, unlike APNs/FCM)",
        {"event_id": "$dp3", "room_id": ROOM, "prio": "high", "counts": {"unread": 1}},
        [web_device(default_payload=["x"])],
    )
    add(
        "ttl_config_and_endpoint_port",
        "an app with ttl: 3600 and no allowed_endpoints, endpoint with an explicit port (VAPID aud keeps it)",
        {"event_id": "$ttl", "room_id": ROOM, "prio": "high", "counts": {"unread": 1}},
        [web_device(app=OPEN_APP, endpoint=OPEN_ENDPOINT)],
    )
    add(
        "pushkey_padded_standard_base64",
        "pushkey (p256dh) and auth in standard base64 with padding: accepted (pywebpush decodes leniently)",
        {"event_id": "$pad", "room_id": ROOM, "prio": "high", "counts": {"unread": 1}},
        [web_device(app=OPEN_APP, pushkey=base64.b64encode(public_point(RECEIVER_KEY)).decode(), auth=base64.b64encode(AUTH_SECRET).decode(), endpoint=OPEN_ENDPOINT)],
    )
    add(
        "allowed_endpoint_glob_and_case",
        "endpoint host matched case-insensitively by the glob *.notify.windows.com (upper-case host)",
        {"event_id": "$wns", "room_id": ROOM, "prio": "high", "counts": {"unread": 1}},
        [web_device(endpoint=WNS_ENDPOINT.replace("wns2-par02p.notify.windows.com", "WNS2-PAR02P.Notify.Windows.com"))],
    )
    add(
        "allowed_endpoint_with_port_in_list",
        "allowed_endpoints entry push.example.org:8443 matches an endpoint on that port",
        {"event_id": "$port", "room_id": ROOM, "prio": "high", "counts": {"unread": 1}},
        [web_device(endpoint="https://push.example.org:8443/p/xyz")],
    )
    big = {"msgtype": "m.text", "body": "short", "org.example.blob": "z" * 5000}
    add(
        "plaintext_over_4096",
        "no overall size limit: a 5000-char extra content field gives a ~5.2 KB plaintext, sent as a 2-record aes128gcm body over 4096 bytes",
        {"event_id": "$big", "room_id": ROOM, "type": "m.room.message", "sender": "@major:example.org", "prio": "high", "content": big, "counts": {"unread": 1}},
    )
    add(
        "two_devices",
        "two Web Push devices in one request (different endpoints, one with default_payload): one POST each, in order",
        {"event_id": "$two", "room_id": ROOM, "type": "m.room.message", "sender": "@major:example.org", "prio": "high", "content": {"msgtype": "m.text", "body": "to both"}, "counts": {"unread": 1}},
        [web_device(), web_device(endpoint=MOZ_ENDPOINT, default_payload={"acct": "b2"})],
    )
    return out


def rejections():
    base = {"event_id": "$e", "room_id": ROOM, "type": "m.room.message", "sender": "@major:example.org", "prio": "high", "content": {"msgtype": "m.text", "body": "hi"}, "counts": {"unread": 1}}
    rows = []

    def row(name, description, devices, answers=(), notification=None):
        rows.append({"name": name, "description": description, "notification": notification or base, "devices": devices, "answers": list(answers)})

    D = [web_device()]
    for status, body, what in (
        (201, "", "Created: accepted"),
        (200, "", "200 (not 201): accepted, only logged"),
        (202, "", "202: accepted, only logged"),
        (400, '{"code":400,"errno":999,"error":"Bad Request"}', "400: logged, not rejected, no retry"),
        (401, '{"code":401,"errno":109,"error":"Unauthorized"}', "401 (VAPID refused): logged, not rejected"),
        (403, "the key in the authorization header does not correspond to the sender ID", "403: logged, not rejected"),
        (404, '{"code":404,"errno":102,"error":"Not Found"}', "404: pushkey rejected"),
        (410, '{"code":410,"errno":106,"error":"Gone","message":"Request did not validate No such subscription"}', "410: pushkey rejected"),
        (413, '{"code":413,"errno":104,"error":"Payload Too Large"}', "413: logged, not rejected"),
        (429, '{"code":429,"errno":201,"error":"Too Many Requests"}', "429: logged, not rejected, no retry"),
        (500, "Internal Server Error", "500: logged, not rejected, no retry"),
        (503, "Service Unavailable", "503: logged, not rejected, no retry"),
    ):
        row("endpoint_%d" % status, "endpoint answers %d: %s" % (status, what), D, [{"status": status, "body": body}])
    row("endpoint_201_other_ttl", "endpoint answers 201 with a TTL header lower than asked: only logged", D, [{"status": 201, "body": "", "headers": {"TTL": "60"}}])
    row("endpoint_connection_refused", "the POST fails (connection refused): the exception escapes, 500 with an empty body", D, [{"error": "ConnectionRefusedError"}])
    row("missing_data", "device without data: rejected without sending", [{"app_id": WEB_APP, "pushkey": P256DH, "pushkey_ts": PUSHKEY_TS}])
    row("missing_auth", "data without auth: rejected without sending", [web_device(auth=None)])
    row("missing_endpoint", "data without endpoint: rejected without sending", [web_device(endpoint=None)])
    row("auth_not_string", "data.auth a number: rejected", [web_device(auth=12345)])
    row("endpoint_not_string", "data.endpoint an object: rejected", [web_device(endpoint={"url": FCM_ENDPOINT})])
    row("empty_pushkey", "pushkey '' (no p256dh): rejected, the rejected list carries ''", [web_device(pushkey="")])
    row("empty_auth", "data.auth '' is a string: not rejected by Sygnal; pywebpush then fails ('No keys specified'): 500", [web_device(auth="")])
    row("data_not_object", "data a string: 400 from the request validation (notifications.py)", [dict(web_device(), data="x")])
    row("events_only_badge_missing_auth", "events_only: true, badge-only, auth missing: dropped before the subscription check (not rejected)", [web_device(auth=None, events_only=True)], notification={"counts": {"unread": 0}})
    row("endpoint_not_allowed", "endpoint host not in allowed_endpoints: nothing sent, not rejected (200 [])", [web_device(endpoint="https://push.evil.example/abc")])
    row("endpoint_default_port_not_allowed", "https://fcm.googleapis.com:443/...: netloc 'fcm.googleapis.com:443' does not match 'fcm.googleapis.com': dropped", [web_device(endpoint="https://fcm.googleapis.com:443/fcm/send/abc")])
    row("endpoint_userinfo_not_allowed", "userinfo in the endpoint is part of the matched netloc: dropped", [web_device(endpoint="https://user@fcm.googleapis.com/fcm/send/abc")])
    row("endpoint_glob_apex_not_allowed", "*.notify.windows.com does not match notify.windows.com itself ('.' literal): dropped", [web_device(endpoint="https://notify.windows.com/w/abc")])
    row("endpoint_not_allowed_missing_auth", "auth missing and endpoint not allowed: rejected (the subscription check runs first)", [web_device(endpoint="https://push.evil.example/abc", auth=None)])
    row("pushkey_not_65_bytes", "pushkey decoding to 64 bytes: pywebpush raises WebPushException: 500, nothing sent", [web_device(pushkey=b64url(public_point(RECEIVER_KEY)[:64]))])
    row("pushkey_not_on_curve", "pushkey of 65 bytes that is not a P-256 point: the encryption raises: 500, nothing sent", [web_device(pushkey=b64url(b"\x04" + b"\x01" * 64))])
    row("pushkey_66_bytes", "pushkey with one base64 char too many (decodes to 66 bytes): WebPushException: 500", [web_device(pushkey=P256DH + "A")])
    row("pushkey_base64_length_1_mod_4", "pushkey whose base64 length is 1 mod 4: the base64 decoding raises: 500", [web_device(pushkey=P256DH + "AB")])
    row("endpoint_not_http", "an endpoint with a non-http(s) scheme on the open app: VAPID aud check raises: 500", [web_device(app=OPEN_APP, endpoint="ftp://push.example.net/abc")])
    row(
        "two_devices_410_then_201",
        "first device 410, second 201: 200 with the first pushkey",
        [web_device(), web_device(endpoint=MOZ_ENDPOINT, pushkey=b64url(public_point(SECOND_KEY)))],
        [{"status": 410, "body": ""}, {"status": 201, "body": ""}],
    )
    row(
        "two_devices_410_then_refused",
        "first device 410, second connection refused: 500, the rejection is lost",
        [web_device(), web_device(endpoint=MOZ_ENDPOINT, pushkey=b64url(public_point(SECOND_KEY)))],
        [{"status": 410, "body": ""}, {"error": "ConnectionRefusedError"}],
    )
    return rows


# --- fake Web Push endpoint (the Twisted agent WebpushPushkin posts with) --------------------------------


class FakeEndpoint(sygnal_harness.RecordingAgent):
    """answers: a queue of {"status", "body", "headers"} or {"error": ...}; empty -> 201."""

    def __init__(self):
        super().__init__({"status": 201, "body": ""})

    def respond(self, answer):
        if "error" in answer:
            assert answer["error"] == "ConnectionRefusedError"
            return fail(ConnectionRefusedError("fake: connection refused"))
        return succeed(sygnal_harness.FakeResponse(answer["status"], answer["body"].encode(), answer.get("headers", {})))


# --- the Sygnal under test ---------------------------------------------------------------------------


class Harness:
    def __init__(self, workdir):
        keyfile = os.path.join(workdir, "vapid_private_key.pem")
        with open(keyfile, "wb") as f:
            f.write(VAPID_KEY.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
        self.web_config = {"type": "webpush", "vapid_private_key": keyfile, "vapid_contact_email": VAPID_EMAIL, "allowed_endpoints": list(ALLOWED_ENDPOINTS)}
        self.open_config = {"type": "webpush", "vapid_private_key": keyfile, "vapid_contact_email": VAPID_EMAIL, "ttl": OPEN_TTL}
        self.reactor, self.sygnal, self.site = sygnal_harness.start_sygnal({WEB_APP: self.web_config, OPEN_APP: self.open_config})

        self.endpoint = FakeEndpoint()
        for app in (WEB_APP, OPEN_APP):
            pushkin = self.sygnal.pushkins[app]
            assert isinstance(pushkin, WebpushPushkin)
            pushkin.http_agent = self.endpoint

        # A spy around pywebpush.webpush as imported by the pushkin: records, then runs the real one.
        self.calls = []
        real_webpush = sygnal.webpushpushkin.webpush

        def webpush_spy(**kwargs):
            call = {
                "subscription_info": copy.deepcopy(kwargs["subscription_info"]),
                "data": kwargs["data"],
                "ttl": kwargs["ttl"],
                "vapid_claims_passed": copy.deepcopy(kwargs["vapid_claims"]),
                "vapid_private_key_is_pushkin_key": kwargs["vapid_private_key"] is not None,
                "other_args": sorted(set(kwargs) - {"subscription_info", "data", "ttl", "vapid_claims", "vapid_private_key", "requests_session"}),
                "time_before": int(time.time()),
            }
            self.calls.append(call)
            try:
                result = real_webpush(**kwargs)
            except Exception as error:
                call["raised"] = "%s: %s" % (type(error).__name__, error)
                raise
            call["time_after"] = int(time.time())
            call["vapid_claims_after"] = copy.deepcopy(kwargs["vapid_claims"])
            return result

        sygnal.webpushpushkin.webpush = webpush_spy

    def post(self, body, answers=()):
        self.endpoint.sent.clear()
        self.endpoint.answers[:] = [dict(a) for a in answers]
        self.calls.clear()
        # The WebPush pushkin never retries, so a minute is plenty; Sygnal's 400 for a malformed device
        # (data not an object) is plain text, not JSON.
        answer, seconds = sygnal_harness.notify(self.reactor, self.site, body, give_up_after=60, lenient=True)
        assert not self.endpoint.answers, ("answers left unused", body)
        return answer, list(self.endpoint.sent), list(self.calls), seconds


# --- turning what was recorded into JSON ------------------------------------------------------------


def b64url_decode(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def check_jwt(token, call):
    header_b64, claims_b64, sig_b64 = token.split(".")
    header_json = b64url_decode(header_b64).decode()
    claims_json = b64url_decode(claims_b64).decode()
    sig = b64url_decode(sig_b64)
    assert len(sig) == 64, len(sig)
    der = ec_utils.encode_dss_signature(int.from_bytes(sig[:32], "big"), int.from_bytes(sig[32:], "big"))
    VAPID_KEY.public_key().verify(der, ("%s.%s" % (header_b64, claims_b64)).encode(), ec.ECDSA(hashes.SHA256()))
    assert header_json == '{"typ":"JWT","alg":"ES256"}', header_json
    claims = json.loads(claims_json)
    assert list(claims) == sorted(claims) and set(claims) == {"aud", "exp", "sub"}, claims
    assert json.dumps(claims, separators=(",", ":"), sort_keys=True) == claims_json
    assert call["time_before"] + 43200 <= claims["exp"] <= call["time_after"] + 43200, claims
    assert claims == call["vapid_claims_after"], (claims, call["vapid_claims_after"])
    return header_json, claims


def header(headers, name):
    found = [v for k, v in headers.items() if k.lower() == name.lower()]
    assert len(found) <= 1, (name, headers)
    return found[0] if found else None


def lenient_b64decode(text):
    return b64url_decode(text.replace("+", "-").replace("/", "_").rstrip("="))


def sent_record(sent, call):
    assert sent["method"] == "POST"
    headers = {}
    for name, values in sent["headers"]:
        assert len(values) == 1 and name not in headers, (name, values)
        headers[name] = values[0]
    # Authorization: vapid t=<JWT>,k=<VAPID public key>
    scheme, rest = headers["Authorization"].split(" ", 1)
    assert scheme == "vapid", headers["Authorization"]
    parts = dict(p.split("=", 1) for p in rest.split(","))
    assert list(parts) == ["t", "k"] and parts["k"] == VAPID_PUBLIC, parts
    jwt_header, claims = check_jwt(parts["t"], call)
    headers["Authorization"] = "vapid t=<ES256 JWT>,k=" + parts["k"]

    # The body: aes128gcm (RFC 8188) header, then records; decrypt it and compare with what Sygnal passed.
    body = sent["body"]
    rs, idlen = struct.unpack("!L", body[16:20])[0], body[20]
    keyid = body[21 : 21 + idlen]
    assert idlen == 65 and keyid[0] == 4, (idlen, keyid[:1])
    keys = call["subscription_info"]["keys"]
    receiver = RECEIVERS[lenient_b64decode(keys["p256dh"])]
    plaintext = http_ece.decrypt(body, private_key=receiver, auth_secret=lenient_b64decode(keys["auth"]), version="aes128gcm")
    data = call["data"]
    assert isinstance(data, str)
    assert plaintext == data.encode("utf-8"), "the body does not decrypt to the data Sygnal passed"
    ciphertext_len = len(body) - 21 - idlen
    records = math.ceil(ciphertext_len / rs)
    assert len(plaintext) + records * 17 == ciphertext_len, (len(plaintext), records, ciphertext_len)

    sub = call["subscription_info"]
    claims_recorded = dict(claims, exp="<time of sending + 43200>")
    return {
        "endpoint": sent["url"],
        "method": sent["method"],
        "headers": headers,
        "ttl": header(headers, "TTL"),
        "urgency": header(headers, "Urgency"),
        "topic": header(headers, "Topic"),
        "subscription_info": sub,
        "webpush_ttl_arg": call["ttl"],
        "vapid_claims_passed": call["vapid_claims_passed"],
        "vapid_claims_signed": claims_recorded,
        "vapid_jwt_header": jwt_header,
        "payload": json.loads(data),
        "plaintext": data,
        "plaintext_bytes": len(plaintext),
        "plaintext_sha256": hashlib.sha256(plaintext).hexdigest(),
        "encrypted_body": {"bytes": len(body), "rs": rs, "idlen": idlen, "records": records},
    }


def request_of(notification, devices):
    n = copy.deepcopy(notification)
    n["devices"] = copy.deepcopy(devices)
    return {"notification": n}


def run(h, item):
    request = request_of(item["notification"], item["devices"])
    answer, sent, calls, seconds = h.post(request, item.get("answers", ()))
    assert seconds == 0, (item["name"], seconds)
    assert len(sent) <= len(calls), item["name"]
    records = []
    for i, s in enumerate(sent):
        assert s["url"] == calls[i]["subscription_info"]["endpoint"], item["name"]
        records.append(sent_record(s, calls[i]))
    row = {"name": item["name"], "description": item["description"], "request": request}
    if "answers" in item:
        row["endpoint_answers"] = item["answers"]
    row["webpush_calls"] = len(calls)
    raised = [c["raised"] for c in calls if "raised" in c]
    if raised:
        row["webpush_raised"] = raised
    row["sent"] = records
    row["answer"] = answer
    return row


def independent_checks(rows):
    """Recompute what the facts page states, from the recorded requests, and compare."""
    for row in rows:
        n = row["request"]["notification"]
        for s in row["sent"]:
            if n.get("room_id") and (row["request"]["notification"]["devices"][0].get("data") or {}).get("only_last_per_room") is True:
                assert s["topic"] is not None, row["name"]
            if s["topic"] is not None:
                digest = hashlib.blake2s(n["room_id"].encode("utf-8"), digest_size=22).digest()
                assert s["topic"] == base64.urlsafe_b64encode(digest).decode(), row["name"]
                assert len(s["topic"]) == 32 and s["topic"].endswith("=="), s["topic"]
            assert s["urgency"] == ("low" if n.get("prio") == "low" else "normal"), row["name"]
            assert s["ttl"] == str(s["webpush_ttl_arg"]), row["name"]
            assert s["plaintext"] == json.dumps(s["payload"]), row["name"]  # default json.dumps form
            assert s["plaintext"].isascii(), row["name"]


# --- main -------------------------------------------------------------------------------------------


def build():
    version = sygnal_harness.require_sygnal("matrix-webpush-vectors")
    pins = {"pywebpush": "2.0.0", "py-vapid": "1.9.1", "http_ece": "1.2.0"}
    found = {name: importlib.metadata.version(name) for name in pins}
    if found != pins:
        sys.exit("matrix-webpush-vectors: need Sygnal's locked %s in this Python, found %s (see the top of this file)" % (pins, found))
    with tempfile.TemporaryDirectory() as workdir:
        h = Harness(workdir)
        vector_rows = [run(h, v) for v in vectors()]
        rejection_rows = [run(h, r) for r in rejections()]
    independent_checks(vector_rows + rejection_rows)
    web = {k: v for k, v in h.web_config.items() if k != "vapid_private_key"}
    open_ = {k: v for k, v in h.open_config.items() if k != "vapid_private_key"}
    return {
        "sygnal": version,
        "generator": "scripts/matrix-webpush-vectors.py",
        "libraries": {name: importlib.metadata.version(name) for name in ("pywebpush", "py-vapid", "http_ece", "matrix-common", "Twisted")},
        "apps": {
            WEB_APP: dict(web, vapid_private_key="<P-256 key, PKCS8 PEM; public key below>", ttl="(default 900)"),
            OPEN_APP: dict(open_, vapid_private_key="<the same key>"),
        },
        "vapid_public_key": VAPID_PUBLIC,
        "subscription": {
            "p256dh": P256DH,
            "auth": AUTH,
            "p256dh_private_key_hex": "%064x" % RECEIVER_KEY.private_numbers().private_value,
            "note": "the browser side: pushkey = p256dh (base64url, no padding), data.auth = auth; the private key decrypts the bodies",
        },
        "notes": [
            "Each row's request was POSTed to Sygnal's /_matrix/push/v1/notify once; answers the fake endpoint gave are in endpoint_answers (default 201, empty body).",
            "sent[] are the HTTP requests Sygnal made to the endpoint, in order. headers are exactly the headers Sygnal handed Twisted's agent, names as Twisted writes them (Sygnal's b'TTL' comes out as 'Ttl'; Twisted adds Host and Content-Length); ttl/urgency/topic repeat those header values (null: header absent). Authorization's JWT is a placeholder: 'vapid t=<JWT>,k=<VAPID public key, base64url, no padding>' (RFC 8292), JWT header {\"typ\":\"JWT\",\"alg\":\"ES256\"}, claims vapid_claims_signed serialized with sorted keys and no spaces.",
            "plaintext is the exact string Sygnal passed to pywebpush as data (json.dumps(payload) with Python's defaults: ensure_ascii, separators ', ' and ': '); its UTF-8 bytes are what the body decrypts to (checked for every send). payload is plaintext parsed, key order kept.",
            "encrypted_body: aes128gcm (RFC 8188) with rs 4096 and the 65-byte ephemeral public key as keyid; records = number of 4096-byte records (each holds at most 4079 plaintext bytes + 1 delimiter + 16 tag). Salt and ephemeral key are random.",
            "vapid_claims_passed is the dict Sygnal gives webpush(); pywebpush adds aud = scheme://netloc of the endpoint and exp = now + 43200 (12 h) before signing: vapid_claims_signed.",
            "answer.raw_body is Sygnal's exact answer text; answer.body is it parsed (null when empty or not JSON). Sygnal sets no content type; Twisted adds text/html.",
            "webpush_calls counts the calls Sygnal made to pywebpush.webpush (a call can raise before anything is sent).",
        ],
        "vectors": vector_rows,
        "rejections": rejection_rows,
    }


if __name__ == "__main__":
    sygnal_harness.main("matrix-webpush-vectors", __doc__, DEFAULT_OUT, build)
