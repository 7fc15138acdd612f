#!/usr/bin/env python3
"""Latency of one fenced append as Herald makes it (compare a partition head's mod_revision,
put the head and a log key) through etcd's JSON gateway, one at a time, so each pays the whole
round: gateway, raft across the members, fsync.

    benchmarks/scripts/etcd-append-latency.py http://127.0.0.1:23791 [count]

Writes under bench/ only and deletes it after."""
import base64, json, sys, time, urllib.request

endpoint, count = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 500
b64 = lambda s: base64.b64encode(s.encode() if isinstance(s, str) else s).decode()

def call(path, body):
    request = urllib.request.Request(endpoint + path, json.dumps(body).encode(), {"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.load(response)

value = b64(b"x" * 300)  # about one registration command
head_revision = 0
samples = []
for i in range(count):
    txn = {
        "compare": [{"key": b64("bench/head"), "target": "MOD", "result": "LESS", "mod_revision": str(head_revision + 1)}],
        "success": [
            {"request_put": {"key": b64("bench/head"), "value": b64("bench")}},
            {"request_put": {"key": b64(f"bench/log/{i:020d}"), "value": value}},
        ],
        "failure": [{"request_range": {"key": b64("bench/head")}}],
    }
    start = time.perf_counter()
    answer = call("/v3/kv/txn", txn)
    samples.append((time.perf_counter() - start) * 1000)
    if not answer.get("succeeded"):
        sys.exit(f"append {i} was fenced: {answer}")
    head_revision = int(answer["header"]["revision"])
call("/v3/kv/deleterange", {"key": b64("bench/"), "range_end": b64("bench0")})
samples.sort()
pick = lambda q: samples[min(len(samples) - 1, int(q * len(samples)))]
print(f"{count} fenced appends, one at a time: p50 {pick(0.5):.2f} ms  p90 {pick(0.9):.2f} ms  p99 {pick(0.99):.2f} ms  max {samples[-1]:.2f} ms")
