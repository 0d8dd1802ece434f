"""The mutant list's reader and the file surgery of deploy/mutants.sh (python3, standard library).

    mutate.py list [ID...]          id, file:line, filter, equivalence, description (tab-separated)
    mutate.py check [ID...]         every original found exactly once (exit 1 otherwise)
    mutate.py apply ID BACKUP_DIR   saves the file under BACKUP_DIR, writes the mutant
    mutate.py restore BACKUP_DIR    writes every saved file back, byte for byte, and checks it
    mutate.py field ID NAME         one field of one mutant (tests, file, what, equivalent)
    mutate.py failures LOG          the tests a test log reports failed, one line, or nothing

The list (deploy/mutants/mutants.txt) is a sequence of blocks separated by blank lines, each a
`key: value` per line (see the header of that file). In `original` and `replacement`, `\\n` is a
newline; nothing else is escaped.
"""

import hashlib
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
LIST = os.path.join(HERE, "mutants.txt")
FIELDS = {"id", "file", "original", "replacement", "tests", "what", "equivalent"}
REQUIRED = FIELDS - {"equivalent"}


def fail(message):
    print(f"mutate.py: {message}", file=sys.stderr)
    sys.exit(2)


def load():
    """Every mutant of the list, in order, each a dict of its fields."""
    mutants, block, seen = [], {}, set()

    def close(line_number):
        if not block:
            return
        missing = REQUIRED - block.keys()
        if missing:
            fail(f"{LIST}:{line_number}: mutant {block.get('id', '?')} lacks {', '.join(sorted(missing))}")
        if block["id"] in seen:
            fail(f"{LIST}:{line_number}: mutant id {block['id']} used twice")
        seen.add(block["id"])
        mutants.append(dict(block))
        block.clear()

    with open(LIST, encoding="utf-8") as handle:
        for number, raw in enumerate(handle, 1):
            line = raw.rstrip("\n")
            if line.startswith("#"):
                continue
            if not line.strip():
                close(number)
                continue
            key, sep, value = line.partition(":")
            if not sep or key not in FIELDS:
                fail(f"{LIST}:{number}: expected `key: value` with a key among {', '.join(sorted(FIELDS))}")
            if key in block:
                fail(f"{LIST}:{number}: {key} given twice")
            value = value[1:] if value.startswith(" ") else value
            if key in ("original", "replacement"):
                value = value.replace("\\n", "\n")
            block[key] = value
        close(number + 1)
    return mutants


def select(mutants, ids):
    if not ids:
        return mutants
    by_id = {m["id"]: m for m in mutants}
    unknown = [i for i in ids if i not in by_id]
    if unknown:
        fail(f"no mutant {', '.join(unknown)} in {LIST}")
    return [by_id[i] for i in ids]


def locate(mutant):
    """The file's text and the offset of the one match of the original; exits 1 if not one."""
    path = os.path.join(ROOT, mutant["file"])
    if not os.path.isfile(path):
        print(f"{mutant['id']}: {mutant['file']} does not exist", file=sys.stderr)
        sys.exit(1)
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    original = mutant["original"]
    count = text.count(original)
    if count != 1:
        what = "not found" if count == 0 else f"found {count} times (ambiguous)"
        print(f"{mutant['id']}: the original is {what} in {mutant['file']}: {original!r}", file=sys.stderr)
        sys.exit(1)
    if original == mutant["replacement"]:
        print(f"{mutant['id']}: the replacement is the original", file=sys.stderr)
        sys.exit(1)
    return path, text, text.index(original)


def command_list(ids):
    for mutant in select(load(), ids):
        _, text, offset = locate(mutant)
        line = text.count("\n", 0, offset) + 1
        accepted = "equivalent" if "equivalent" in mutant else "-"
        print("\t".join([mutant["id"], f"{mutant['file']}:{line}", mutant["tests"], accepted, mutant["what"]]))


def command_check(ids):
    for mutant in select(load(), ids):
        locate(mutant)


def command_apply(mutant_id, backup):
    mutant = select(load(), [mutant_id])[0]
    path, text, offset = locate(mutant)
    os.makedirs(backup, exist_ok=True)
    data = text.encode("utf-8")
    with open(os.path.join(backup, "original"), "wb") as handle:
        handle.write(data)
    # The record is written last: restore trusts a backup only once it is whole.
    with open(os.path.join(backup, "record.json"), "w", encoding="utf-8") as handle:
        json.dump({"path": path, "sha256": hashlib.sha256(data).hexdigest()}, handle)
    mutated = text[:offset] + mutant["replacement"] + text[offset + len(mutant["original"]):]
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(mutated)


def command_restore(backup):
    record_path = os.path.join(backup, "record.json")
    if not os.path.exists(record_path):
        return
    with open(record_path, encoding="utf-8") as handle:
        record = json.load(handle)
    with open(os.path.join(backup, "original"), "rb") as handle:
        data = handle.read()
    if hashlib.sha256(data).hexdigest() != record["sha256"]:
        fail(f"the backup of {record['path']} in {backup} is damaged; restore it with git checkout")
    with open(record["path"], "wb") as handle:
        handle.write(data)
    with open(record["path"], "rb") as handle:
        if hashlib.sha256(handle.read()).hexdigest() != record["sha256"]:
            fail(f"{record['path']} did not restore; restore it with git checkout")
    os.remove(record_path)
    os.remove(os.path.join(backup, "original"))


# Swift Testing: "✘ Test name() recorded an issue at File.swift:12:5: …", "✘ Test name(x:) recorded
# an issue with 1 argument x → 5 at File.swift:34:21: …", "✘ Test name() failed after …";
# XCTest: "Test Case 'Suite.test' failed". A crash ends the log with neither.
ISSUE = re.compile(r"✘ Test (\S+?\))[^\n]*? recorded an issue[^\n]*? at ([\w+.-]+\.swift:\d+)")
FAILED = [
    re.compile(r"✘ Test (\S+?\))[^\n]*? (?:recorded an issue|failed)"),
    re.compile(r"Test Case '(?:-\[)?([\w.]+ ?\w*)\]?' failed"),
]


def command_failures(log_path):
    """The failed tests, the first two with where they first failed, and how many more."""
    with open(log_path, encoding="utf-8", errors="replace") as handle:
        text = handle.read()
    where, names = {}, []
    for name, location in ISSUE.findall(text):
        where.setdefault(name, location)
    for pattern in FAILED:
        for name in pattern.findall(text):
            if name not in names:
                names.append(name)
    shown = [f"{name.removesuffix('()')} ({where[name]})" if name in where else name for name in names[:2]]
    if len(names) > 2:
        shown.append(f"+{len(names) - 2} more")
    print(", ".join(shown))


def main(argv):
    if not argv:
        fail("usage: mutate.py list|check|apply|restore|field|failures …")
    command, args = argv[0], argv[1:]
    if command == "list":
        command_list(args)
    elif command == "check":
        command_check(args)
    elif command == "apply" and len(args) == 2:
        command_apply(*args)
    elif command == "restore" and len(args) == 1:
        command_restore(args[0])
    elif command == "field" and len(args) == 2:
        print(select(load(), [args[0]])[0].get(args[1], ""))
    elif command == "failures" and len(args) == 1:
        command_failures(args[0])
    else:
        fail(f"bad arguments: {' '.join(argv)}")


if __name__ == "__main__":
    main(sys.argv[1:])
