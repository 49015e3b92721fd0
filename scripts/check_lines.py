# SPDX-License-Identifier: GPL-2.0
"""Run a host test module's unittest cases and print one line per case in
the form scripts/check counts: "PASS: NAME case", "SKIP: NAME case: why"
or "FAIL: NAME case: why"."""
import os
import sys
import traceback
import unittest


def _result_class(name):
    class Lines(unittest.TextTestResult):
        def addSuccess(self, test):
            print("PASS: %s %s" % (name, test._testMethodName), flush=True)

        def addSkip(self, test, reason):
            print("SKIP: %s %s: %s" % (name, test._testMethodName, reason), flush=True)

        def addFailure(self, test, err):
            why = "".join(traceback.format_exception_only(err[0], err[1])).strip()
            print("FAIL: %s %s: %s" % (name, test._testMethodName, why.replace("\n", " ")),
                  flush=True)
            super().addFailure(test, err)

        addError = addFailure

    return Lines


def run(name, module_name):
    """Run module_name's cases; exits 0 when all passed (or were skipped)."""
    suite = unittest.defaultTestLoader.loadTestsFromModule(sys.modules[module_name])
    with open(os.devnull, "w") as null:
        result = unittest.TextTestRunner(stream=null, resultclass=_result_class(name)).run(suite)
    sys.exit(0 if result.wasSuccessful() else 1)
