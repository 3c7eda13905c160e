"""In-sandbox runner of one /run_code request (services/run-code). Copied into each request's
workspace; the sandbox runs `python3 runner.py request.json`. It runs the program with the request's
stdin, run timeout and memory limit, and reports on stdout (the only channel every backend gives):

  RUN_CODE_START                       just before the program starts (the host stamps sandbox start)
  RUN_CODE_RESULT {"status", "return_code", "execution_time", "peak_rss_kib", "stdout_file", ...}

The program's own stdout/stderr go to files in the workspace, which the host collects: large or
binary output never crosses the line protocol. Timeout = SIGKILL of the program's process group
(what SandboxFusion reports as TimeLimitExceeded); memory = RLIMIT_AS, as SandboxFusion's
memory_limit_MB. Python because the task image always has python3 (the image cache checks it) and
getrusage gives the program's peak RSS, which no shell builtin does.
"""
import json
import os
import resource
import signal
import subprocess
import sys
import time


def limit_memory(mib):
    def apply():
        os.setsid()
        if mib > 0:
            resource.setrlimit(resource.RLIMIT_AS, (mib * 1024 * 1024, mib * 1024 * 1024))
    return apply


def run_step(step, stdin_path, timeout_s, memory_mib):
    out_path, err_path = step["name"] + ".stdout", step["name"] + ".stderr"
    with open(stdin_path, "rb") as stdin, open(out_path, "wb") as out, open(err_path, "wb") as err:
        started = time.monotonic()
        child = subprocess.Popen(step["argv"], stdin=stdin, stdout=out, stderr=err, preexec_fn=limit_memory(memory_mib))
        try:
            code = child.wait(timeout=timeout_s)
            status = "Finished"
        except subprocess.TimeoutExpired:
            os.killpg(child.pid, signal.SIGKILL)
            code = child.wait()
            status = "TimeLimitExceeded"
        elapsed = time.monotonic() - started
    # ru_maxrss of the children waited for so far: the largest, which is this step's or an earlier one's.
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return {"name": step["name"], "status": status, "return_code": code, "execution_time": elapsed, "peak_rss_kib": peak, "stdout_file": out_path, "stderr_file": err_path}


def main():
    with open(sys.argv[1]) as handle:
        request = json.load(handle)
    print("RUN_CODE_START", flush=True)
    results = []
    for step in request["steps"]:
        result = run_step(step, request["stdin_file"], step["timeout_s"], request["memory_mib"])
        results.append(result)
        if result["status"] != "Finished" or result["return_code"] != 0:
            break
    print("RUN_CODE_RESULT " + json.dumps({"steps": results}), flush=True)


main()
