#!/usr/bin/python3
"""Counts the skipped tests of a ctest run and fails on a skip whose reason tests/allowed_skips.txt does not allow.

    check-skips.py CTEST_JUNIT.xml [--allowed tests/allowed_skips.txt]

Reads ctest's JUnit report (`ctest --output-junit FILE --test-output-size-passed N`, as scripts/test.sh runs
it). A skip is
  - a GoogleTest skip in a test's output (`FILE:LINE: Skipped`, the reason, `[  SKIPPED ] Name`),
  - a pytest skip reported with -rs (`SKIPPED [COUNT] FILE:LINE: reason`),
  - a ctest test not run for SKIP_RETURN_CODE / SKIP_REGULAR_EXPRESSION: its reason is the output line that
    says "skip" (the scripts' convention, e.g. "digits_quantize: python3-torch missing: skipped"), else the
    last line of its output.
Prints the count of skips per reason; exit 1 when any reason is not allowed (or the report cannot be read).
"""
import argparse
import collections
import os
import re
import sys
import xml.etree.ElementTree as ET

GTEST_SKIPPED_AT = re.compile(r"^\S+:\d+: Skipped$")
GTEST_SKIPPED = re.compile(r"^\[  SKIPPED \] (\S+) \(\d+ ms\)$")  # the result line, not the summary
PYTEST_SKIPPED = re.compile(r"^SKIPPED \[(\d+)\] [^:]+:\d+: (.*)$")


def load_allowed(path):
    """Lines 'REGEX -- why'; '#' comments and blank lines ignored. A pattern without its why is an error."""
    allowed = []
    for n, line in enumerate(open(path, encoding="utf-8"), 1):
        line = line.rstrip("\n")
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        pattern, sep, why = line.partition(" -- ")
        if not sep or not why.strip():
            raise SystemExit("%s:%d: needs 'REGEX -- why'" % (path, n))
        allowed.append((re.compile(pattern.strip()), why.strip()))
    return allowed


def gtest_skips(lines):
    """(test, reason) for every GoogleTest skip in the output."""
    out, reason = [], None
    for line in lines:
        if GTEST_SKIPPED_AT.match(line):
            reason = []
        elif GTEST_SKIPPED.match(line):
            text = " ".join(dict.fromkeys(r.strip() for r in (reason or []) if r.strip()))
            out.append((GTEST_SKIPPED.match(line).group(1), text or "(no reason given)"))
            reason = None
        elif reason is not None:
            reason.append(line)
    return out


def pytest_skips(lines):
    out = []
    for line in lines:
        m = PYTEST_SKIPPED.match(line)
        if m:
            out += [m.group(2).strip()] * int(m.group(1))
    return out


def script_skip_reason(lines):
    said = [l.strip() for l in lines if re.search(r"skip", l, re.IGNORECASE) and l.strip()]
    if said:
        return said[-1]
    rest = [l.strip() for l in lines if l.strip()]
    return rest[-1] if rest else "(no output)"


def collect(junit_path):
    """[(ctest test name, reason)] for every skip of the run."""
    skips = []
    for case in ET.parse(junit_path).getroot().iter("testcase"):
        name = case.get("name")
        out = case.findtext("system-out") or ""
        lines = out.splitlines()
        found = [(name, r) for _, r in gtest_skips(lines)] + [(name, r) for r in pytest_skips(lines)]
        if not found and case.find("skipped") is not None:
            found = [(name, script_skip_reason(lines))]
        skips += found
    return skips


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser()
    ap.add_argument("junit")
    ap.add_argument("--allowed", default=os.path.join(root, "tests", "allowed_skips.txt"))
    a = ap.parse_args()
    allowed = load_allowed(a.allowed)
    try:
        skips = collect(a.junit)
    except (OSError, ET.ParseError) as e:
        print("check-skips: cannot read the ctest report %s: %s" % (a.junit, e), file=sys.stderr)
        return 1
    per_reason = collections.Counter(r for _, r in skips)
    first_test = {}
    for name, r in skips:
        first_test.setdefault(r, name)
    bad = 0
    for reason, count in sorted(per_reason.items(), key=lambda kv: (-kv[1], kv[0])):
        ok = any(p.search(reason) for p, _ in allowed)
        bad += 0 if ok else count
        print("check-skips: %5d  %s  %s (e.g. %s)" % (count, "allowed" if ok else "NOT ALLOWED", reason,
                                                     first_test[reason]))
    print("check-skips: %d skips, %d not allowed by %s" % (len(skips), bad, os.path.relpath(a.allowed, root)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
