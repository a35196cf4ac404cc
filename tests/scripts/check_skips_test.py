#!/usr/bin/python3
"""scripts/check-skips.py on a hand-written ctest JUnit report: every kind of skip is found, counted per reason,
and the run fails exactly when a reason is not on the allowed list."""
import os
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "scripts", "check-skips.py")

GTEST_SKIP = """Running main() from gtest_main.cc
[ RUN      ] Kernels.Vnni
../tests/fast/x_test.cpp:12: Skipped
ISA: needs avx512_vnni; this run is at avx2
[  SKIPPED ] Kernels.Vnni (0 ms)
[  PASSED  ] 0 tests.
[  SKIPPED ] 1 test, listed below:
[  SKIPPED ] Kernels.Vnni
"""
PYTEST = """..s.s
SKIPPED [2] tests/python/test_x.py:9: binding missing
3 passed, 2 skipped in 0.1s
"""
SCRIPT_SKIP = "digits_quantize: python3-torch missing: skipped\n"

REPORT = """<?xml version="1.0" encoding="UTF-8"?>
<testsuite name="t" tests="4" failures="0" disabled="0" skipped="2">
 <testcase name="isa_avx2.Kernels.Vnni" status="notrun"><skipped message="SKIP_REGULAR_EXPRESSION_MATCHED"/>
  <system-out>%s</system-out></testcase>
 <testcase name="python_api" status="run"><system-out>%s</system-out></testcase>
 <testcase name="quantize_digits_accuracy" status="notrun"><skipped message="SKIP_RETURN_CODE=77"/>
  <system-out>%s</system-out></testcase>
 <testcase name="ok" status="run"><system-out>[  PASSED  ] 1 test.</system-out></testcase>
</testsuite>
""" % (GTEST_SKIP, PYTEST, SCRIPT_SKIP)


def run(allowed):
    with tempfile.TemporaryDirectory() as d:
        report, allow = os.path.join(d, "r.xml"), os.path.join(d, "allowed.txt")
        open(report, "w").write(REPORT)
        open(allow, "w").write(allowed)
        p = subprocess.run([sys.executable, SCRIPT, report, "--allowed", allow], capture_output=True, text=True)
        return p.returncode, p.stdout + p.stderr


class CheckSkips(unittest.TestCase):
    def test_counts_each_kind_per_reason(self):
        code, out = run("^ISA: -- CPU\n")
        self.assertEqual(code, 1, out)
        self.assertIn("1  allowed  ISA: needs avx512_vnni; this run is at avx2", out)
        self.assertIn("2  NOT ALLOWED  binding missing", out)
        self.assertIn("1  NOT ALLOWED  digits_quantize: python3-torch missing: skipped", out)
        self.assertIn("4 skips, 3 not allowed", out)

    def test_passes_when_every_reason_is_allowed(self):
        code, out = run("# comment\n^ISA: -- CPU\nbinding missing -- why\npython3-torch missing -- why\n")
        self.assertEqual(code, 0, out)
        self.assertIn("4 skips, 0 not allowed", out)

    def test_a_pattern_needs_its_why(self):
        code, out = run("^ISA:\n")
        self.assertNotEqual(code, 0, out)
        self.assertIn("needs 'REGEX -- why'", out)


if __name__ == "__main__":
    unittest.main()
