"""The SWIM membership's wire format (Sources/RexMembership/Wire/MembershipWire.swift), encoding
only, for the e2e suite's hostile membership probes: a well-formed message to forge, and the
malformed variants each counted under its own reason by a node.

    magic 0x53 | version 1 | kind | sender id | sender address | sender incarnation (LEB128)
    body (ping/ack/nack: u32 LE sequence; join: flags u8, count u16, updates; gossip: nothing)
    gossip count u8, updates; update: status u8, incarnation, id, address [, suspectedBy]
"""

MAGIC = 0x53
VERSION = 1
KINDS = {"ping": 1, "pingRequest": 2, "ack": 3, "nack": 4, "join": 5, "joinReply": 6, "gossip": 7}
STATUSES = {"alive": 0, "suspect": 1, "dead": 2, "left": 3}
MAX_MESSAGE_BYTES = 16 * 1024


def varint(value):
    out = bytearray()
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def string(text):
    data = text.encode()
    if not 0 < len(data) < 256:
        raise ValueError("a wire string is 1-255 bytes: %r" % text)
    return bytes([len(data)]) + data


def update(member_id, address, status="alive", incarnation=0, suspected_by="x"):
    out = bytes([STATUSES[status]]) + varint(incarnation) + string(member_id) + string(address)
    return out + (string(suspected_by) if status == "suspect" else b"")


def message(kind, sender, address, incarnation=0, sequence=1, gossip=(), members=(), wants_reply=True):
    """One message; `gossip` and `members` are encoded updates (see update())."""
    out = bytes([MAGIC, VERSION, KINDS[kind]]) + string(sender) + string(address) + varint(incarnation)
    if kind in ("ping", "ack", "nack"):
        out += (sequence & 0xFFFFFFFF).to_bytes(4, "little")
    elif kind == "join":
        out += bytes([1 if wants_reply else 0]) + len(members).to_bytes(2, "little") + b"".join(members)
    elif kind == "joinReply":
        out += len(members).to_bytes(2, "little") + b"".join(members)
    elif kind != "gossip":
        raise ValueError("no encoder for %s" % kind)
    return out + bytes([len(gossip)]) + b"".join(gossip)


def malformed(name, sender="rogue", address="tcp://127.0.0.1:1 tcp://127.0.0.1:2"):
    """A malformed message by the reason a node counts it under (MembershipWireError)."""
    ping = message("ping", sender, address)
    return {
        "bad_magic": b"\x00\x01\x02",
        "unsupported_version": bytes([MAGIC, 9, 1]),
        "unknown_kind": bytes([MAGIC, VERSION, 99]) + ping[3:],
        "truncated": ping[:-3],
        "trailing_bytes": ping + b"\xee",
        "bad_varint": bytes([MAGIC, VERSION, 1]) + string(sender) + string(address) + b"\xff" * 11,
        "oversized": bytes([MAGIC]) * (MAX_MESSAGE_BYTES + 4000),
    }[name]


MALFORMED = ("bad_magic", "unsupported_version", "unknown_kind", "truncated", "trailing_bytes", "bad_varint", "oversized")
