#!/usr/bin/env python3
"""Writes Tests/HeraldMatrixTests/Vectors/sygnal-vectors.json: what Sygnal 0.17.0 itself sends to
APNs and FCM, and answers the homeserver, for a set of POST /_matrix/push/v1/notify bodies.

How to run (from the repository root; nothing here is needed at test time, the Swift tests read
the committed JSON):

    python3 -m venv /tmp/sygvenv
    /tmp/sygvenv/bin/pip install <a checkout of github.com/element-hq/sygnal at v0.17.0>
        # gives matrix-sygnal 0.17.0 with aioapns 3.3.1, Twisted, h2, PyJWT, google-auth
    /tmp/sygvenv/bin/python scripts/matrix-vectors.py            # rewrites the JSON
    /tmp/sygvenv/bin/python scripts/matrix-vectors.py --check    # exit 1 if the JSON differs
    /tmp/sygvenv/bin/python scripts/matrix-vectors.py --out FILE # write elsewhere

What runs: Sygnal's own Sygnal object, HTTP resource (V1NotifyHandler), ApnsPushkin and GcmPushkin
(api_version v1), configured from the dict below, on Twisted's MemoryReactorClock (so retry
back-offs take simulated seconds); scripts/sygnal_harness.py, shared with matrix-webpush-vectors.py,
starts it, POSTs the requests and holds the command line. Only the network is replaced:

  * APNs: aioapns' real client, pool and HTTP/2 protocol (APNsProductionClientProtocol with the
    ES256 JWT provider) are used; the pool's TCP/TLS connect is replaced by an in-memory transport
    whose far end is an h2 server that records the decoded request headers and DATA bytes and
    answers with a chosen :status / {"reason": ...}. The one bridge replaced is
    ApnsPushkin._send_notification (Deferred.fromFuture around the asyncio call): here the
    asyncio call runs to completion on a private event loop.
  * FCM: GcmPushkin.http_agent (Twisted ProxyAgent) is replaced by a recorder of the method, URL,
    headers and body bytes that _perform_http_request hands it, answering a chosen status/body.
    The OAuth token is a fixed fake ("Bearer ya29.test-access-token").

Values that change on every run are replaced in the JSON: apns-id (a fresh uuid4 per attempt) by
"<uuid4>", the APNs authorization header (an ES256 JWT with iat = now) by "bearer <ES256 JWT>";
the script checks their form (uuid4 pattern; the JWT verifies with the generated key and has
kid/iss) before replacing them. Everything else is byte-for-byte what Sygnal produced: the APNs
"body" is the exact DATA frame payload, "payload" is that body parsed (key order kept).

Each vector's request carries one APNs device and one FCM device (plus, in one vector, an unknown
app_id). The script also runs every vector as two one-device requests (the shape Synapse sends)
and stops with an error unless each device's output and the answer are identical to the
two-device run.
"""

import asyncio
import base64
import copy
import hashlib
import importlib.metadata
import json
import os
import re
import sys
import tempfile

# python scripts/matrix-vectors.py already has this folder on the path; runpy, exec or an import from
# elsewhere do not, and sygnal_harness lives next to this file.
HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

try:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec, rsa
    import h2.config
    import h2.connection
    import h2.events
    import jwt
    from twisted.internet.defer import succeed

    import sygnal.apnspushkin
    from sygnal.apnspushkin import ApnsPushkin
    from sygnal.gcmpushkin import GcmPushkin

    import sygnal_harness  # inside the try: its Twisted and Sygnal imports fail the same way
except ImportError as error:
    sys.exit("matrix-vectors: run me with the Python of a venv holding matrix-sygnal 0.17.0 (see the top of this file): %s" % error)

DEFAULT_OUT = os.path.join(sygnal_harness.VECTORS, "sygnal-vectors.json")

# --- apps -----------------------------------------------------------------------------------------

APNS_APP = "com.example.ios"
APNS_KEY_ID = "ABC123DEFG"
APNS_TEAM_ID = "TEAM123456"
APNS_TOPIC = "com.example.app"
FCM_APP = "com.example.android"
FCM_PROJECT = "example-project"
FCM_ACCESS_TOKEN = "ya29.test-access-token"

TOKEN_HEX = "a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90"
APNS_PUSHKEY = base64.b64encode(bytes.fromhex(TOKEN_HEX)).decode()  # obLD1OX2...+j5A=
FCM_PUSHKEY = "fcmtok:APA91bExampleRegistrationToken"
PUSHKEY_TS = 1700000000

EV = "$qTOWWTEL48yPm3uT-gdNhFcoHxfKbZuqRVnnWWSkGBs"
ROOM = "!slw48wfj34rtnrf:example.org"

UUID4 = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")


def apns_device(**extra):
    device = {"app_id": APNS_APP, "pushkey": APNS_PUSHKEY, "pushkey_ts": PUSHKEY_TS}
    device.update(extra)
    return device


def fcm_device(**extra):
    device = {"app_id": FCM_APP, "pushkey": FCM_PUSHKEY, "pushkey_ts": PUSHKEY_TS}
    device.update(extra)
    return device


# --- the vectors ----------------------------------------------------------------------------------


def long_bodies():
    """Bodies for the truncation vectors, shaped so that the cuts land where the bytes are hard."""
    owl = "\U0001F989"  # 4 bytes
    family = "\U0001F469\u200D\U0001F469\u200D\U0001F467"  # ZWJ sequence: 5 scalars, 18 bytes, 1 grapheme
    e_acute = "e\u0301"  # combining acute: 2 scalars, 3 bytes, 1 grapheme
    flag = "\U0001F1E9\U0001F1EA"  # regional indicators: 2 scalars, 8 bytes, 1 grapheme
    # facts page V8: 1000 x U+00DC, 3000 x "x", 10 owls (the cut falls in the "x" run)
    v8 = "\u00dc" * 1000 + "x" * 3000 + owl * 10
    # multibyte everywhere past the APNs cut point (2573 puts the cut inside the ZWJ family, after
    # "woman ZWJ woman ZWJ"), and an owl split by FCM's byte-1021 cut
    mixed = "x" * 1019 + owl + "y" * 2573 + (family + e_acute + "\u20ac" + owl + flag + "\u00e9" + "\u4e2d") * 40
    # JSON escapes near the APNs cut: quote, backslash, newline, tab, U+0001, slash, U+2028, DEL
    escapes = "x" * 3700 + ('"\\\n\t\u0001/\u2028\u007f\u00e9' + owl) * 60
    return v8, mixed, escapes


def vectors():
    v8_body, mixed_body, escapes_body = long_bodies()
    out = []

    def add(name, description, notification, apns_extra=None, fcm_extra=None, extra_devices=None):
        out.append(
            {
                "name": name,
                "description": description,
                "notification": notification,
                "apns_device": apns_device(**(apns_extra or {})),
                "fcm_device": fcm_device(**(fcm_extra or {})),
                "extra_devices": extra_devices or [],
            }
        )

    full = {
        "event_id": EV,
        "room_id": ROOM,
        "type": "m.room.message",
        "sender": "@major:example.org",
        "sender_display_name": "Major Tom",
        "room_name": "Mission Control",
        "room_alias": "#mission:example.org",
        "prio": "high",
        "content": {"msgtype": "m.text", "body": "I'm floating in a most peculiar way."},
        "counts": {"unread": 2, "missed_calls": 1},
    }
    both = {"data": {"format": "full"}, "tweaks": {"sound": "bing"}}
    add("full_message", "facts V1: full format m.text in a named room, tweak sound, unread + missed_calls", full, both, both)

    add(
        "event_id_only_element_x",
        "facts V2: Synapse's event_id_only shape with Element X's default payloads (iOS aps + client id, Android cs)",
        {"event_id": EV, "room_id": ROOM, "prio": "high", "counts": {"unread": 3}},
        {"data": {"format": "event_id_only", "default_payload": {"aps": {"mutable-content": 1, "alert": {"loc-key": "Notification", "loc-args": []}}, "pusher_notification_client_identifier": "c1"}}},
        {"data": {"format": "event_id_only", "default_payload": {"cs": "s3cr3t"}}},
    )
    add(
        "event_id_only_no_default_payload",
        "facts V15: event_id_only without default_payload, prio low, unread 0 (APNs body without aps)",
        {"event_id": "$e", "room_id": ROOM, "prio": "low", "counts": {"unread": 0}},
        {"data": {"format": "event_id_only"}},
        {"data": {"format": "event_id_only"}},
    )
    add(
        "event_id_only_missed_calls",
        "event_id_only shape with unread and missed_calls (APNs unread_count + missed_calls, FCM strings)",
        {"event_id": "$e2", "room_id": ROOM, "prio": "high", "counts": {"unread": 4, "missed_calls": 2}},
        {"data": {"format": "event_id_only", "default_payload": {"aps": {"content-available": 1}}}},
        {"data": {"format": "event_id_only"}},
    )
    mention_tweaks = {"tweaks": {"sound": "default", "highlight": True}}
    add(
        "mention_highlight_dm",
        "facts V3: mention with highlight + sound tweaks in a DM (no room name, no alias); tweaks are not used",
        {
            "event_id": "$mention1",
            "room_id": "!dm:example.org",
            "type": "m.room.message",
            "sender": "@bob:example.org",
            "sender_display_name": "Bob",
            "prio": "high",
            "content": {"msgtype": "m.text", "body": "@alice: lunch?", "m.mentions": {"user_ids": ["@alice:example.org"]}},
            "counts": {"unread": 1},
        },
        mention_tweaks,
        mention_tweaks,
    )
    enc_content = {
        "algorithm": "m.megolm.v1.aes-sha2",
        "ciphertext": "AwgAEnACgAkLmt6qF84IK++J7UDH2Za1YVchHyprqTqsg",
        "device_id": "RJYKSTBOIE",
        "sender_key": "IlRMeOPX2e0MurIyfWEucYBRVOEEUMrOHqn/8mLqMjA",
        "session_id": "X3lUlvLELLYxeTx4yOVu6UDpasGEVO0Jbu+QFnm0cKQ",
    }
    sound = {"tweaks": {"sound": "default"}}
    add(
        "encrypted_named_room",
        "facts V4: m.room.encrypted, full format, named room",
        {"event_id": "$enc1", "room_id": ROOM, "type": "m.room.encrypted", "sender": "@major:example.org", "sender_display_name": "Major Tom", "room_name": "Mission Control", "prio": "high", "content": enc_content, "counts": {"unread": 4}},
        sound,
        sound,
    )
    add(
        "encrypted_dm",
        "m.room.encrypted without room name or alias: MSG_FROM_USER",
        {"event_id": "$enc2", "room_id": "!dm:example.org", "type": "m.room.encrypted", "sender": "@bob:example.org", "sender_display_name": "Bob", "prio": "high", "content": enc_content, "counts": {"unread": 1}},
        sound,
        sound,
    )
    add(
        "invite_named_room",
        "facts V5: m.room.member invite, user_is_target, room name",
        {"event_id": "$invite1", "room_id": "!party:example.org", "type": "m.room.member", "sender": "@alice:example.org", "sender_display_name": "Alice", "room_name": "Party", "membership": "invite", "user_is_target": True, "prio": "high", "content": {"membership": "invite", "displayname": "Carol"}, "counts": {"unread": 1}},
        sound,
        sound,
    )
    add(
        "invite_alias_only",
        "m.room.member invite in a room with only an alias: USER_INVITE_TO_NAMED_ROOM with the alias",
        {"event_id": "$invite2", "room_id": "!party:example.org", "type": "m.room.member", "sender": "@alice:example.org", "room_alias": "#party:example.org", "membership": "invite", "user_is_target": True, "prio": "high", "content": {"membership": "invite"}, "counts": {"unread": 1}},
    )
    add(
        "invite_unnamed_room",
        "m.room.member invite without room name or alias: USER_INVITE_TO_CHAT",
        {"event_id": "$invite3", "room_id": "!party:example.org", "type": "m.room.member", "sender": "@alice:example.org", "sender_display_name": "Alice", "membership": "invite", "user_is_target": True, "prio": "high", "content": {"membership": "invite", "is_direct": True}, "counts": {"unread": 1}},
    )
    add(
        "member_join_not_invite",
        "facts V12: m.room.member join, no counts, prio low: APNs sends nothing, FCM does",
        {"event_id": "$join1", "room_id": ROOM, "type": "m.room.member", "sender": "@major:example.org", "membership": "join", "user_is_target": False, "prio": "low", "content": {"membership": "join"}},
    )
    add(
        "badge_only_synapse_unread_0",
        "facts V6a: Synapse _send_badge shape {id:'',type:null,sender:''}, unread 0: APNs badge 0, FCM nothing",
        {"id": "", "type": None, "sender": "", "counts": {"unread": 0}},
    )
    add(
        "badge_only_synapse_unread_5",
        "facts V6b: Synapse _send_badge shape, unread 5 (FCM keeps sender '')",
        {"id": "", "type": None, "sender": "", "counts": {"unread": 5}},
    )
    add(
        "badge_only_spec_shape",
        "facts V6c: spec badge-only shape (counts only) with missed_calls: badge = unread + missed_calls",
        {"counts": {"unread": 5, "missed_calls": 2}},
    )
    add(
        "badge_only_with_default_payload",
        "Synapse badge shape for devices with default_payload (event_id_only pushers): APNs ignores it, FCM merges it",
        {"id": "", "type": None, "sender": "", "counts": {"unread": 2}},
        {"data": {"format": "event_id_only", "default_payload": {"aps": {"mutable-content": 1, "alert": {"loc-key": "Notification", "loc-args": []}}, "pusher_notification_client_identifier": "c1"}}},
        {"data": {"format": "event_id_only", "default_payload": {"cs": "s3cr3t"}}},
    )
    add(
        "default_payload_prio_low",
        "facts V7: full format with default_payload (aps keys kept, badge overwritten, room_id overridden), prio low, m.emote, alias only",
        {"event_id": "$dp1", "room_id": ROOM, "type": "m.room.message", "sender": "@major:example.org", "room_alias": "#mission:example.org", "prio": "low", "content": {"msgtype": "m.emote", "body": "waves"}, "counts": {"unread": 7}},
        {"data": {"default_payload": {"aps": {"mutable-content": 1, "sound": "default", "badge": 99}, "acct": "a1", "room_id": "overridden?"}}},
        {"data": {"default_payload": {"cs": "s3cr3t", "acct": "a1", "prio": "overridden?"}}},
    )
    add(
        "apns_body_over_4096_v8",
        "facts V8: 1000 x U+00DC + 3000 x 'x' + 10 owls (5040 bytes): APNs loc-args[2] chopped to 4096 bytes, FCM content_body cut at byte 1021 + U+2026",
        {"event_id": "$long1", "room_id": ROOM, "type": "m.room.message", "sender": "@major:example.org", "sender_display_name": "Major Tom", "room_name": "Mission Control", "prio": "high", "content": {"msgtype": "m.text", "body": v8_body}, "counts": {"unread": 2}},
    )
    add(
        "apns_body_over_4096_multibyte_at_cut",
        "body with 2-, 3- and 4-byte scalars, a ZWJ family, a combining accent and a flag where APNs' 4096 cut falls "
        "(Sygnal drops one scalar at a time, splitting grapheme clusters), and an owl split by FCM's byte-1021 cut",
        {"event_id": "$long2", "room_id": ROOM, "type": "m.room.message", "sender": "@major:example.org", "sender_display_name": "Major Tom", "room_name": "Mission Control", "prio": "high", "content": {"msgtype": "m.text", "body": mixed_body}, "counts": {"unread": 2}},
    )
    add(
        "apns_body_over_4096_json_escapes_at_cut",
        "body whose end is quote, backslash, newline, tab, U+0001, slash, U+2028, DEL: the 4096 limit counts Python's "
        "escaped encoding (\\\", \\\\, \\n, \\t, \\u0001; '/', U+2028 and DEL raw)",
        {"event_id": "$long3", "room_id": ROOM, "type": "m.room.message", "sender": "@major:example.org", "room_name": "Mission Control", "prio": "high", "content": {"msgtype": "m.text", "body": escapes_body}, "counts": {"unread": 2}},
    )
    add(
        "fcm_fields_over_1024_bytes",
        "FCM's per-field cut at 1021 bytes + U+2026: content body with an owl straddling byte 1021, a content field of "
        "2-byte characters; non-string content values dropped. APNs does not cap the body (1223 bytes) and fits",
        {
            "event_id": "$big1",
            "room_id": ROOM,
            "type": "m.room.message",
            "sender": "@major:example.org",
            "sender_display_name": "Major Tom",
            "room_name": "Mission Control",
            "prio": "high",
            "content": {"msgtype": "m.text", "body": "b" * 1019 + "\U0001F989" + "c" * 200, "org.example.note": "\u00e9" * 600, "org.example.n": 5, "org.example.obj": {"k": "v"}},
            "counts": {"unread": 1},
        },
    )
    add(
        "long_sender_and_room_names",
        "sender_display_name of 1100 x U+00DC and room_name of 1030 ASCII: APNs keeps the first 1024 scalars of each "
        "(2048 and 1024 bytes) and fits; FCM cuts each at 1021 bytes + U+2026",
        {
            "event_id": "$big2",
            "room_id": ROOM,
            "type": "m.room.message",
            "sender": "@major:example.org",
            "sender_display_name": "\u00dc" * 1100,
            "room_name": "r" * 1030,
            "prio": "high",
            "content": {"msgtype": "m.text", "body": "hi"},
            "counts": {"unread": 1},
        },
    )
    ring = {"tweaks": {"sound": "ring"}}
    add(
        "call_invite_video",
        "facts V9: m.call.invite whose SDP has m=video",
        {"event_id": "$call1", "room_id": ROOM, "type": "m.call.invite", "sender": "@major:example.org", "sender_display_name": "Major Tom", "prio": "high", "content": {"call_id": "c1", "version": 0, "lifetime": 60000, "offer": {"type": "offer", "sdp": "v=0\r\nm=audio 9 UDP\r\nm=video 9 UDP\r\n"}}, "counts": {"unread": 1, "missed_calls": 1}},
        ring,
        ring,
    )
    add(
        "call_invite_voice",
        "m.call.invite audio only: VOICE_CALL_FROM_USER",
        {"event_id": "$call2", "room_id": ROOM, "type": "m.call.invite", "sender": "@major:example.org", "sender_display_name": "Major Tom", "room_name": "Mission Control", "prio": "high", "content": {"call_id": "c2", "version": "1", "party_id": "p1", "lifetime": 60000, "offer": {"type": "offer", "sdp": "v=0\r\nm=audio 9 UDP\r\n"}}, "counts": {"unread": 1}},
        ring,
        ring,
    )
    add(
        "image_message",
        "facts V10: m.image in a named room, no counts",
        {"event_id": "$img1", "room_id": ROOM, "type": "m.room.message", "sender": "@major:example.org", "room_name": "Mission Control", "prio": "high", "content": {"msgtype": "m.image", "body": "earth.jpg", "url": "mxc://example.org/abc", "info": {"w": 640}}},
    )
    add(
        "image_message_dm",
        "m.image without room name or alias: IMAGE_FROM_USER",
        {"event_id": "$img2", "room_id": "!dm:example.org", "type": "m.room.message", "sender": "@bob:example.org", "sender_display_name": "Bob", "prio": "high", "content": {"msgtype": "m.image", "body": "cat.png", "url": "mxc://example.org/cat"}, "counts": {"unread": 3}},
    )
    add(
        "unknown_event_type",
        "facts V11: unknown event type, no counts: MSG_FROM_USER",
        {"event_id": "$poll1", "room_id": ROOM, "type": "org.matrix.msc3381.poll.start", "sender": "@major:example.org", "prio": "high", "content": {"body": "Poll?"}},
    )
    add(
        "no_sender_display_name",
        "m.text in a named room without sender_display_name: the sender's user ID is shown",
        {"event_id": "$nodn", "room_id": ROOM, "type": "m.room.message", "sender": "@major:example.org", "room_name": "Mission Control", "prio": "high", "content": {"msgtype": "m.text", "body": "hello"}, "counts": {"unread": 1}},
    )
    add(
        "empty_sender_display_name",
        "sender_display_name '' is used as is (not replaced by the sender)",
        {"event_id": "$emptydn", "room_id": ROOM, "type": "m.room.message", "sender": "@major:example.org", "sender_display_name": "", "room_name": "Mission Control", "prio": "high", "content": {"msgtype": "m.text", "body": "hello"}, "counts": {"unread": 1}},
    )
    add(
        "no_sender_at_all",
        "neither sender nor sender_display_name: from is a single space",
        {"event_id": "$nosender", "room_id": ROOM, "type": "m.room.message", "room_name": "Mission Control", "prio": "high", "content": {"msgtype": "m.text", "body": "hello"}, "counts": {"unread": 1}},
    )
    add(
        "no_room_name",
        "m.text without room_name or room_alias: MSG_FROM_USER_WITH_CONTENT",
        {"event_id": "$noroom", "room_id": ROOM, "type": "m.room.message", "sender": "@major:example.org", "sender_display_name": "Major Tom", "prio": "high", "content": {"msgtype": "m.text", "body": "hello"}, "counts": {"unread": 1}},
    )
    add(
        "emote_no_room_name",
        "m.emote without room name or alias: ACTION_FROM_USER",
        {"event_id": "$emote2", "room_id": ROOM, "type": "m.room.message", "sender": "@major:example.org", "sender_display_name": "Major Tom", "prio": "high", "content": {"msgtype": "m.emote", "body": "waves"}, "counts": {"unread": 1}},
    )
    add(
        "message_without_msgtype",
        "m.room.message whose content has a body but no msgtype: MSG_FROM_USER_IN_ROOM (no content shown)",
        {"event_id": "$nomsgtype", "room_id": ROOM, "type": "m.room.message", "sender": "@major:example.org", "sender_display_name": "Major Tom", "room_name": "Mission Control", "prio": "high", "content": {"body": "hidden"}, "counts": {"unread": 1}},
    )
    notice = {"msgtype": "m.notice", "body": "hi", "format": "org.matrix.custom.html", "formatted_body": "<b>hi</b>"}
    add(
        "counts_unread_0",
        "facts V14: full format, counts {unread: 0}, prio low, m.notice with formatted_body: APNs badge 0, FCM no unread",
        {"id": "$c0", "event_id": "$c0", "room_id": ROOM, "type": "m.room.message", "sender": "@a:x", "prio": "low", "counts": {"unread": 0}, "content": notice},
    )
    add(
        "counts_missing",
        "the same without counts: no APNs badge at all",
        {"id": "$c0", "event_id": "$c0", "room_id": ROOM, "type": "m.room.message", "sender": "@a:x", "prio": "low", "content": notice},
    )
    add(
        "counts_empty_object",
        "counts {}: same as missing",
        {"event_id": "$c1", "room_id": ROOM, "type": "m.room.message", "sender": "@a:x", "prio": "high", "counts": {}, "content": {"msgtype": "m.text", "body": "hi"}},
    )
    add(
        "counts_missed_calls_only",
        "counts {missed_calls: 2} without unread: APNs badge 2, FCM missed_calls '2'",
        {"event_id": "$c2", "room_id": ROOM, "type": "m.room.message", "sender": "@a:x", "prio": "high", "counts": {"missed_calls": 2}, "content": {"msgtype": "m.text", "body": "hi"}},
    )
    add(
        "multiple_devices_with_unknown_app",
        "one request, three devices: the APNs app, the FCM app and an unknown app_id (rejected, nothing sent)",
        {"event_id": "$multi", "room_id": ROOM, "type": "m.room.message", "sender": "@major:example.org", "sender_display_name": "Major Tom", "room_name": "Mission Control", "prio": "high", "content": {"msgtype": "m.text", "body": "to all"}, "counts": {"unread": 1}},
        extra_devices=[{"app_id": "org.unknown.app", "pushkey": "UNKNOWN-PUSHKEY", "pushkey_ts": PUSHKEY_TS}],
    )
    return out


def request_of(vector, which=("apns", "fcm", "extra")):
    notification = copy.deepcopy(vector["notification"])
    devices = []
    if "apns" in which:
        devices.append(copy.deepcopy(vector["apns_device"]))
    if "fcm" in which:
        devices.append(copy.deepcopy(vector["fcm_device"]))
    if "extra" in which:
        devices.extend(copy.deepcopy(vector["extra_devices"]))
    notification["devices"] = devices
    return {"notification": notification}


# --- fake APNs (an h2 server on an in-memory transport) ---------------------------------------------


class FakeAPNs:
    def __init__(self, loop, public_key):
        self.loop = loop
        self.public_key = public_key
        self.answers = []  # queue of (status, reason); empty -> 200
        self.sent = []  # one dict per request received

    def connect(self, factory, host, port):
        protocol = factory()
        server = h2.connection.H2Connection(h2.config.H2Configuration(client_side=False, header_encoding="utf-8"))
        server.initiate_connection()
        transport = _Transport(self, server, protocol, host, port)
        protocol.connection_made(transport)
        transport.deliver()
        return protocol


class _Transport:
    def __init__(self, fake, server, protocol, host, port):
        self.fake, self.server, self.protocol = fake, server, protocol
        self.host, self.port = host, port
        self.streams = {}
        self.closed = False

    def deliver(self):
        data = self.server.data_to_send()
        if data:
            self.fake.loop.call_soon(self.protocol.data_received, data)

    def write(self, data):
        if not data:
            return
        for event in self.server.receive_data(data):
            if isinstance(event, h2.events.RequestReceived):
                self.streams[event.stream_id] = {"headers": list(event.headers), "body": b""}
            elif isinstance(event, h2.events.DataReceived):
                self.streams[event.stream_id]["body"] += event.data
                self.server.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
            elif isinstance(event, h2.events.StreamEnded):
                self.answer(event.stream_id)
        self.deliver()

    def answer(self, stream_id):
        request = self.streams.pop(stream_id)
        headers = dict(request["headers"])
        request["connected_to"] = "%s:%d" % (self.host, self.port)
        self.fake.sent.append(request)
        status, reason = self.fake.answers.pop(0) if self.fake.answers else ("200", None)
        response = [(":status", status), ("apns-id", headers["apns-id"])]
        if reason is None:
            self.server.send_headers(stream_id, response, end_stream=True)
        else:
            self.server.send_headers(stream_id, response + [("content-type", "application/json")])
            self.server.send_data(stream_id, json.dumps({"reason": reason}).encode(), end_stream=True)

    def close(self):
        self.closed = True

    def is_closing(self):
        return self.closed

    def get_extra_info(self, name, default=None):
        return default


# --- fake FCM (the Twisted agent GcmPushkin posts with) ----------------------------------------------


class FakeFCM(sygnal_harness.RecordingAgent):
    """answers: a queue of (code, json body, headers); empty -> 200 with a message name."""

    def __init__(self):
        super().__init__((200, {"name": "projects/%s/messages/0:1700000000000000%%abcdef" % FCM_PROJECT}, {}))

    def respond(self, answer):
        code, payload, extra = answer
        return succeed(sygnal_harness.FakeResponse(code, json.dumps(payload).encode(), extra))


# --- the Sygnal under test ---------------------------------------------------------------------------


class Harness:
    def __init__(self, workdir):
        ec_key = ec.generate_private_key(ec.SECP256R1())
        keyfile = os.path.join(workdir, "AuthKey_%s.p8" % APNS_KEY_ID)
        with open(keyfile, "wb") as f:
            f.write(ec_key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
        rsa_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        service_account = os.path.join(workdir, "service-account.json")
        with open(service_account, "w") as f:
            json.dump(
                {
                    "type": "service_account",
                    "project_id": FCM_PROJECT,
                    "private_key_id": "0123456789abcdef",
                    "private_key": rsa_key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()).decode(),
                    "client_email": "sygnal@%s.iam.gserviceaccount.com" % FCM_PROJECT,
                    "client_id": "1",
                    "token_uri": "https://oauth2.googleapis.com/token",
                },
                f,
            )
        self.apns_config = {"type": "apns", "keyfile": keyfile, "key_id": APNS_KEY_ID, "team_id": APNS_TEAM_ID, "topic": APNS_TOPIC}
        self.fcm_config = {"type": "gcm", "api_version": "v1", "project_id": FCM_PROJECT, "service_account_file": service_account}

        self.loop = asyncio.new_event_loop()
        asyncio._set_running_loop(self.loop)  # the pushkins' constructors ask for the running loop
        try:
            self.reactor, self.sygnal, self.site = sygnal_harness.start_sygnal({APNS_APP: self.apns_config, FCM_APP: self.fcm_config})
        finally:
            asyncio._set_running_loop(None)

        # APNs: real aioapns client; its connect is in-memory, its asyncio calls run on self.loop.
        self.apns = FakeAPNs(self.loop, ec_key.public_key())
        pushkin = self.sygnal.pushkins[APNS_APP]
        assert isinstance(pushkin, ApnsPushkin)
        pool = pushkin.apns_client.pool
        assert type(pool).__name__ == "APNsKeyConnectionPool" and pool.loop is self.loop

        async def _create_connection(apns_protocol_factory, pool=pool):
            return self.apns.connect(apns_protocol_factory, pool.protocol_class.APNS_SERVER, pool.protocol_class.APNS_PORT)

        pool._create_connection = _create_connection

        async def _send_notification(request, pushkin=pushkin):
            # Sygnal: Deferred.fromFuture(asyncio.ensure_future(self.apns_client.send_notification(request)))
            return self.loop.run_until_complete(pushkin.apns_client.send_notification(request))

        pushkin._send_notification = _send_notification

        # Record whether Sygnal's truncation changed the payload.
        self.truncations = []
        original_truncate = sygnal.apnspushkin.apnstruncate.truncate

        def truncate(payload, max_length=2048):
            before = json.dumps(payload, ensure_ascii=False)
            result = original_truncate(payload, max_length=max_length)
            self.truncations.append(before != json.dumps(result, ensure_ascii=False))
            return result

        sygnal.apnspushkin.apnstruncate.truncate = truncate

        # FCM: real GcmPushkin down to its HTTP agent.
        self.fcm = FakeFCM()
        gcm = self.sygnal.pushkins[FCM_APP]
        assert isinstance(gcm, GcmPushkin)
        gcm.http_agent = self.fcm
        gcm.credentials.token = FCM_ACCESS_TOKEN  # valid (no expiry): _refresh_credentials does nothing
        assert gcm.credentials.valid

    def post(self, body):
        """POST body to /_matrix/push/v1/notify; returns the answer, what was sent, and the simulated seconds."""
        self.apns.sent.clear()
        self.fcm.sent.clear()
        self.truncations.clear()
        # Room for retry back-offs: FCM 429 three times waits 60 + 120 + 240 s before Sygnal answers.
        answer, seconds = sygnal_harness.notify(self.reactor, self.site, body, give_up_after=3600)
        return answer, list(self.apns.sent), list(self.fcm.sent), list(self.truncations), seconds


# --- turning what was recorded into JSON ------------------------------------------------------------


def apns_record(sent, public_key, truncated=None):
    headers = {}
    for name, value in sent["headers"]:
        assert name not in headers, name
        if name == "apns-id":
            assert UUID4.match(value), value
            value = "<uuid4>"
        elif name == "authorization":
            scheme, token = value.split(" ", 1)
            assert scheme == "bearer", value
            claims = jwt.decode(token, public_key, algorithms=["ES256"])
            header = jwt.get_unverified_header(token)
            assert header == {"alg": "ES256", "kid": APNS_KEY_ID, "typ": "JWT"} or header == {"alg": "ES256", "kid": APNS_KEY_ID}, header
            assert set(claims) == {"iss", "iat"} and claims["iss"] == APNS_TEAM_ID, claims
            value = "bearer <ES256 JWT>"
        headers[name] = value
    path = headers[":path"]
    assert path.startswith("/3/device/")
    body = sent["body"].decode("utf-8")
    record = {
        "token": path[len("/3/device/"):],
        "headers": headers,
        "payload": json.loads(body),
        "body": body,
        "body_bytes": len(sent["body"]),
        "body_sha256": hashlib.sha256(sent["body"]).hexdigest(),
    }
    if truncated is not None:
        record["truncated"] = truncated
    return record


def fcm_record(sent):
    body = json.loads(sent["body"])
    assert set(body) == {"message"}, body
    assert sent["body"] == json.dumps(body).encode(), "FCM body is not json.dumps' default form"
    headers = {}
    for name, values in sent["headers"]:
        assert len(values) == 1 and name not in headers, (name, values)
        headers[name] = values[0]
    return {"message": body["message"], "method": sent["method"], "url": sent["url"], "headers": headers}


def strip_volatile(headers):
    return [(k, v) for k, v in headers if k not in ("apns-id", "authorization")]


def run_vectors(h):
    results = []
    for vector in vectors():
        request = request_of(vector)
        answer, apns_sent, fcm_sent, truncations, seconds = h.post(request)
        assert seconds == 0, (vector["name"], seconds)
        assert len(apns_sent) <= 1 and len(fcm_sent) <= 1, vector["name"]
        assert len(truncations) == len(apns_sent), vector["name"]

        # The same devices one per request (Synapse's shape) give the same outputs.
        a_answer, a_apns, a_fcm, _, _ = h.post(request_of(vector, ("apns",)))
        f_answer, f_apns, f_fcm, _, _ = h.post(request_of(vector, ("fcm",)))
        assert not a_fcm and not f_apns, vector["name"]
        assert [(strip_volatile(s["headers"]), s["body"]) for s in a_apns] == [(strip_volatile(s["headers"]), s["body"]) for s in apns_sent], vector["name"]
        assert [(s["url"], s["headers"], s["body"]) for s in f_fcm] == [(s["url"], s["headers"], s["body"]) for s in fcm_sent], vector["name"]
        expected_rejected = [d["pushkey"] for d in vector["extra_devices"]]
        assert answer["status"] == 200 and answer["body"]["rejected"] == expected_rejected, (vector["name"], answer)
        assert a_answer == f_answer == {"status": 200, "body": {"rejected": []}, "raw_body": '{"rejected": []}', "content_type": answer["content_type"]}, vector["name"]

        results.append(
            {
                "name": vector["name"],
                "description": vector["description"],
                "request": request,
                "apns": apns_record(apns_sent[0], h.apns.public_key, truncations[0]) if apns_sent else None,
                "fcm": fcm_record(fcm_sent[0]) if fcm_sent else None,
                "answer": answer,
            }
        )
    return results


# --- provider failures ------------------------------------------------------------------------------

FCM_ERRORS = {
    404: {"error": {"code": 404, "message": "Requested entity was not found.", "status": "NOT_FOUND", "details": [{"@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError", "errorCode": "UNREGISTERED"}]}},
    400: {"error": {"code": 400, "message": "The registration token is not a valid FCM registration token", "status": "INVALID_ARGUMENT", "details": [{"@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError", "errorCode": "INVALID_ARGUMENT"}]}},
    403: {"error": {"code": 403, "message": "SenderId mismatch", "status": "PERMISSION_DENIED", "details": [{"@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError", "errorCode": "SENDER_ID_MISMATCH"}]}},
    429: {"error": {"code": 429, "message": "Quota exceeded.", "status": "RESOURCE_EXHAUSTED", "details": [{"@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError", "errorCode": "QUOTA_EXCEEDED"}]}},
    500: {"error": {"code": 500, "message": "Internal error encountered.", "status": "INTERNAL", "details": [{"@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError", "errorCode": "INTERNAL"}]}},
    503: {"error": {"code": 503, "message": "The service is currently unavailable.", "status": "UNAVAILABLE", "details": [{"@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError", "errorCode": "UNAVAILABLE"}]}},
}


def run_rejections(h):
    base = {"event_id": "$e", "room_id": ROOM, "type": "m.room.message", "sender": "@major:example.org", "prio": "high", "content": {"msgtype": "m.text", "body": "hi"}, "counts": {"unread": 1}}
    rows = []

    def row(name, description, devices, apns_answers=(), fcm_answers=(), notification=None):
        body = {"notification": dict(notification or base, devices=devices)}
        h.apns.answers[:] = [tuple(a) for a in apns_answers]
        h.fcm.answers[:] = [(code, FCM_ERRORS.get(code, {}), headers) for code, headers in fcm_answers]
        answer, apns_sent, fcm_sent, _, seconds = h.post(body)
        assert not h.apns.answers and not h.fcm.answers, (name, "answers left unused")
        apns_ids = [dict(s["headers"])["apns-id"] for s in apns_sent]
        rows.append(
            {
                "name": name,
                "description": description,
                "request": body,
                "apns_answers": [{"status": int(s), "reason": r} for s, r in apns_answers],
                "fcm_answers": [dict({"status": c, "body": FCM_ERRORS.get(c, {})}, **({"headers": hd} if hd else {})) for c, hd in fcm_answers],
                "apns_attempts": len(apns_sent),
                "apns_ids_all_different": len(set(apns_ids)) == len(apns_ids),
                "fcm_attempts": len(fcm_sent),
                "simulated_seconds": seconds,
                "answer": answer,
            }
        )

    A, F = [apns_device()], [fcm_device()]
    row("apns_410_unregistered", "APNs 410 Unregistered: the pushkey is rejected", A, [("410", "Unregistered")])
    row("apns_400_bad_device_token", "APNs 400 BadDeviceToken: rejected", A, [("400", "BadDeviceToken")])
    row("apns_400_device_token_not_for_topic", "APNs 400 DeviceTokenNotForTopic: rejected", A, [("400", "DeviceTokenNotForTopic")])
    row("apns_400_topic_disallowed", "APNs 400 TopicDisallowed: rejected", A, [("400", "TopicDisallowed")])
    row("apns_400_bad_topic", "APNs 400 BadTopic (not a token error): no retry, 502", A, [("400", "BadTopic")])
    row("apns_429_too_many_requests", "APNs 429: no retry, 502", A, [("429", "TooManyRequests")])
    row("apns_500_every_attempt", "APNs 500 three times: 3 attempts 10 s then 20 s apart, then 502", A, [("500", "InternalServerError")] * 3)
    row("apns_500_then_200", "APNs 500 once, then 200 on the retry: 200, nothing rejected", A, [("500", "InternalServerError"), ("200", None)])
    row("apns_503_every_attempt", "APNs 503 three times: 502", A, [("503", "ServiceUnavailable")] * 3)
    row("fcm_404_unregistered", "FCM 404 UNREGISTERED: rejected", F, fcm_answers=[(404, {})])
    row("fcm_400_invalid_argument", "FCM 400 INVALID_ARGUMENT: no retry, 502 (not rejected even though it names the token)", F, fcm_answers=[(400, {})])
    row("fcm_403_sender_id_mismatch", "FCM 403 SENDER_ID_MISMATCH: 502", F, fcm_answers=[(403, {})])
    row("fcm_503_every_attempt", "FCM 503 three times (10, 20, 40 s waits): gives up silently, 200 nothing rejected", F, fcm_answers=[(503, {})] * 3)
    row("fcm_503_retry_after", "FCM 503 with Retry-After: 5 three times: waits follow the header", F, fcm_answers=[(503, {"Retry-After": "5"})] * 3)
    row("fcm_500_then_200", "FCM 500 once, then 200", F, fcm_answers=[(500, {}), (200, {})])
    row("fcm_429_every_attempt", "FCM 429 three times (60, 120, 240 s waits): gives up silently, 200", F, fcm_answers=[(429, {})] * 3)
    row(
        "both_rejected",
        "APNs 410 and FCM 404 in one request: both pushkeys rejected, in device order",
        A + F,
        [("410", "Unregistered")],
        [(404, {})],
    )
    row(
        "apns_rejected_fcm_503",
        "APNs 410 then FCM 503 x3 in one request: 200 with only the APNs pushkey",
        A + F,
        [("410", "Unregistered")],
        [(503, {})] * 3,
    )
    row(
        "apns_rejected_fcm_400",
        "APNs 410 then FCM 400 in one request: 502, the APNs rejection is lost",
        A + F,
        [("410", "Unregistered")],
        [(400, {})],
    )
    row(
        "default_payload_not_object",
        "data.default_payload that is not an object: both pushkeys rejected without sending",
        [apns_device(data={"default_payload": "x"}), fcm_device(data={"default_payload": ["x"]})],
    )
    row(
        "apns_bad_base64_pushkey",
        "an APNs pushkey that is not padded base64 ('abc'): Sygnal raises, 500, nothing sent",
        [apns_device(pushkey="abc")],
    )
    row(
        "apns_event_id_only_over_4096",
        "event_id_only whose default_payload makes the body over 4096 bytes: nothing can be chopped, 500",
        [apns_device(data={"format": "event_id_only", "default_payload": {"aps": {"mutable-content": 1}, "pad": "x" * 5000}})],
        notification={"event_id": "$e", "room_id": ROOM, "counts": {"unread": 1}},
    )
    return rows


# --- main -------------------------------------------------------------------------------------------


def build():
    version = sygnal_harness.require_sygnal("matrix-vectors")
    with tempfile.TemporaryDirectory() as workdir:
        h = Harness(workdir)
        vector_rows = run_vectors(h)
        rejection_rows = run_rejections(h)
        apns_config = {k: v for k, v in h.apns_config.items() if k != "keyfile"}
        fcm_config = {k: v for k, v in h.fcm_config.items() if k != "service_account_file"}
    return {
        "sygnal": version,
        "generator": "scripts/matrix-vectors.py",
        "libraries": {name: importlib.metadata.version(name) for name in ("aioapns", "h2", "Twisted", "matrix-common")},
        "apns": dict(
            apns_config,
            app_id=APNS_APP,
            keyfile="<a generated P-256 .p8 key>",
            platform="production (default)",
            push_type=None,
            convert_device_token_to_hex=True,
            send_badge_counts=True,
            pushkey=APNS_PUSHKEY,
            token=TOKEN_HEX,
        ),
        "fcm": dict(
            fcm_config,
            app_id=FCM_APP,
            service_account_file="<a generated service account>",
            fcm_options=None,
            send_badge_counts=True,
            pushkey=FCM_PUSHKEY,
            access_token=FCM_ACCESS_TOKEN,
        ),
        "notes": [
            "Each vector's request is POSTed once with all its devices; the APNs and FCM devices were also POSTed one per request (Synapse's shape) and gave the same bytes and answers.",
            "apns.headers are the HTTP/2 request headers as decoded by the fake APNs server, in aioapns' order; apns-id (uuid4, new per attempt) and authorization (bearer ES256 JWT {alg, kid} / {iss, iat}) are placeholders.",
            "apns.body is the exact DATA payload: json.dumps(payload, ensure_ascii=False), separators ', ' and ': '; apns.payload is it parsed, in key order. apns.truncated: Sygnal's apnstruncate changed the payload.",
            "fcm.message is the body's message object; on the wire Sygnal sends json.dumps(body) (ASCII with \\u escapes, spaced separators).",
            "answer.raw_body is Sygnal's exact answer text; answer.body is it parsed (null when empty). Sygnal sets no content type; Twisted adds text/html.",
            "rejections: simulated_seconds is the time on Twisted's fake clock before Sygnal answered; apns_answers/fcm_answers are given to the attempts in order.",
        ],
        "vectors": vector_rows,
        "rejections": rejection_rows,
    }


if __name__ == "__main__":
    sygnal_harness.main("matrix-vectors", __doc__, DEFAULT_OUT, build)
