#!/usr/bin/env python3
"""A strict RFC 8030 push service that shares no code with Herald, for testing Herald's Web Push provider.

Usage: push_service.py CONFIG.json

CONFIG: {cert, key (PEM files), host, port (0: any), ready_file, record_file,
subscriptions: {id: {private_key (hex, 32-byte P-256 scalar), auth (hex, 16 bytes),
behaviour: ok|gone|expired|too-big|busy-once|error-once|forbidden}},
vapid_public_key (base64url 65-byte point Herald must sign with, or null for any),
audience (expected JWT aud, or null for https://<Host header>)}.

Serves HTTPS (HTTP/1.1, keep-alive) on POST /push/<id>; writes {"port": N} to ready_file once listening
and runs until SIGTERM. Every request is checked in this order, the first failure answering with a one-line
text body: TTL, Urgency, Topic, Content-Encoding (aes128gcm only, no Encryption, no Crypto-Key dh/salt),
Content-Type, VAPID (401 when absent, 403 otherwise), body size (413 above 4096 bytes) and aes128gcm header,
decryption with http_ece. Only then does the subscription's behaviour pick the answer.

record_file gets one JSON object per line:
  {"id", "status", "unknown": true}                                   no such subscription (404)
  {"id", "status", "violation", "headers"}                            a check failed (400/401/403/413)
  {"id", "status", "plaintext", "headers", "vapid", "body_length"}    valid; status is the behaviour's answer
  {"method", "path", "status", "unrouted": true}                      anything but POST /push/<id> (404/405)
"headers" holds the lower-cased ttl, urgency, topic, content-encoding, content-type and authorization
headers that were present; "vapid" is {sub, aud, exp, k}; "plaintext" is hex.

Set PUSH_SERVICE_VERBOSE to log requests to stderr.
"""
import base64
import json
import os
import re
import signal
import ssl
import struct
import sys
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import http_ece
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec, utils

VERBOSE = bool(os.environ.get("PUSH_SERVICE_VERBOSE"))
BEHAVIOURS = {"ok", "gone", "expired", "too-big", "busy-once", "error-once", "forbidden"}
URGENCIES = {"very-low", "low", "normal", "high"}
RECORDED_HEADERS = ("ttl", "urgency", "topic", "content-encoding", "content-type", "authorization")
B64URL = re.compile(r"^[A-Za-z0-9_-]*$")
DIGITS = re.compile(r"^[0-9]+$")
PUSH_PATH = re.compile(r"^/push/([^/?#]+)$")
MAX_BODY = 4096  # RFC 8030 §7.2: the size a push service must accept, and all Herald may count on
MAX_READ = 1 << 20  # larger bodies are not read at all; the connection is closed instead
HEADER_LENGTH = 86  # salt 16, rs 4, idlen 1, keyid 65 (RFC 8291 §4)
TAG_LENGTH = 16
MAX_EXP_AHEAD = 24 * 3600 + 60  # RFC 8292 §2: at most 24 h, plus slack for clock skew between the peers


class Violation(Exception):
    def __init__(self, status, text):
        super().__init__(text)
        self.status = status
        self.text = text


def b64url_decode(text, what):
    # Strict on purpose: JWS and RFC 8292 use unpadded base64url, and a lenient decoder would hide an
    # encoder in Herald that pads, uses the standard alphabet or leaves stray bits.
    if not B64URL.match(text) or len(text) % 4 == 1:
        raise Violation(403, "%s: not unpadded base64url" % what)
    data = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    if base64.urlsafe_b64encode(data).rstrip(b"=").decode() != text:
        raise Violation(403, "%s: not canonical base64url" % what)
    return data


def single_header(headers, name, status=400):
    values = headers.get_all(name) or []
    if len(values) > 1:
        raise Violation(status, "%s: %d header fields, expected one" % (name, len(values)))
    return values[0].strip(" \t") if values else None


def check_headers(headers):
    ttl = single_header(headers, "TTL")
    if ttl is None:
        raise Violation(400, "TTL: missing (RFC 8030 §5.2)")
    if not DIGITS.match(ttl):
        raise Violation(400, "TTL: %r is not a non-negative decimal integer" % ttl)

    urgency = single_header(headers, "Urgency")
    if urgency is not None:
        if "," in urgency:
            raise Violation(400, "Urgency: %r has more than one value" % urgency)
        if urgency not in URGENCIES:
            raise Violation(400, "Urgency: %r is not very-low, low, normal or high" % urgency)

    topic = single_header(headers, "Topic")
    if topic is not None and not (1 <= len(topic) <= 32 and B64URL.match(topic)):
        raise Violation(400, "Topic: %r is not 1 to 32 base64url characters" % topic)

    encoding = single_header(headers, "Content-Encoding")
    if encoding != "aes128gcm":
        raise Violation(400, "Content-Encoding: %r, expected exactly aes128gcm (RFC 8291 §4)" % encoding)
    if headers.get_all("Encryption"):
        raise Violation(400, "Encryption: header present with aes128gcm")
    for crypto_key in headers.get_all("Crypto-Key") or []:
        for item in re.split(r"[;,]", crypto_key):
            name = item.split("=", 1)[0].strip(" \t").lower()
            if name in ("dh", "salt"):
                raise Violation(400, "Crypto-Key: carries %s= with aes128gcm" % name)

    content_type = single_header(headers, "Content-Type")
    if content_type is not None and content_type.lower() != "application/octet-stream":
        raise Violation(400, "Content-Type: %r, expected application/octet-stream" % content_type)


def check_vapid(headers, expected_key, audience):
    values = headers.get_all("Authorization") or []
    if not values:
        raise Violation(401, "Authorization: missing (RFC 8292)")
    if len(values) > 1:
        raise Violation(403, "Authorization: %d header fields, expected one" % len(values))
    match = re.match(r"^([A-Za-z][A-Za-z0-9._~+/-]*)[ ]+(.*)$", values[0].strip(" \t"))
    if not match or match.group(1).lower() != "vapid":
        raise Violation(403, "Authorization: scheme is not vapid")
    params = {}
    for item in match.group(2).split(","):
        name, sep, value = item.strip(" \t").partition("=")
        name = name.strip(" \t").lower()
        if not sep or name not in ("t", "k"):
            raise Violation(403, "Authorization: unexpected parameter %r" % item.strip())
        if name in params:
            raise Violation(403, "Authorization: %s= given twice" % name)
        params[name] = value.strip(" \t")
    for name in ("t", "k"):
        if name not in params:
            raise Violation(403, "Authorization: no %s= parameter" % name)

    key = b64url_decode(params["k"], "VAPID k")
    if len(key) != 65 or key[0] != 4:
        raise Violation(403, "VAPID k: %d bytes, expected a 65-byte uncompressed point" % len(key))
    if expected_key is not None and key != expected_key:
        raise Violation(403, "VAPID k: not the configured VAPID public key")
    try:
        public_key = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), key)
    except ValueError as error:
        raise Violation(403, "VAPID k: not a P-256 point (%s)" % error)

    parts = params["t"].split(".")
    if len(parts) != 3:
        raise Violation(403, "VAPID t: %d JWT parts, expected 3" % len(parts))
    header_bytes, claims_bytes, signature = (b64url_decode(part, "VAPID t") for part in parts)
    try:
        header = json.loads(header_bytes)
        claims = json.loads(claims_bytes)
    except ValueError as error:
        raise Violation(403, "VAPID t: JWT header or claims not JSON (%s)" % error)
    if not isinstance(header, dict) or not isinstance(claims, dict):
        raise Violation(403, "VAPID t: JWT header or claims not a JSON object")
    if header.get("alg") != "ES256":
        raise Violation(403, "VAPID t: alg %r, expected ES256" % header.get("alg"))
    if "typ" in header and header["typ"] != "JWT":
        raise Violation(403, "VAPID t: typ %r, expected JWT" % header["typ"])
    # JWS ES256 signatures are raw r||s (RFC 7518 §3.4), not the DER that ECDSA libraries produce.
    if len(signature) != 64:
        raise Violation(403, "VAPID t: signature is %d bytes, expected raw 64-byte r||s" % len(signature))
    der = utils.encode_dss_signature(int.from_bytes(signature[:32], "big"), int.from_bytes(signature[32:], "big"))
    try:
        public_key.verify(der, (parts[0] + "." + parts[1]).encode("ascii"), ec.ECDSA(hashes.SHA256()))
    except InvalidSignature:
        raise Violation(403, "VAPID t: signature does not verify with k")

    if claims.get("aud") != audience:
        raise Violation(403, "VAPID aud: %r, expected %r" % (claims.get("aud"), audience))
    exp = claims.get("exp")
    now = int(time.time())
    if type(exp) is not int:
        raise Violation(403, "VAPID exp: %r is not an integer" % (exp,))
    if exp <= now:
        raise Violation(403, "VAPID exp: %d is not in the future (now %d)" % (exp, now))
    if exp > now + MAX_EXP_AHEAD:
        raise Violation(403, "VAPID exp: %d is more than 24 h ahead (now %d)" % (exp, now))
    sub = claims.get("sub")
    if not isinstance(sub, str) or not sub.startswith(("mailto:", "https:")):
        raise Violation(403, "VAPID sub: %r is not a mailto: or https: URI" % (sub,))
    return {"sub": sub, "aud": claims["aud"], "exp": exp, "k": params["k"]}, key


def check_body(body, length, vapid_key):
    # body is None when it was too large to read; length is then all there is.
    if length > MAX_BODY:
        raise Violation(413, "body: %d bytes, more than %d" % (length, MAX_BODY))
    if len(body) < 21:
        raise Violation(400, "body: %d bytes, too short for an aes128gcm header" % len(body))
    rs = struct.unpack("!L", body[16:20])[0]
    idlen = body[20]
    if rs < 18:
        raise Violation(400, "aes128gcm: rs %d is less than 18" % rs)
    if idlen != 65:
        raise Violation(400, "aes128gcm: idlen %d, expected 65 (RFC 8291 §4)" % idlen)
    if len(body) < HEADER_LENGTH + TAG_LENGTH + 1:
        raise Violation(400, "body: %d bytes, too short for a header and one record" % len(body))
    keyid = body[21:HEADER_LENGTH]
    if keyid[0] != 4:
        raise Violation(400, "aes128gcm: keyid starts with 0x%02x, expected 0x04" % keyid[0])
    # RFC 8291 §4: exactly one record, and rs strictly greater than it.
    record = len(body) - HEADER_LENGTH
    if rs <= record:
        raise Violation(400, "aes128gcm: rs %d is not greater than the %d-byte record (one record only)" % (rs, record))
    # RFC 8292 §3.2: a VAPID key reused as the message's ECDH key SHOULD be refused.
    if keyid == vapid_key:
        raise Violation(400, "aes128gcm: keyid equals the VAPID key k")


class PushServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, config):
        self.subscriptions = {}
        for sub_id, sub in config["subscriptions"].items():
            if sub["behaviour"] not in BEHAVIOURS:
                raise SystemExit("subscription %s: unknown behaviour %r" % (sub_id, sub["behaviour"]))
            scalar = bytes.fromhex(sub["private_key"])
            auth = bytes.fromhex(sub["auth"])
            if len(scalar) != 32 or len(auth) != 16:
                raise SystemExit("subscription %s: private_key must be 32 bytes, auth 16" % sub_id)
            self.subscriptions[sub_id] = {
                "private_key": ec.derive_private_key(int.from_bytes(scalar, "big"), ec.SECP256R1()),
                "auth": auth,
                "behaviour": sub["behaviour"],
            }
        vapid = config.get("vapid_public_key")
        self.vapid_key = base64.urlsafe_b64decode(vapid + "=" * (-len(vapid) % 4)) if vapid else None
        self.audience = config.get("audience")
        self.record_file = config["record_file"]
        self.lock = threading.Lock()
        self.seen = {}  # subscription id -> valid messages so far, for the *-once behaviours
        open(self.record_file, "a").close()
        super().__init__((config.get("host", "127.0.0.1"), config.get("port", 0)), Handler)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(config["cert"], config["key"])
        # Offer only http/1.1 so an HTTP/2-capable client does not try h2 on this HTTP/1.1 server.
        context.set_alpn_protocols(["http/1.1"])
        # Handshake in the connection's thread, not in the accept loop, so one stuck client cannot block others.
        self.socket = context.wrap_socket(self.socket, server_side=True, do_handshake_on_connect=False)

    def record(self, entry):
        line = json.dumps(entry, sort_keys=True) + "\n"
        with self.lock:
            with open(self.record_file, "a") as record_file:
                record_file.write(line)
                record_file.flush()

    def count(self, sub_id):
        with self.lock:
            self.seen[sub_id] = self.seen.get(sub_id, 0) + 1
            return self.seen[sub_id]

    def handle_error(self, request, client_address):
        if VERBOSE:
            super().handle_error(request, client_address)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "push-service-test-peer"

    def setup(self):
        self.request.settimeout(10)
        self.request.do_handshake()
        self.request.settimeout(None)
        super().setup()

    def log_message(self, format, *args):
        if VERBOSE:
            sys.stderr.write("push_service: %s %s\n" % (self.address_string(), format % args))

    def answer(self, status, text="", headers=()):
        body = (text + "\n").encode() if text else b""
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        if body:
            self.send_header("Content-Type", "text/plain; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def send_error(self, code, message=None, explain=None):
        # http.server's own errors (malformed request line and the like) would otherwise be HTML.
        self.close_connection = True
        self.answer(code, message or self.responses.get(code, ("error",))[0], [("Connection", "close")])

    def read_body(self):
        """Reads the whole body, so that the next request on a kept-alive connection starts in the right place.

        Returns (body, length); body is None when it was too large to read (the connection is then closed).
        """
        if "chunked" in (self.headers.get("Transfer-Encoding") or "").lower():
            body = b""
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip(), 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    return body, len(body)
                body += self.rfile.read(size)
                self.rfile.readline()
                if len(body) > MAX_READ:
                    self.close_connection = True
                    return None, len(body)
        length = int(self.headers.get("Content-Length") or 0)
        if length < 0:
            raise ValueError("negative Content-Length")
        if length > MAX_READ:
            self.close_connection = True
            return None, length
        return self.rfile.read(length), length

    def read_body_or_answer(self):
        try:
            return self.read_body()
        except ValueError as error:
            # Framing is lost, so nothing more can be read on this connection.
            self.close_connection = True
            self.answer(400, "cannot read the body: %s" % error, [("Connection", "close")])
            return None

    def unrouted(self):
        if self.read_body_or_answer() is None:
            return
        route = PUSH_PATH.match(self.path)
        status = 405 if route else 404
        self.server.record({"method": self.command, "path": self.path, "status": status, "unrouted": True})
        if route:
            self.answer(405, "only POST is allowed here", [("Allow", "POST")])
        else:
            self.answer(404, "no such resource: %s" % self.path)

    do_GET = do_HEAD = do_PUT = do_DELETE = do_PATCH = do_OPTIONS = unrouted

    def do_POST(self):
        route = PUSH_PATH.match(self.path)
        if not route:
            return self.unrouted()
        read = self.read_body_or_answer()
        if read is None:
            return
        body, body_length = read
        sub_id = route.group(1)
        subscription = self.server.subscriptions.get(sub_id)
        if subscription is None:
            self.server.record({"id": sub_id, "status": 404, "unknown": True})
            return self.answer(404, "no such subscription")
        headers = {name: self.headers[name] for name in RECORDED_HEADERS if name in self.headers}
        try:
            check_headers(self.headers)
            audience = self.server.audience
            if audience is None:
                host = self.headers.get("Host")
                if not host:
                    raise Violation(400, "Host: missing")
                audience = "https://" + host
            vapid, vapid_key = check_vapid(self.headers, self.server.vapid_key, audience)
            check_body(body, body_length, vapid_key)
            try:
                plaintext = http_ece.decrypt(body, private_key=subscription["private_key"],
                                             auth_secret=subscription["auth"], version="aes128gcm")
            except Exception as error:
                raise Violation(400, "cannot decrypt: %s" % error)
        except Violation as violation:
            self.server.record({"id": sub_id, "status": violation.status, "violation": violation.text, "headers": headers})
            return self.answer(violation.status, violation.text)

        ttl = self.headers["TTL"].strip(" \t")
        accepted = (201, "", [("Location", "/message/%s" % uuid.uuid4()), ("TTL", ttl)])
        behaviour = subscription["behaviour"]
        first = self.server.count(sub_id) == 1
        status, text, extra = {
            "ok": accepted,
            "gone": (410, "subscription gone", []),
            "expired": (404, "subscription expired", []),
            "too-big": (413, "payload too large", []),
            "forbidden": (403, "VAPID key refused for this subscription", []),
            "busy-once": (429, "too many requests", [("Retry-After", "1")]) if first else accepted,
            "error-once": (503, "service unavailable", []) if first else accepted,
        }[behaviour]
        self.server.record({"id": sub_id, "status": status, "plaintext": plaintext.hex(), "headers": headers,
                            "vapid": vapid, "body_length": body_length})
        self.answer(status, text, extra)


def main():
    with open(sys.argv[1]) as config_file:
        config = json.load(config_file)
    server = PushServer(config)
    stop = threading.Event()
    # A child spawned from a thread of the Swift test process inherits that thread's signal mask,
    # in which SIGTERM may be blocked: without this the test waits out its timeout and kills.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    threading.Thread(target=server.serve_forever, daemon=True).start()
    # Written via a rename so the test never reads a half-written file.
    ready = config["ready_file"]
    with open(ready + ".tmp", "w") as ready_file:
        json.dump({"port": server.server_address[1]}, ready_file)
    os.replace(ready + ".tmp", ready)
    while not stop.wait(0.2):
        pass
    server.shutdown()
    server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
