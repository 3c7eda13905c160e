#!/usr/bin/env python3
"""sandbench's bridge to swebench 5.0.2's own grading rules (issue 34), run on the host in the venv
scripts/build-swebench-grader-venv.sh builds (swebench --no-deps + unidiff).

    python swebench_grade.py script  < INSTANCE_JSON   -> the eval script, as make_test_spec builds it
    python swebench_grade.py grade   < REQUEST_JSON    -> one JSON line: the grade

INSTANCE_JSON is a SWE-bench 5 row (instance_id, image, repo, version, FAIL_TO_PASS, PASS_TO_PASS,
log_parser, eval_type, eval_script). REQUEST_JSON is {"instance": INSTANCE, "model_patch": str|null,
"log": the eval script's stdout+stderr}. The grade line:

    {"schema": "sandbench-swebench-grade/1", "resolved": bool, "resolution": "FULL"|"PARTIAL"|"NO",
     "parser": NAME, "found": bool, "tests_status": {...}, "infra_failure": bool, ...}

Both TestSpec and the report come from swebench itself: make_test_spec (swebench/harness/utils.py)
and get_eval_report / get_resolution_status (swebench/harness/grading.py). The import is narrow:
swebench/harness/__init__.py (docker, modal, datasets) is skipped by pre-registering the package, and
utils.py's module-level imports of datasets, dotenv and tqdm (used by its dataset helpers, not by
make_test_spec) get inert stand-ins, so grading imports in ~50 ms instead of 5 s.
"""
import json
import pathlib
import sys
import tempfile
import time
import types

SCHEMA = "sandbench-swebench-grade/1"


def _unavailable(module, name):
    def call(*_args, **_kwargs):
        raise RuntimeError(f"{module}.{name} is not installed in the grader venv (sandbench grades only)")

    return call


def narrow_import():
    import swebench

    harness = types.ModuleType("swebench.harness")
    harness.__path__ = [str(pathlib.Path(swebench.__file__).parent / "harness")]
    sys.modules["swebench.harness"] = harness
    stand_ins = {"datasets": ["Dataset", "load_dataset", "load_from_disk"], "dotenv": [], "tqdm": ["tqdm"]}
    for module, names in stand_ins.items():
        try:
            __import__(module)
            continue
        except ImportError:
            pass
        stand_in = types.ModuleType(module)
        for name in names:
            setattr(stand_in, name, _unavailable(module, name))
        if module == "dotenv":
            # utils.py calls load_dotenv() at import: reading a .env file is not grading's business
            stand_in.load_dotenv = lambda *_args, **_kwargs: False
        sys.modules[module] = stand_in
    from swebench.harness.utils import make_test_spec
    from swebench.harness.grading import get_eval_report, get_resolution_status

    return swebench, make_test_spec, get_eval_report, get_resolution_status


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else ""
    if mode not in ("script", "grade"):
        print("usage: swebench_grade.py script|grade < JSON", file=sys.stderr)
        return 2
    started = time.perf_counter()
    swebench, make_test_spec, get_eval_report, get_resolution_status = narrow_import()
    import_ms = (time.perf_counter() - started) * 1000
    request = json.load(sys.stdin)
    if mode == "script":
        sys.stdout.write(make_test_spec(request).eval_script)
        return 0
    instance = request["instance"]
    spec = make_test_spec(instance)
    with tempfile.NamedTemporaryFile("w", suffix=".log", encoding="utf-8") as log:
        log.write(request["log"])
        log.flush()
        graded = time.perf_counter()
        report = get_eval_report(spec, {"instance_id": spec.instance_id, "model_patch": request.get("model_patch")}, log.name, include_tests_status=True)
        grade_ms = (time.perf_counter() - graded) * 1000
    entry = report[spec.instance_id]
    status = entry.get("tests_status")
    resolution = get_resolution_status(status) if status else "NO"
    print(json.dumps({
        "schema": SCHEMA,
        "swebench_version": getattr(swebench, "__version__", "unknown"),
        "parser": spec.log_parser,
        "resolved": bool(entry["resolved"]),
        "resolution": resolution,
        "found": bool(entry.get("patch_successfully_applied")),
        "tests_status": status,
        "infra_failure": bool(entry.get("infra_failure")),
        "infra_failure_reason": entry.get("infra_failure_reason"),
        "import_ms": round(import_ms, 3),
        "grade_ms": round(grade_ms, 3),
    }))
    return 0


if __name__ == "__main__":
    sys.exit(main())
