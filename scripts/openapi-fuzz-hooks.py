"""schemathesis hooks of scripts/openapi-fuzz.sh: what JSON Schema cannot say about a valid body,
applied to schema-valid (positive) cases only; negative cases are sent as generated.

gorush (and Herald after it) reads integer fields with Go's strictness: `1.0` is not an int and
refuses the request ("Missing notifications field."), where JSON Schema counts 1.0 as an integer
and hypothesis may write it so. Schema-valid (positive) gorush bodies are sent with such numbers
written as integers.

Aries notify takes at most 30 message ids and tags together, a bound over four fields; the spec
bounds each list at 30, and valid bodies are trimmed to 30 in all.

An APNs broadcast channel is valid only if APNs created it (else `400 ChannelNotRegistered`), and
a broadcast that expires (`expiration` > 0) only on a channel that keeps a message (policy 1).
The hooks follow the channels the node answers created and deleted; a schema-valid read, delete
or broadcast naming none of them is sent with one (created through the node when none is left).
A broadcast payload is at most 5,120 bytes written compactly, a bound over the whole object:
a valid one larger than 4,096 bytes as Python writes it is sent with only `aps.event` and
`aps.timestamp`.

A Matrix notify's devices reach a provider only with an `app_id` of `matrix.apps`, which a
generator does not guess (any other is answered 200 with the pushkey rejected, valid too). Three
schema-valid notifies in four are sent with their devices' `app_id`s taken in turn from those
scripts/openapi-fuzz.sh maps (the APNs and FCM sides of `demo`, the APNs-only `sandbox`), and
every other APNs device with a pushkey that is the base64 of a 32-byte token, which the mock APNs
takes, and every FCM device with a well-formed FCM token (a malformed one is FCM's `400
INVALID_ARGUMENT`, answered `502` as Sygnal does); so the payloads Herald builds from generated
notifications are sent.
"""

import base64
import itertools
import json
import os
import re

import requests
import schemathesis

GORUSH_PATHS = {"/api/push", "/internal/v1/gorush/push"}
NOTIFY_PATHS = {"/aries/v1/notify", "/internal/v1/aries/notify"}
NOTIFY_MESSAGES = 30
INT64 = (-(2**63), 2**63 - 1)


def _integral(value):
    if isinstance(value, float) and value.is_integer() and INT64[0] <= value <= INT64[1]:
        return int(value)
    if isinstance(value, dict):
        return {key: _integral(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_integral(item) for item in value]
    return value


CHANNEL_PATH = "/apns/v1/apps/{app}/channels/{id}"
CHANNELS_PATH = "/apns/v1/apps/{app}/channels"
BROADCAST_PATH = "/apns/v1/apps/{app}/broadcasts"
BROADCAST_PAYLOAD_BOUND = 4096
# The channels the node answered created and not yet deleted: (app, base64url id) -> policy.
_channels = {}


def _path_form(channel):
    return channel.replace("+", "-").replace("/", "_").rstrip("=")


def _live_channel(app, keeps_message):
    """A channel of `app` that exists (keeping a message when `keeps_message`), created when none does."""
    for (known_app, channel), policy in _channels.items():
        if known_app == app and (policy == 1 or not keeps_message):
            return channel
    answer = requests.post(
        f"{os.environ['OPENAPI_FUZZ_URL']}/apns/v1/apps/{app}/channels",
        json={"message-storage-policy": 1},
        headers={"Authorization": f"Bearer {os.environ['OPENAPI_FUZZ_API_TOKEN']}"},
        timeout=20,
    )
    if answer.status_code != 201:
        return None
    channel = answer.json()["id"]
    _channels[(app, channel)] = 1
    return channel


def _with_live_channel(case):
    app = case.path_parameters.get("app") if case.path_parameters else None
    if not isinstance(app, str):
        return
    if case.operation.path == CHANNEL_PATH:
        given = case.path_parameters.get("id")
        if not (isinstance(given, str) and (app, _path_form(given)) in _channels):
            channel = _live_channel(app, keeps_message=False)
            if channel is not None:
                case.path_parameters = {**case.path_parameters, "id": channel}
    elif isinstance(case.body, dict):
        body = dict(case.body)
        given = body.get("channel-id")
        keeps_message = body.get("expiration", 0) != 0
        policy = _channels.get((app, _path_form(given))) if isinstance(given, str) else None
        if policy is None or (keeps_message and policy != 1):
            channel = _live_channel(app, keeps_message)
            if channel is not None:
                body["channel-id"] = channel
        payload = body.get("payload")
        if isinstance(payload, dict) and len(json.dumps(payload, separators=(",", ":")).encode()) > BROADCAST_PAYLOAD_BOUND:
            aps = payload["aps"]
            body["payload"] = {"aps": {"event": aps["event"], "timestamp": aps["timestamp"]}}
        case.body = body


def _within_notify_bound(body):
    room = NOTIFY_MESSAGES - sum(isinstance(body.get(key), str) for key in ("message_id", "message_tag"))
    for key in ("message_ids", "message_tags"):
        if isinstance(body.get(key), list):
            body[key] = body[key][: max(room, 0)]
            room -= len(body[key])
    return body


MATRIX_PATHS = {"/_matrix/push/v1/notify", "/internal/v1/matrix/device"}
MATRIX_APPS = ["im.example.ios", "im.example.android", "im.example.ios.dev", None]
_matrix_turn = itertools.count()
FCM_TOKEN = re.compile(r"[A-Za-z0-9_:-]{1,4096}")


def _with_matrix_apps(body):
    notification = body.get("notification")
    if not isinstance(notification, dict) or not isinstance(notification.get("devices"), list):
        return body
    turn = next(_matrix_turn)
    app_id = MATRIX_APPS[turn % len(MATRIX_APPS)]
    if app_id is None:
        return body
    devices = []
    for index, device in enumerate(notification["devices"]):
        device = dict(device)
        device["app_id"] = app_id
        if app_id != "im.example.android" and (turn + index) % 2 == 0:
            device["pushkey"] = base64.b64encode(os.urandom(32)).decode()
        elif app_id == "im.example.android" and not FCM_TOKEN.fullmatch(device["pushkey"]):
            # FCM answers a malformed token 400 INVALID_ARGUMENT, which Herald (as Sygnal) answers
            # 502, documented: the homeserver retries.
            device["pushkey"] = "fuzz-" + os.urandom(16).hex()
        devices.append(device)
    return {**body, "notification": {**notification, "devices": devices}}


@schemathesis.hook
def before_call(ctx, case, kwargs):
    meta = case.meta
    if meta is None or not meta.generation.mode.is_positive:
        return
    path = case.operation.path
    if path in GORUSH_PATHS and isinstance(case.body, (dict, list)):
        case.body = _integral(case.body)
    elif path in MATRIX_PATHS and case.method.upper() == "POST" and isinstance(case.body, dict):
        case.body = _with_matrix_apps(case.body)
    elif path in NOTIFY_PATHS and isinstance(case.body, dict):
        case.body = _within_notify_bound(dict(case.body))
    elif path == BROADCAST_PATH or (path == CHANNEL_PATH and case.method.upper() in ("GET", "DELETE")):
        _with_live_channel(case)


@schemathesis.hook
def after_call(ctx, case, response):
    """Follows the channels the node created and deleted (whatever the case's mode)."""
    path, method = case.operation.path, case.method.upper()
    app = case.path_parameters.get("app") if case.path_parameters else None
    if path == CHANNELS_PATH and method == "POST" and response.status_code == 201:
        created = json.loads(response.content)
        _channels[(app, created["id"])] = created["message-storage-policy"]
    elif path == CHANNEL_PATH and isinstance(case.path_parameters.get("id"), str):
        gone = method == "DELETE" and response.status_code == 204
        gone = gone or (response.status_code == 400 and b"ChannelNotRegistered" in response.content)
        if gone:
            _channels.pop((app, _path_form(case.path_parameters["id"])), None)
