#!/usr/bin/env python3
"""The parts of the cluster scripts that bash does badly: choosing free ports, writing a node's
YAML merged with the operator's extra file, and summarising the JSON of /readyz and /cluster.

    helper.py ports PORT...          the same ports, each replaced by a free one when taken
    helper.py config --out FILE ...  writes a node's herald.yaml, prints its server.port
    helper.py readyz FILE            one line from a /readyz body
    helper.py cluster FILE           one line from a /cluster body
"""

import argparse
import json
import os
import re
import socket
import sys

PLACEHOLDER = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


def bindable(port):
    # SO_REUSEADDR as servers set it, so a port held only by TIME_WAIT counts as free.
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("127.0.0.1", port))
            return True
        except OSError:
            return False


def ports(args):
    wanted = [int(p) for p in args.port]
    chosen = []
    # Replacements come from above every wanted port, so one never lands on a later member's.
    spare = max(wanted) + 1
    for port in wanted:
        if port in chosen or not bindable(port):
            while spare in chosen or spare in wanted or not bindable(spare):
                spare += 1
                if spare > 65535:
                    sys.exit("no free port above %d on 127.0.0.1" % max(wanted))
            print("port %d is taken, using %d" % (port, spare), file=sys.stderr)
            port = spare
            spare += 1
        chosen.append(port)
    print(" ".join(str(p) for p in chosen))


def merge(base, extra):
    """Mappings merge key by key; anything else in extra replaces what base had."""
    if isinstance(base, dict) and isinstance(extra, dict):
        out = dict(base)
        for key, value in extra.items():
            out[key] = merge(base[key], value) if key in base else value
        return out
    return extra


def expand(value, variables, source):
    # Only the names the scripts define are replaced, and an unknown one is an error: a
    # silently empty path would surface later as a confusing start-up failure.
    if isinstance(value, dict):
        return {k: expand(v, variables, source) for k, v in value.items()}
    if isinstance(value, list):
        return [expand(v, variables, source) for v in value]
    if isinstance(value, str):
        whole = PLACEHOLDER.fullmatch(value)
        if whole and whole.group(1) in variables and variables[whole.group(1)].isdigit():
            # `port: ${MOCK_APNS_PORT}` should stay a number in the written YAML.
            return int(variables[whole.group(1)])

        def substitute(match):
            name = match.group(1)
            if name not in variables:
                sys.exit("%s: unknown placeholder ${%s} (known: %s)" % (source, name, ", ".join(sorted(variables))))
            return variables[name]
        return PLACEHOLDER.sub(substitute, value)
    return value


def config(args):
    import yaml

    node = {
        "server": {"host": "127.0.0.1", "port": args.port},
        "store": {"path": args.store, "encryption-key-file": args.store_key_file},
        "cluster": {"etcd-endpoints": args.endpoints, "secret": args.secret},
    }
    if not args.skip_node_keys:
        node["cluster"]["node-id"] = args.node_id
        node["cluster"]["advertise-url"] = args.advertise
    header = "# Written by cluster/up for %s; rewritten on every cluster/up.\n" % args.node_id
    if args.extra:
        with open(args.extra) as f:
            extra = yaml.safe_load(f) or {}
        if not isinstance(extra, dict):
            sys.exit("%s: expected a YAML mapping at the top" % args.extra)
        variables = dict(v.split("=", 1) for v in args.var)
        node = merge(node, expand(extra, variables, args.extra))
        header += "# Merged with %s (its values win).\n" % args.extra
    with open(args.out + ".tmp", "w") as f:
        f.write(header)
        yaml.safe_dump(node, f, sort_keys=False, default_flow_style=False)
    os.replace(args.out + ".tmp", args.out)
    print(node.get("server", {}).get("port", 8080))


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def readyz(args):
    body = load(args.file)
    if not isinstance(body, dict):
        print("(no JSON)")
        return
    head, applied = body.get("logHead"), body.get("appliedPosition")
    line = body.get("status", "?")
    problems = body.get("problems") or []
    # A node that cannot read the log reports a head of 0, which says nothing about lag.
    known = not (problems and head == 0)
    if isinstance(head, int) and isinstance(applied, int) and known:
        line += ", lag %d (log head %d, applied %d)" % (max(head - applied, 0), head, applied)
    if problems:
        line += "; " + "; ".join(str(p) for p in problems)
    print(line)


def cluster(args):
    body = load(args.file)
    if not isinstance(body, dict):
        print("(no JSON)")
        return
    members = body.get("members") or []
    names = ", ".join("%s %s" % (m.get("id", "?"), m.get("url", "")) if isinstance(m, dict) else str(m) for m in members)
    owned = body.get("owned") or []
    first = ", ".join(str(p) for p in owned[:8]) + (", …" if len(owned) > 8 else "")
    line = "node %s, lag %s" % (body.get("node", "?"), body.get("lag", "?"))
    if "etcd" in body:
        line += ", etcd %s" % body["etcd"]
    print(line)
    print("members (%d): %s" % (len(members), names or "none"))
    total = body.get("partitions")
    of = " of %d" % total if isinstance(total, int) else ""
    print("owns %d%s partitions%s" % (len(owned), of, ": " + first if owned else ""))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("ports")
    p.add_argument("port", nargs="+")
    p.set_defaults(run=ports)

    p = sub.add_parser("config")
    p.add_argument("--out", required=True)
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--store", required=True)
    p.add_argument("--store-key-file", required=True)
    p.add_argument("--endpoints", required=True)
    p.add_argument("--node-id", required=True)
    p.add_argument("--secret", required=True)
    p.add_argument("--advertise", required=True)
    p.add_argument("--skip-node-keys", action="store_true")
    p.add_argument("--extra")
    p.add_argument("--var", action="append", default=[], help="NAME=VALUE for ${NAME} in --extra")
    p.set_defaults(run=config)

    for name, run in (("readyz", readyz), ("cluster", cluster)):
        p = sub.add_parser(name)
        p.add_argument("file")
        p.set_defaults(run=run)

    args = parser.parse_args()
    args.run(args)


if __name__ == "__main__":
    main()
