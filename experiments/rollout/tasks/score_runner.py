#!/usr/bin/env python3
"""sandbench rollout scoring runner (stdlib only; copied into every scoring workspace).

Usage: python3 -I -B score_runner.py CONFIG      (cwd: the scoring workspace)
CONFIG is JSON: {"tests": [{"id": ID, "target": UNITTEST_NAME}, ...], "timeout_s": N}.

The tests run in one child process (so a test that exits the interpreter, crashes or hangs cannot
take the runner with it); the child appends one JSON line per finished test to a results file.
A test the child never finished is "crashed" (child died) or "timeout" (deadline). The runner
prints exactly one line on stdout:

    SANDBENCH_SCORE {"schema": "sandbench-score/1", "results": {ID: STATUS, ...}, "child": {...}}

STATUS: pass | fail | error | skip | missing | crashed | timeout. Only "pass" counts as passed
(a skipped test did not pass, as in SWE-bench's log parsers). Test output goes to stderr.
"""
import json
import os
import subprocess
import sys
import time
import unittest

SCHEMA = "sandbench-score/1"
PREFIX = "SANDBENCH_SCORE "
# what TestLoader returns for a name it could not import or find
FAILED_LOAD = getattr(unittest.loader, "_FailedTest", ())


def status_of(result, ran):
    if ran == 0:
        return "missing"
    if result.errors:
        return "error"
    if result.failures or result.unexpectedSuccesses:
        return "fail"
    if result.skipped and len(result.skipped) == ran:
        return "skip"
    if result.skipped:
        return "fail"
    return "pass"


def run_child(config, results_path):
    # The workspace goes first on sys.path only now: everything this runner needs is imported
    # already, so a candidate file named like a stdlib module cannot replace the runner's own.
    sys.path.insert(0, os.getcwd())
    loader = unittest.TestLoader()
    with open(results_path, "a", encoding="utf-8") as out:
        for test in config["tests"]:
            detail = ""
            try:
                suite = loader.loadTestsFromName(test["target"])
                result = unittest.TestResult()
                result.buffer = True
                suite.run(result)
                ran = result.testsRun
                status = status_of(result, ran)
                problems = result.errors + result.failures
                if problems:
                    detail = problems[0][1].strip().splitlines()[-1][:300]
                # the name did not load (its module failed to import, or no such test): one _FailedTest
                if any(isinstance(case, FAILED_LOAD) for case in _cases(suite)):
                    status = "missing"
            except Exception as error:  # the name itself is malformed
                status, detail = "missing", "%s: %s" % (type(error).__name__, error)
            out.write(json.dumps({"id": test["id"], "status": status, "detail": detail}) + "\n")
            out.flush()


def _cases(suite):
    for item in suite:
        if isinstance(item, unittest.TestSuite):
            yield from _cases(item)
        else:
            yield item


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--child":
        with open(sys.argv[2], encoding="utf-8") as handle:
            run_child(json.load(handle), sys.argv[3])
        return 0
    if len(sys.argv) != 2:
        sys.stderr.write("usage: score_runner.py CONFIG\n")
        return 2
    with open(sys.argv[1], encoding="utf-8") as handle:
        config = json.load(handle)
    timeout = float(config.get("timeout_s", 45))
    # beside the config, inside the workspace: the one place every scoring sandbox lets us write
    results_path = os.path.join(os.path.dirname(os.path.abspath(sys.argv[1])), "results.jsonl")
    open(results_path, "w").close()
    started = time.monotonic()
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    child_status = "exited"
    try:
        child = subprocess.run(
            [sys.executable, "-I", "-B", os.path.abspath(__file__), "--child", sys.argv[1], results_path],
            stdout=sys.stderr,
            stderr=sys.stderr,
            stdin=subprocess.DEVNULL,
            timeout=timeout,
            env=env,
        )
        returncode = child.returncode
    except subprocess.TimeoutExpired:
        child_status, returncode = "timeout", None
    results = {}
    details = {}
    with open(results_path, encoding="utf-8") as handle:
        for line in handle:
            try:
                entry = json.loads(line)
            except ValueError:
                continue  # torn last line of a child killed mid-write
            results[entry["id"]] = entry["status"]
            if entry.get("detail"):
                details[entry["id"]] = entry["detail"]
    os.unlink(results_path)
    unfinished = "timeout" if child_status == "timeout" else "crashed"
    for test in config["tests"]:
        results.setdefault(test["id"], unfinished)
    summary = {
        "schema": SCHEMA,
        "results": results,
        "details": details,
        "child": {"status": child_status, "returncode": returncode, "seconds": round(time.monotonic() - started, 3)},
    }
    sys.stdout.write(PREFIX + json.dumps(summary, sort_keys=True) + "\n")
    sys.stdout.flush()
    return 0 if all(status == "pass" for status in results.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
