"""In-sandbox runner of one /run_code request (services/run-code). Copied into each request's
workspace; the sandbox runs `python3 runner.py request.json`. It runs the request's steps in order
(a compiled language's compile step, then the program), each with its own timeout, stdin and the
request's memory limit, stops after a step that did not finish with exit 0 (SandboxFusion runs the
program only after a clean compile), and reports on stdout (the only channel every backend gives):

  RUN_CODE_START                       just before the first step starts (the host stamps sandbox start)
  RUN_CODE_RESULT {"steps": [{"name", "status", "return_code", "execution_time", "peak_rss_kib", "stdout_file", ...}]}

Each step's own stdout/stderr go to files in the workspace, which the host collects: large or binary
output never crosses the line protocol. Timeout = SIGKILL of the step's process group (what
SandboxFusion reports as TimeLimitExceeded); memory = RLIMIT_AS, as SandboxFusion's memory_limit_MB
(applied to the compiler too, as SandboxFusion does). A step is reaped with wait4, so its peak RSS is
its own process tree's (a compiler's cc1plus never counts as the program's memory). Python because
the task image always has python3 (the image cache checks it).
"""
import json
import os
import resource
import signal
import subprocess
import sys
import threading
import time


def limit_memory(mib):
    def apply():
        os.setsid()
        if mib > 0:
            resource.setrlimit(resource.RLIMIT_AS, (mib * 1024 * 1024, mib * 1024 * 1024))
    return apply


def run_step(step, timeout_s, memory_mib):
    out_path, err_path = step["name"] + ".stdout", step["name"] + ".stderr"
    timed_out = threading.Event()
    with open(step["stdin_file"], "rb") as stdin, open(out_path, "wb") as out, open(err_path, "wb") as err:
        started = time.monotonic()
        child = subprocess.Popen(step["argv"], stdin=stdin, stdout=out, stderr=err, preexec_fn=limit_memory(memory_mib))

        def kill_group():
            timed_out.set()
            try:
                os.killpg(child.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

        timer = threading.Timer(timeout_s, kill_group)
        timer.start()
        _, wait_status, usage = os.wait4(child.pid, 0)
        timer.cancel()
        elapsed = time.monotonic() - started
    code = os.waitstatus_to_exitcode(wait_status)
    child.returncode = code
    status = "TimeLimitExceeded" if timed_out.is_set() else "Finished"
    return {"name": step["name"], "status": status, "return_code": code, "execution_time": elapsed, "peak_rss_kib": usage.ru_maxrss, "stdout_file": out_path, "stderr_file": err_path}


def main():
    with open(sys.argv[1]) as handle:
        request = json.load(handle)
    print("RUN_CODE_START", flush=True)
    results = []
    for step in request["steps"]:
        result = run_step(step, step["timeout_s"], request["memory_mib"])
        results.append(result)
        if result["status"] != "Finished" or result["return_code"] != 0:
            break
    print("RUN_CODE_RESULT " + json.dumps({"steps": results}), flush=True)


main()
