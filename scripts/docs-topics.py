#!/usr/bin/env python3
"""Checks that every public type page of the DocC catalogs is curated (scripts/docs step 2).

usage: docs-topics.py SYMBOL_GRAPHS SOURCES

For each public type (struct, class, actor, enum, protocol) of ChappieSDK, ChappieSDKRuntime and
ChappieSDKTesting, from SYMBOL_GRAPHS/<Module>/<Module>.symbols.json, the catalog must have
SOURCES/<Module>/<Module>.docc/Reference/<Type>.md (nested types as Outer-Inner.md) that starts
with the type's symbol link, has a `## Topics` section, and links every member of the type there,
each overload once (a protocol's default implementations share their requirement's link). Prints one line per problem and exits 1 when there is one.
"""
import collections
import json
import os
import re
import sys

MODULES = ["ChappieSDK", "ChappieSDKRuntime", "ChappieSDKTesting"]
TYPE_KINDS = {"swift.struct", "swift.class", "swift.actor", "swift.enum", "swift.protocol"}


def main(graphs, sources):
    problems = []
    for module in MODULES:
        graph = json.load(open(os.path.join(graphs, module, module + ".symbols.json")))
        types = {}
        members = collections.defaultdict(list)
        for symbol in graph["symbols"]:
            path = "/".join(symbol["pathComponents"])
            if symbol["kind"]["identifier"] in TYPE_KINDS:
                types[path] = symbol
            if len(symbol["pathComponents"]) > 1:
                members["/".join(symbol["pathComponents"][:-1])].append(symbol["pathComponents"][-1])
        for path in sorted(types):
            page = os.path.join(sources, module, module + ".docc", "Reference", path.replace("/", "-") + ".md")
            shown = os.path.relpath(page)
            if not os.path.exists(page):
                problems.append(f"{shown}: missing: the page that curates ``{module}/{path}``")
                continue
            text = open(page, encoding="utf-8").read()
            if not text.startswith(f"# ``{module}/{path}``"):
                problems.append(f"{shown}:1: must start with # ``{module}/{path}``")
            if "\n## Topics\n" not in text:
                problems.append(f"{shown}: no ## Topics section")
                continue
            topics = text.split("\n## Topics\n", 1)[1]
            # A protocol's default implementations share their requirement's page.
            protocol = types[path]["kind"]["identifier"] == "swift.protocol"
            for name, count in collections.Counter(members[path]).items():
                count = 1 if protocol else count
                linked = len(re.findall(r"``" + re.escape(name) + r"(?:``|-)", topics))
                if linked < count:
                    what = f"{count} overloads of " if count > 1 else ""
                    problems.append(f"{shown}: Topics do not list {what}``{name}``")
    for problem in problems:
        print(problem)
    if problems:
        print(f"docs-topics: {len(problems)} uncurated type page problem(s)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
