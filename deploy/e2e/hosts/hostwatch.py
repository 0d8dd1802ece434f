#!/usr/bin/python3
"""Watches the membership of a namespaced test cluster (deploy/hosts.sh) and reads the record back.

  hostwatch.py watch --cluster FILE --out FILE --stop FILE [--interval-ms 50] [--max-seconds 120]
      polls every node's `state` over the control protocol until FILE --stop exists (or
      --max-seconds pass) and writes what each node thought of each peer, as changes:
      {"events": [[ms, observer, peer, status], …], "silent": [[ms, node, true|false], …], …}.
      A node that does not answer within the interval is "silent" from then until it answers.
  hostwatch.py first --events FILE --since MS --pairs A>B,… --status S[,S…]
      for each pair: ms from MS until observer A first saw peer B in one of the statuses
      (0 when it already did at MS); {"pairs": {…}, "max": ms, "missing": [pairs never seen so]}
  hostwatch.py flaps --events FILE --since MS --until MS [--pairs A>B,…]
      per pair between the two times: how often the status left alive, how many of those went as
      far as gone, and ms not alive; plus totals

Only control endpoints of the test hosts (10.213.0.0/24) or loopback are ever contacted; every
wait is bounded. Progress goes to stderr, the document to --out or stdout.
"""

import argparse
import ipaddress
import json
import os
import sys
import time
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from keyfile import read_key  # noqa: E402 (deploy/e2e/keyfile.py)

ALLOWED = [ipaddress.ip_network("10.213.0.0/24"), ipaddress.ip_network("127.0.0.0/8")]


def now_ms():
    return int(time.time() * 1000)


def say(text):
    print("hostwatch: " + text, file=sys.stderr, flush=True)


def checked_endpoint(endpoint):
    """tcp://HOST:PORT, HOST inside the test subnet or loopback; anything else is refused."""
    if not endpoint.startswith("tcp://") or ":" not in endpoint[6:]:
        raise SystemExit("hostwatch: not a tcp endpoint: %r" % endpoint)
    host = endpoint[6:].rsplit(":", 1)[0]
    address = ipaddress.ip_address(host)
    if not any(address in net for net in ALLOWED):
        raise SystemExit("hostwatch: %s is outside the test hosts' subnet and loopback: refused" % endpoint)
    return endpoint




def cmd_watch(args):
    import zmq  # the system python's pyzmq (Debian python3-zmq), as deploy/e2e/rogue.py

    with open(args.cluster) as f:
        entries = json.load(f)["nodes"]
    nodes = [(n["id"], checked_endpoint(n["control"])) for n in entries]
    server_keys = {n["id"]: n.get("key") for n in entries}
    # A secured cluster: speak CURVE as the operator (keys/operator.key beside the cluster file).
    operator = None
    if any(server_keys.values()):
        operator = read_key(os.path.join(os.path.dirname(os.path.abspath(args.cluster)), "keys", "operator.key"))
    ctx = zmq.Context.instance()
    socks = {}
    for node, endpoint in nodes:
        sock = ctx.socket(zmq.DEALER)
        sock.setsockopt(zmq.LINGER, 0)
        if operator and server_keys.get(node):
            sock.curve_publickey, sock.curve_secretkey = operator
            sock.curve_serverkey = server_keys[node].encode()
        sock.connect(endpoint)
        socks[node] = sock
    poller = zmq.Poller()
    for sock in socks.values():
        poller.register(sock, zmq.POLLIN)
    by_sock = {sock: node for node, sock in socks.items()}

    started = now_ms()
    deadline = started + int(args.max_seconds * 1000)
    interval = args.interval_ms
    known = {}          # (observer, peer) -> status
    silent = {}         # node -> bool
    events, silences = [], []
    rounds = 0
    while now_ms() < deadline and not os.path.exists(args.stop):
        rounds += 1
        round_started = now_ms()
        rid = "w%d" % rounds
        for sock in socks.values():
            sock.send(json.dumps({"v": 1, "id": rid, "op": "state"}).encode())
        pending = set(socks)
        round_deadline = round_started + max(interval, 20)
        while pending:
            left = round_deadline - now_ms()
            if left <= 0:
                break
            for sock, _ in poller.poll(left):
                node = by_sock[sock]
                while True:
                    try:
                        frames = sock.recv_multipart(zmq.NOBLOCK)
                    except zmq.Again:
                        break
                    try:
                        reply = json.loads(frames[-1])
                    except ValueError:
                        continue
                    # A late reply to an earlier round is dropped; only this round's counts.
                    if not isinstance(reply, dict) or reply.get("id") != rid or not reply.get("ok"):
                        continue
                    pending.discard(node)
                    at = now_ms()
                    for peer, info in sorted((reply.get("result") or {}).get("peers", {}).items()):
                        status = info.get("status") if isinstance(info, dict) else None
                        if known.get((node, peer)) != status:
                            known[(node, peer)] = status
                            events.append([at, node, peer, status])
        at = now_ms()
        for node in socks:
            quiet = node in pending
            if silent.get(node) != quiet:
                silent[node] = quiet
                silences.append([at, node, quiet])
        rest = round_started + interval - now_ms()
        if rest > 0:
            time.sleep(rest / 1000)
    for sock in socks.values():
        sock.close(0)
    document = {"startedMs": started, "endedMs": now_ms(), "rounds": rounds, "intervalMs": interval,
                "events": events, "silent": silences}
    with open(args.out + ".tmp", "w") as f:
        json.dump(document, f)
    os.replace(args.out + ".tmp", args.out)
    say("%d rounds in %.1f s, %d status changes" % (rounds, (document["endedMs"] - started) / 1000, len(events)))
    return 0


def load_events(path):
    with open(path) as f:
        return json.load(f)


def parse_pairs(text):
    pairs = []
    for item in text.split(","):
        item = item.strip()
        if item:
            observer, _, peer = item.partition(">")
            pairs.append((observer, peer))
    return pairs


def status_at(events, observer, peer, at):
    """The status observer last reported for peer at or before `at` (None before the first)."""
    status = None
    for t, o, p, s in events:
        if t > at:
            break
        if o == observer and p == peer:
            status = s
    return status


def cmd_first(args):
    doc = load_events(args.events)
    events = doc["events"]
    wanted = set(args.status.split(","))
    result, missing = {}, []
    for observer, peer in parse_pairs(args.pairs):
        key = "%s>%s" % (observer, peer)
        if status_at(events, observer, peer, args.since) in wanted:
            result[key] = 0
            continue
        hit = next((t for t, o, p, s in events if t > args.since and o == observer and p == peer and s in wanted), None)
        if hit is None:
            missing.append(key)
        else:
            result[key] = hit - args.since
    print(json.dumps({"pairs": result, "max": max(result.values()) if result and not missing else None,
                      "missing": missing}))
    return 0


def cmd_flaps(args):
    doc = load_events(args.events)
    events = doc["events"]
    if args.pairs:
        pairs = parse_pairs(args.pairs)
    else:
        pairs = sorted({(o, p) for _, o, p, _ in events})
    until = args.until
    result = {}
    totals = {"left": 0, "gone": 0, "notAliveMs": 0}
    for observer, peer in pairs:
        status = status_at(events, observer, peer, args.since)
        since = args.since
        left = gone = not_alive = 0
        for t, o, p, s in events:
            if t <= args.since or t > until or o != observer or p != peer:
                continue
            if status != "alive":
                not_alive += t - since
            if status == "alive" and s != "alive":
                left += 1
            if s == "gone" and status != "gone":
                gone += 1
            status, since = s, t
        if status != "alive":
            not_alive += until - since
        result["%s>%s" % (observer, peer)] = {"left": left, "gone": gone, "notAliveMs": not_alive, "end": status}
        totals["left"] += left
        totals["gone"] += gone
        totals["notAliveMs"] += not_alive
    print(json.dumps({"pairs": result, "totals": totals, "spanMs": until - args.since}))
    return 0


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    watch = sub.add_parser("watch")
    watch.add_argument("--cluster", required=True)
    watch.add_argument("--out", required=True)
    watch.add_argument("--stop", required=True)
    watch.add_argument("--interval-ms", type=int, default=50)
    watch.add_argument("--max-seconds", type=float, default=120)
    first = sub.add_parser("first")
    first.add_argument("--events", required=True)
    first.add_argument("--since", type=int, required=True)
    first.add_argument("--pairs", required=True)
    first.add_argument("--status", required=True)
    flaps = sub.add_parser("flaps")
    flaps.add_argument("--events", required=True)
    flaps.add_argument("--since", type=int, required=True)
    flaps.add_argument("--until", type=int, required=True)
    flaps.add_argument("--pairs", default="")
    args = parser.parse_args(argv)
    if args.command == "watch":
        if not 10 <= args.interval_ms <= 10000 or not 0 < args.max_seconds <= 600:
            raise SystemExit("hostwatch: --interval-ms 10…10000 and --max-seconds up to 600")
        return cmd_watch(args)
    return {"first": cmd_first, "flaps": cmd_flaps}[args.command](args)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
