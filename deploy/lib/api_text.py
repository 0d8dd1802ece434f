#!/usr/bin/python3
"""The public API of one Swift module as text: one declaration per line, sorted, for deploy/api-check.sh.

  api_text.py render DUMP.json            the text of a `swift-api-digester -dump-sdk` document
  api_text.py compare BASELINE CURRENT    what changed between two texts, breaking first; exit 0
                                          when they are the same, 1 when lines were only added,
                                          2 when a change breaks

A line is a declaration with everything a client's source depends on: kind, qualified name,
parameter labels and types (`= default` where there is a default argument), effects (async,
throws), result type, static / mutating / final, accessors ({ get } or { get set }), and its
generic signature when it adds to its type's. A type's conformances and a protocol's requirements
are lines of their own. Implicit (synthesized) members and @usableFromInline internals are left
out: the first follow from a conformance, the second are not source API. The module's own name
and `Swift.` are dropped from type names.

Breaking, when comparing: a line that is gone (a declaration removed, or changed: its new form is
then among the additions), a new enum case (a client's exhaustive switch stops compiling), a new
protocol requirement without a default implementation, a new associated type. Any other new line
is an addition.
"""

import json
import re
import subprocess
import sys

# Attributes a client's source sees; the rest (inlinable, transparent, storage…) do not change it.
SHOWN_ATTRIBUTES = {"Final": "final", "Nonisolated": "nonisolated", "Sendable": "@Sendable",
                    "DiscardableResult": "@discardableResult"}
# Conformances every type has or that another implies (Copyable, Escapable; SendableMetatype from
# Sendable): whether the compiler lists them changes between toolchains, not with the source.
IMPLIED_CONFORMANCES = {"Copyable", "Escapable", "SendableMetatype"}
KIND_WORDS = {"Struct": "struct", "Enum": "enum", "Class": "class", "Protocol": "protocol", "Actor": "actor"}


def demangled(names):
    """swift-demangle of every mangled name at once: {mangled: text}."""
    names = sorted(set(n for n in names if n))
    if not names:
        return {}
    out = subprocess.run(["swift-demangle"], input="\n".join(names) + "\n", capture_output=True, text=True, check=True)
    lines = out.stdout.splitlines()
    if len(lines) != len(names):
        raise SystemExit("api_text: swift-demangle answered %d lines for %d names" % (len(lines), len(names)))
    return dict(zip(names, lines))


def top_level(text):
    """(index, character) of each character of text outside any (), <> or [] (the > of -> is no bracket)."""
    depth = 0
    for i, c in enumerate(text):
        if c in "(<[":
            depth += 1
        elif c in ")]" or (c == ">" and text[i - 1:i] != "-"):
            depth -= 1
            if depth == 0:
                yield i, c
            continue
        if depth == 0:
            yield i, c


def effects(text):
    """' async', ' throws', ' async throws(E)'… of a demangled function: what follows its parameter
    list (the last group in parentheses before the result's arrow) and precedes the arrow."""
    closes, arrow = [], len(text)
    for i, c in top_level(text):
        if c == ")":
            closes.append(i)
        elif text.startswith(" -> ", i):
            arrow = i
            break
    closes = [i for i in closes if i < arrow]
    if not closes:
        return ""
    rest = text[closes[-1] + 1:arrow].strip()
    return " " + rest if rest else ""


def enum_payload(text):
    """The payload of an enum case from its constructor's type: '(T.Type) -> (Int, label: String) -> T'
    gives '(Int, label: String)', '(T.Type) -> T' nothing."""
    if text.startswith("<"):
        text = text[[i for i, c in top_level(text) if c == ">"][0] + 1:].lstrip()
    arrows = [i for i, c in top_level(text) if text.startswith(" -> ", i)]
    if not arrows:
        return ""
    rest = text[arrows[0] + 4:]
    if not rest.startswith("("):
        return ""
    end = [i for i, c in top_level(rest) if c == ")"][0]
    return rest[:end + 1]


class Renderer:
    def __init__(self, root):
        self.module = root["name"]
        own = re.escape(self.module)
        self.strip = re.compile(r"(?<![\w.])(?:%s|Swift)\." % own)
        names = []

        def collect(node):
            names.append(node.get("mangledName"))
            for child in node.get("children", []):
                collect(child)
        collect(root)
        self.demangled = demangled(names)
        self.lines = []
        for child in root.get("children", []):
            self.node(child, [], None)

    def type_name(self, node):
        return self.strip.sub("", node.get("printedName", "?"))

    def param_list(self, node, types):
        """name(label: Type = default, …) from a printedName like f(_:b:) and the parameter types."""
        printed = node["printedName"]
        base, _, labels = printed.partition("(")
        labels = [label for label in labels.rstrip(")").split(":") if label != ""]
        params = []
        for index, child in enumerate(types):
            label = labels[index] if index < len(labels) else "_"
            ownership = {"InOut": "inout ", "Owned": "__owned ", "Shared": "__shared "}.get(child.get("paramValueOwnership", ""), "")
            escaping = "".join("@%s " % a for a in child.get("typeAttributes", []) if a != "noescape")
            default = " = default" if child.get("hasDefaultArg") else ""
            params.append("%s: %s%s%s%s" % (label, ownership, escaping, self.type_name(child), default))
        return "%s(%s)" % (base, ", ".join(params))

    def modifiers(self, node, parent_sig):
        words = []
        if node.get("static"):
            words.append("static")
        if node.get("funcSelfKind") == "Mutating":
            words.append("mutating")
        if node.get("init_kind") == "Convenience":
            words.append("convenience")
        words += [SHOWN_ATTRIBUTES[a] for a in node.get("declAttributes", []) if a in SHOWN_ATTRIBUTES]
        if node.get("protocolReq"):
            words.append("requirement")
        suffix = ""
        signature = node.get("genericSig")
        if signature and signature != parent_sig:
            suffix = " " + self.strip.sub("", signature)
        return (" ".join(words) + " " if words else ""), suffix

    def add(self, path, text):
        self.lines.append((path, text))

    def node(self, node, path, parent_sig):
        kind, decl = node.get("kind"), node.get("declKind")
        if kind == "Import" or node.get("implicit") or node.get("isInternal"):
            return
        name = node.get("printedName", node.get("name", "?"))
        qualified = ".".join(path + [name.split("(")[0]]) if kind != "TypeDecl" else ".".join(path + [name])
        prefix, generics = self.modifiers(node, parent_sig)
        children = node.get("children", [])
        if kind == "TypeDecl":
            if node.get("isExternal"):
                # A type of another module this one extends: only what the extension adds.
                qualified = self.strip.sub("", "%s.%s" % (node.get("moduleName", "?"), name))
            else:
                raw = " : %s" % node["enumRawTypeName"] if node.get("enumRawTypeName") else ""
                self.add(qualified, "%s%s %s%s%s" % (prefix, KIND_WORDS.get(decl, decl.lower()), qualified, raw, generics))
                self.conformances(qualified, node)
            for child in children:
                self.node(child, qualified.split("."), node.get("genericSig"))
        elif kind in ("Function", "Constructor"):
            result, params = (children[0], children[1:]) if children else (None, [])
            text = self.param_list(node, params)
            effect = effects(self.demangled.get(node.get("mangledName"), ""))
            owner = ".".join(path)
            if kind == "Constructor":
                optional = "?" if result is not None and result.get("printedName", "").endswith("?") else ""
                line = "%sinit %s.%s%s%s" % (prefix, owner, text.replace("init(", "init%s(" % optional, 1), effect, generics)
            else:
                line = "%sfunc %s.%s%s -> %s%s" % (prefix, owner, text, effect, self.type_name(result) if result else "?", generics)
            self.add(qualified, line)
        elif kind == "Subscript":
            result, params = (children[0], children[1:]) if children else (None, [])
            self.add(qualified, "%ssubscript %s.%s -> %s%s%s" % (prefix, ".".join(path), self.param_list(node, params),
                                                                 self.type_name(result) if result else "?", self.accessors(node), generics))
        elif kind == "Var" and decl == "EnumElement":
            payload = enum_payload(self.type_name(children[0])) if children and children[0].get("kind") == "TypeFunc" else ""
            self.add(qualified, "case %s%s" % (qualified, payload))
        elif kind == "Var":
            word = "let" if node.get("isLet") else "var"
            self.add(qualified, "%s%s %s: %s%s" % (prefix, word, qualified, self.type_name(children[0]) if children else "?", self.accessors(node)))
        elif kind == "TypeAlias":
            self.add(qualified, "%stypealias %s = %s%s" % (prefix, qualified, self.type_name(children[0]) if children else "?", generics))
        elif kind == "AssociatedType":
            default = " = %s" % self.type_name(children[0]) if children else ""
            self.add(qualified, "associatedtype %s%s" % (qualified, default))
            self.conformances(qualified, node)
        else:
            self.add(qualified, "%s%s %s%s" % (prefix, (decl or kind).lower(), qualified, generics))

    def conformances(self, qualified, node):
        for conformance in node.get("conformances", []):
            name = self.strip.sub("", conformance["printedName"])
            if name not in IMPLIED_CONFORMANCES:
                self.add(qualified, "conformance %s : %s" % (qualified, name))

    @staticmethod
    def accessors(node):
        kinds = [a.get("accessorKind") for a in node.get("accessors", [])]
        if any(k in ("set", "modify", "_modify") for k in kinds):
            return " { get set }"
        return " { get }"


def render(path):
    with open(path) as f:
        root = json.load(f)["ABIRoot"]
    renderer = Renderer(root)
    lines = sorted(set(renderer.lines))
    print("// The public API of %s (deploy/api-check.sh --update writes this file; do not edit)." % renderer.module)
    for _, text in lines:
        print(text)


def read_lines(path):
    with open(path) as f:
        return [l.rstrip("\n") for l in f if l.strip() and not l.startswith("//")]


def breaking_addition(line, current):
    if line.startswith("case ") or line.startswith("associatedtype "):
        return True
    if " requirement " in " " + line:
        # A default implementation: the same declaration from the protocol's extension.
        return line.replace("requirement ", "", 1) not in current
    return False


def compare(baseline_path, current_path):
    baseline, current = read_lines(baseline_path), read_lines(current_path)
    old, new = set(baseline), set(current)
    gone = [l for l in baseline if l not in new]
    added = [l for l in current if l not in old]
    breaking_added = [l for l in added if breaking_addition(l, new)]
    plain_added = [l for l in added if l not in breaking_added]
    if gone or breaking_added:
        print("BREAKING: %d declaration(s) gone or changed, %d breaking addition(s)" % (len(gone), len(breaking_added)))
        for l in gone:
            print("  - " + l)
        for l in breaking_added:
            print("  + " + l + "    (breaking: a client's exhaustive switch or conformance stops compiling)")
    if plain_added:
        print("ADDED: %d declaration(s)" % len(plain_added))
        for l in plain_added:
            print("  + " + l)
    if not gone and not added:
        return 0
    return 2 if gone or breaking_added else 1


def main(argv):
    if len(argv) == 3 and argv[1] == "render":
        render(argv[2])
        return 0
    if len(argv) == 4 and argv[1] == "compare":
        return compare(argv[2], argv[3])
    print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
    return 64


if __name__ == "__main__":
    sys.exit(main(sys.argv))
