#!/usr/bin/env python3
"""Prints the summary and the failures of one `swift test` run (scripts/test, when not VERBOSE).

usage: test-summary.py LOG NAME STATUS

LOG is the run's full output (Swift Testing and XCTest, stdout and stderr together), NAME the
pass's name, STATUS its exit status. Prints, prefixed with NAME:
- the Swift Testing summary line ("Test run with N tests … passed/failed …") and the XCTest one
  when XCTest ran any test;
- every Swift Testing failure in full: each record that starts with ✘, with its continuation
  lines (multi-line expectations, ↳ comments);
- every Swift Testing warning (a record that starts with ⚠: an issue recorded with the warning
  severity, which does not fail the run), so a known flaky step that needed its retry shows;
- every XCTest failure line (`error:` lines and failed test cases);
- when the run failed but none of that explains it (a crash, a build or launch error), the last
  80 lines of the log.
"""
import re
import sys

# A line starting with one of these begins a new Swift Testing record; others continue the last.
RECORD_MARKERS = ("◇", "✔", "✘", "⚠", "━", "⊘", "􀟈", "􀢄", "􁁛", "􀄣")


def main(path, name, status):
    lines = open(path, encoding="utf-8", errors="replace").read().splitlines()
    summaries, failures, warnings = [], [], []
    collecting = None  # the list the current record's continuation lines go to
    for line in lines:
        stripped = line.lstrip()
        if stripped.startswith(RECORD_MARKERS):
            collecting = None
            if "Test run with" in stripped:
                summaries.append(stripped)
            elif stripped.startswith("✘"):
                collecting = failures
            elif stripped.startswith("⚠"):
                collecting = warnings
            if collecting is not None:
                collecting.append(line)
            continue
        if collecting is not None:
            collecting.append(line)
            continue
        match = re.search(r"Executed (\d+) tests?, with (\d+) failures?", line)
        if match and int(match.group(1)) > 0:
            summaries.append("XCTest: " + line.strip())
        elif re.search(r": error: -\[|Test Case '.*' failed|: error: .*XCT", line):
            failures.append(line)
    # XCTest prints "Executed" once per suite and once in total; keep the last (the total).
    xctest = [s for s in summaries if s.startswith("XCTest")]
    summaries = [s for s in summaries if not s.startswith("XCTest")] + xctest[-1:]
    for summary in summaries:
        print(f"{name}: {summary}")
    for line in warnings + failures:
        print(line)
    if status != 0 and not failures:
        print(f"{name}: exited with status {status}; the last lines of its output:")
        for line in lines[-80:]:
            print(line)
    if not summaries and status == 0:
        print(f"{name}: no tests ran")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]))
