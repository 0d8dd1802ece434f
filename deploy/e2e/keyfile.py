"""Reads a CURVE key file as `rexctl keygen` writes it, for the e2e suite's python peers."""


def read_key(path):
    """(public, secret) Z85 texts of a key file written by `rexctl keygen` (first 4 KiB only)."""
    keys = {}
    with open(path) as f:
        for line in f.read(4096).splitlines():
            if "=" in line and not line.lstrip().startswith("#"):
                name, value = (part.strip() for part in line.split("=", 1))
                keys[name] = value
    return keys["public-key"].encode(), keys["secret-key"].encode()
