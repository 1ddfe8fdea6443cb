#!/usr/bin/env python3
"""Checks that the public documentation speaks to an app developer (scripts/docs step 3).

usage: docs-citations.py SYMBOL_GRAPHS ROOT [--fix]

The doc comments of public declarations (the lines each symbol graph under SYMBOL_GRAPHS/<Module>/
names for ChappieSDK, ChappieSDKRuntime, ChappieSDKTesting and ChappieEmulator, so exactly what
DocC shows), the DocC articles (ROOT/Sources/*/*.docc) and ROOT/README.md must not cite the
project's internal documents (DESIGN, PROTOCOL, STYLE, SIWC.md, FAILURE-CASES, CHAPPIE-DOCS), an
issue number, or the machines and tools the project is built with. Internal comments may. Prints
one line per finding (path:line: text) and exits 1 when there is one.

With --fix, a citation in parentheses or after a comma is removed first (" (PROTOCOL §4.2)",
", SIWC.md §6"); what is left is printed, for rewriting by hand.
"""
import collections
import glob
import json
import pathlib
import re
import sys

MODULES = ["ChappieSDK", "ChappieSDKRuntime", "ChappieSDKTesting", "ChappieEmulator"]
DOCUMENTS = r"(?:DESIGN|PROTOCOL|STYLE|SIWC|FAILURE-CASES|CHAPPIE-DOCS)(?:\.md)?"
SECTION = r"(?:§\s?[\w.–\-]+|#?\d+[\w.]*)"
CITATION = rf"{DOCUMENTS}(?:\s*{SECTION}(?:(?:,|\s*and|\s*/|\s*\+)\s*(?:{DOCUMENTS}\s*)?{SECTION})*)?"

# What may not appear: a document with a section or number, a document file name, an issue
# number, the project's own machine paths and tools.
FINDINGS = re.compile(
    rf"\b{DOCUMENTS}\s*(?:§|#|\d)"
    r"|\b(?:DESIGN|PROTOCOL|STYLE|SIWC|FAILURE-CASES|CHAPPIE-DOCS|HELPERS)\.md\b"
    r"|\bFAILURE-CASES\b"
    r"|\b[Ii]ssues?\s+#?\d+"
    r"|(?<![\w&/])#\d+\b"
    r"|/work/|\bissues show\b"
)

# Removals that keep the sentence: the citation in parentheses, after a comma, or before a stop.
FIXES = [
    (re.compile(rf"\s*\(\s*{CITATION}(?:\s*[,;]\s*{CITATION})*\s*\)"), ""),
    (re.compile(rf"\s*[,;]\s*{CITATION}(?:\s*[,;]\s*{CITATION})*(?=\s*\))"), ""),
    (re.compile(rf"\(\s*{CITATION}(?:\s*[,;]\s*{CITATION})*\s*[,;:]\s*"), "("),
    (re.compile(rf"\s*[,;]\s*{CITATION}(?=[.;:]|\s*$)"), ""),
    (re.compile(rf"\s+{CITATION}\.(?=\s*$)"), "."),
]


def fixed(line):
    for pattern, replacement in FIXES:
        line = pattern.sub(replacement, line)
    return line


def public_comment_lines(graphs, root):
    """{source path: {0-based line numbers of public doc comments}} from the symbol graphs."""
    lines = collections.defaultdict(set)
    for module in MODULES:
        for graph in glob.glob(f"{graphs}/{module}/*.symbols.json"):
            for symbol in json.load(open(graph, encoding="utf-8"))["symbols"]:
                comment = symbol.get("docComment")
                if not comment or "uri" not in comment:
                    continue
                path = pathlib.Path(comment["uri"].removeprefix("file://"))
                if not path.is_relative_to(root):
                    continue
                for line in comment["lines"]:
                    if "range" in line:
                        lines[path].add(line["range"]["start"]["line"])
    return lines


def check(path, numbers, root, fix):
    """Findings in the given lines of `path` (all lines when `numbers` is None), fixing first."""
    text = path.read_text(encoding="utf-8").split("\n")
    findings = []
    for index in range(len(text)) if numbers is None else sorted(numbers):
        if index >= len(text) or not FINDINGS.search(text[index]):
            continue
        if fix:
            text[index] = fixed(text[index])
        if FINDINGS.search(text[index]):
            findings.append(f"{path.relative_to(root)}:{index + 1}: {text[index].strip()}")
    if fix:
        path.write_text("\n".join(text), encoding="utf-8")
    return findings


def main(graphs, root, fix):
    root = pathlib.Path(root).resolve()
    findings = []
    for path, numbers in sorted(public_comment_lines(graphs, root).items()):
        if path.exists():
            findings += check(path, numbers, root, fix)
    for path in sorted(root.glob("Sources/*/*.docc/**/*.md")) + [root / "README.md"]:
        findings += check(path, None, root, fix)
    for finding in findings:
        print(finding)
    if findings:
        print(f"docs: {len(findings)} citation(s) of internal documents, issues or tools in public documentation;"
              " say it in plain words for an app developer", file=sys.stderr)
    return 1 if findings else 0


if __name__ == "__main__":
    arguments = [argument for argument in sys.argv[1:] if argument != "--fix"]
    if len(arguments) != 2:
        sys.exit(__doc__)
    sys.exit(main(arguments[0], arguments[1], "--fix" in sys.argv))
