"""What scripts/matrix-vectors.py (APNs, FCM) and scripts/matrix-webpush-vectors.py (WebPush) share to run
Sygnal 0.17.0 in-process and record what it does: Sygnal's own Sygnal object started on Twisted's
MemoryReactorClock, a fake HTTP channel to POST /_matrix/push/v1/notify through its real HTTP resource, a
recording stand-in for the Twisted agent the FCM and WebPush pushkins post with, and the command line both
scripts have (write the JSON, --check it, --out elsewhere).

Not a script of its own and not needed at test time: the Swift tests read the committed JSON. Import it
from the scripts' folder, with the venv's Python the scripts' docstrings describe (it imports Twisted and
Sygnal, so an ImportError here means the wrong Python).
"""

import argparse
import importlib.metadata
import json
import logging
import os
import sys
from io import BytesIO

from twisted.internet.defer import ensureDeferred
from twisted.internet.testing import MemoryReactorClock
from twisted.python.failure import Failure
from twisted.web.client import ResponseDone
from twisted.web.http_headers import Headers

from sygnal.sygnal import CONFIG_DEFAULTS, Sygnal, merge_left_with_defaults

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VECTORS = os.path.join(ROOT, "Tests", "HeraldMatrixTests", "Vectors")
NOTIFY = b"/_matrix/push/v1/notify"
SYGNAL_VERSION = "0.17.0"


def require_sygnal(name):
    """The matrix-sygnal version in this Python; exits unless it is the one the vectors describe."""
    version = importlib.metadata.version("matrix-sygnal")
    if version != SYGNAL_VERSION:
        sys.exit("%s: need matrix-sygnal %s in this Python, found %s" % (name, SYGNAL_VERSION, version))
    return version


# --- the Sygnal under test ---------------------------------------------------------------------------


def start_sygnal(apps):
    """Starts Sygnal configured with `apps` (app_id -> pushkin config); returns (reactor, sygnal, site).

    The caller patches the pushkins' network afterwards: they exist only once Sygnal has started."""
    config = merge_left_with_defaults(
        CONFIG_DEFAULTS,
        {
            "apps": apps,
            # Sygnal's own logging would bury the script's output; the scripts record what matters.
            "log": {"setup": {"version": 1, "disable_existing_loggers": False, "root": {"level": "CRITICAL", "handlers": []}}},
        },
    )
    reactor = MemoryReactorClock()
    sygnal = Sygnal(config, reactor)
    started = ensureDeferred(sygnal.make_pushkins_then_start())
    # Start-up may wait on the clock, which only moves when advanced.
    for _ in range(100):
        if started.called:
            break
        reactor.advance(1)
    failures = []
    started.addErrback(failures.append)
    if failures:
        failures[0].raiseException()
    assert started.called, "Sygnal did not start"
    (_port, site, _backlog, _interface) = reactor.tcpServers[0]
    return reactor, sygnal, site


class _Channel:
    """The wire side of a Twisted request (as Sygnal's own tests/testutils.FakeChannel)."""

    def __init__(self, site):
        self.site = site
        self.code = None
        self.headers = None
        self.body = b""
        self.done = False

    def writeHeaders(self, version, code, reason, headers):
        self.code = int(code)
        self.headers = headers

    def write(self, content):
        self.body += content

    def requestDone(self, _request):
        self.done = True

    def getPeer(self):
        return None

    def getHost(self):
        return None

    @property
    def transport(self):
        return None

    def post(self, body):
        request = self.site.requestFactory(self)
        request.content = BytesIO(body)
        request.requestReceived(b"POST", NOTIFY, b"1.1")


def notify(reactor, site, body, give_up_after, lenient=False):
    """POSTs body (a dict, sent as compact UTF-8 JSON, or bytes as they are) to /_matrix/push/v1/notify and
    advances the fake clock one second at a time until Sygnal answers; returns (answer, simulated seconds).

    give_up_after bounds the simulated seconds (retry back-offs count). lenient: an answer body that is not
    JSON is recorded with body null instead of stopping the script."""
    raw = body if isinstance(body, bytes) else json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode()
    channel = _Channel(site)
    channel.post(raw)
    seconds = 0
    while not channel.done:
        if not reactor.getDelayedCalls():
            raise RuntimeError("Sygnal is stuck with nothing scheduled")
        reactor.advance(1)
        seconds += 1
        if seconds > give_up_after:
            raise RuntimeError("no answer after %d simulated seconds" % give_up_after)
    text = channel.body.decode("utf-8")
    try:
        parsed = json.loads(text) if text else None
    except ValueError:
        if not lenient:
            raise
        parsed = None
    answer = {"status": channel.code, "body": parsed, "raw_body": text}
    content_type = channel.headers.getRawHeaders(b"content-type")
    answer["content_type"] = content_type[0].decode() if content_type else None
    return answer, seconds


# --- fake provider (the Twisted agent the FCM and WebPush pushkins post with) ---------------------------


class FakeResponse:
    """Just what Sygnal reads of a Twisted response: code, headers, and the body via deliverBody."""

    def __init__(self, code, body, headers):
        self.code = code
        self.phrase = b"Fake"
        self.version = (b"HTTP", 1, 1)
        self.headers = Headers({k.encode(): [v.encode()] for k, v in headers.items()})
        self.length = len(body)
        self._body = body

    def deliverBody(self, protocol):
        protocol.dataReceived(self._body)
        protocol.connectionLost(Failure(ResponseDone()))


class RecordingAgent:
    """Stands in for the pushkin's http_agent (a Twisted ProxyAgent): records every request as the pushkin
    handed it and answers from `answers`, a queue the caller fills (empty: `default_answer`). Subclasses turn
    an answer into a Deferred in respond()."""

    def __init__(self, default_answer):
        self.default_answer = default_answer
        self.answers = []
        self.sent = []

    def request(self, method, uri, headers=None, bodyProducer=None):
        # Both pushkins hand over a FileBodyProducer; its file holds the exact bytes that would go out.
        body = bodyProducer._inputFile.read()
        self.sent.append(
            {
                "method": method.decode(),
                "url": uri.decode(),
                # Pairs, not a dict: the order is the order Twisted would write them in.
                "headers": [(k.decode(), [v.decode() for v in vs]) for k, vs in headers.getAllRawHeaders()],
                "body": body,
            }
        )
        return self.respond(self.answers.pop(0) if self.answers else self.default_answer)

    def respond(self, answer):
        raise NotImplementedError


# --- the command line ------------------------------------------------------------------------------------


def main(name, doc, default_out, build):
    """Writes build()'s JSON to --out, or with --check exits 1 unless the file already holds exactly it."""
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument("--out", default=default_out)
    parser.add_argument("--check", action="store_true", help="compare with the file instead of writing it")
    args = parser.parse_args()
    # Sygnal logs every refused push; those refusals are what the vectors are made of.
    logging.disable(logging.CRITICAL)
    text = json.dumps(build(), ensure_ascii=False, indent=1) + "\n"
    if args.check:
        with open(args.out, encoding="utf-8") as f:
            same = f.read() == text
        print("%s: %s %s" % (name, args.out, "matches" if same else "DIFFERS from what Sygnal gives now"))
        sys.exit(0 if same else 1)
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w", encoding="utf-8") as f:
        f.write(text)
    data = json.loads(text)
    print("%s: wrote %s (%d vectors, %d rejections)" % (name, args.out, len(data["vectors"]), len(data["rejections"])))
