#!/usr/bin/env python3
"""The baseline peer: sends the same notifications Herald sends to the same strict mock APNs with
aioapns (a widely used asyncio APNs client: HTTP/2 over TLS, ES256 provider tokens), and prints
notifications per second.

Install:  pip install aioapns
Run:      python3 aioapns_send.py --port 19443 --ca ca.pem --key key.p8 --key-id BENCHKEY01 \
              --team-id BENCHTEAM1 --count 20000

aioapns only knows Apple's hosts, so the script points its connection class at the mock
(`localhost`, matching the mock certificate's name) and trusts the mock's certificate; nothing
else about the client is changed. Every notification must be answered 200: the count of
failures is printed and makes the exit status non-zero.
"""

import argparse
import asyncio
import logging
import ssl
import sys
import time
import uuid

from aioapns import APNs, NotificationRequest, PushType


def parse():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--ca", required=True, help="the mock's certificate (PEM)")
    parser.add_argument("--key", required=True, help="the .p8 signing key the mock trusts")
    parser.add_argument("--key-id", required=True)
    parser.add_argument("--team-id", required=True)
    parser.add_argument("--topic", default="im.herald.bench")
    parser.add_argument("--count", type=int, default=20000)
    parser.add_argument("--concurrency", type=int, default=1000, help="notifications in flight")
    parser.add_argument("--connections", type=int, default=10, help="HTTP/2 connections (aioapns' default, 10)")
    parser.add_argument("--plain-sink", action="store_true",
                        help="the peer is a plain HTTP/2 server (nghttpd), which answers without apns-id or body")
    return parser.parse_args()


def plain_sink_members(base):
    """aioapns matches an answer to its request by the answer's apns-id header, which APNs echoes
    and a plain HTTP/2 server does not send; it also reads any body as JSON. Against such a sink,
    the id comes from the stream (aioapns keeps that map itself) and an empty body is no body."""
    from h2.events import ResponseReceived

    def connection_made(self, transport):
        receive = self.conn.receive_data

        def receive_with_ids(data):
            events = receive(data)
            for event in events:
                if isinstance(event, ResponseReceived) and not any(name == b"apns-id" for name, _ in event.headers):
                    notification_id = self.request_streams.get(event.stream_id)
                    if notification_id:
                        event.headers = list(event.headers) + [(b"apns-id", notification_id.encode())]
            return events

        self.conn.receive_data = receive_with_ids
        base.connection_made(self, transport)

    def on_data_received(self, raw_data, stream_id):
        if raw_data:
            base.on_data_received(self, raw_data, stream_id)

    return {"connection_made": connection_made, "on_data_received": on_data_received}


async def main(args):
    # aioapns logs every wait for a free stream; the count of failures is what matters here.
    logging.getLogger("aioapns").setLevel(logging.ERROR)
    context = ssl.create_default_context(cafile=args.ca)
    context.set_alpn_protocols(["h2"])
    with open(args.key) as key_file:
        key = key_file.read()
    client = APNs(key=key, key_id=args.key_id, team_id=args.team_id, topic=args.topic,
                  max_connections=args.connections, ssl_context=context)
    base = client.pool.protocol_class
    members = {"APNS_SERVER": "localhost", "APNS_PORT": args.port}
    if args.plain_sink:
        members.update(plain_sink_members(base))
    client.pool.protocol_class = type("MockAPNs", (base,), members)

    token = "%064x" % 1
    message = {"aps": {"alert": "benchmark"}}
    failures = 0
    semaphore = asyncio.Semaphore(args.concurrency)

    async def send_one():
        nonlocal failures
        async with semaphore:
            request = NotificationRequest(device_token=token, message=message,
                                          notification_id=str(uuid.uuid4()), push_type=PushType.ALERT)
            result = await client.send_notification(request)
            if not result.is_successful:
                failures += 1

    # Warm-up: connections and the provider token, not measured.
    await asyncio.gather(*(send_one() for _ in range(min(200, args.count))))
    failures = 0
    started = time.monotonic()
    await asyncio.gather(*(send_one() for _ in range(args.count)))
    elapsed = time.monotonic() - started
    print(f"aioapns: {args.count} notifications in {elapsed:.2f} s = {args.count / elapsed:.1f}/s, failures {failures}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main(parse())))
