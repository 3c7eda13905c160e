"""Drives a /run_code URL with verl 0.9.1's own SandboxFusion client code, as verl's reward path calls
it, and prints one JSON document of what verl concluded (`cpp` as the second argument: the C++ cases,
for a server whose image has g++). verl's package __init__ imports its training
stack (ray, torch), so the client package (verl/utils/reward_score/sandbox_fusion/) is loaded by file
path from the installed wheel, unchanged. Usage: python verl_client_driver.py URL [cpp]"""
import importlib.util
import json
import os
import sys
import threading

verl_root = os.path.dirname(importlib.util.find_spec("verl").origin)
package_dir = os.path.join(verl_root, "utils", "reward_score", "sandbox_fusion")
spec = importlib.util.spec_from_file_location("verl_sandbox_fusion", os.path.join(package_dir, "__init__.py"), submodule_search_locations=[package_dir])
sandbox_fusion = importlib.util.module_from_spec(spec)
sys.modules["verl_sandbox_fusion"] = sandbox_fusion
spec.loader.exec_module(sandbox_fusion)
utils = sys.modules["verl_sandbox_fusion.utils"]

url = sys.argv[1]
mode = sys.argv[2] if len(sys.argv) > 2 else "interpreted"
semaphore = threading.Semaphore(64)  # reward.sandbox_fusion.max_concurrent's default


def case(code, stdin, expected, timeout=10, language="python"):
    status, metadata = utils._process_single_case(0, stdin, expected, url, code, timeout, 1024, language, semaphore)
    return {"result": status, "status": metadata["status"], "api_status": metadata["api_status"], "run_status": metadata["run_status"], "exit_code": metadata["exit_code"], "stdout": metadata["stdout"], "api_request_error": metadata["api_request_error"]}


CPP_ECHO_SQUARE = "#include <iostream>\nint main() { long n; std::cin >> n; std::cout << n * n << std::endl; }\n"
if mode == "cpp":
    response, error = utils.call_sandbox_api(url, CPP_ECHO_SQUARE, "7", 10, 10, 1024, "cpp")
    print(json.dumps({
        "verl_file": utils.__file__,
        "call_sandbox_api": {"response": response, "error": error},
        "success": case(CPP_ECHO_SQUARE, "12", "144", language="cpp"),
        "wrong_answer": case(CPP_ECHO_SQUARE, "12", "145", language="cpp"),
        "compile_error": case("int main() { return undeclared; }\n", None, "x", language="cpp"),
        "runtime_error": case("int main() { return 3; }\n", None, "x", language="cpp"),
    }))
    sys.exit(0)

response, error = utils.call_sandbox_api(url, "print(6*7)", None, 10, 10, 1024, "python")
score, metadata = sandbox_fusion.compute_score(url, semaphore, 1024, "```python\nn = int(input())\nprint(n * n)\n```", {"inputs": ["2", "3", "4"], "outputs": ["4", "9", "15"]})
report = {
    "verl_file": utils.__file__,
    "call_sandbox_api": {"response": response, "error": error},
    "compute_score": {"score": score, "statuses": [entry["status"] for entry in metadata]},
    "success": case("print(input()[::-1])", "abc", "cba"),
    "wrong_answer": case("print(input())", "abc", "cba"),
    "timeout": case("while True: pass", None, "x", timeout=1),
    "runtime_error": case("raise SystemExit(3)", None, "x"),
    "exception": case("1/0", None, "x"),
    "no_network": case("import urllib.request\nurllib.request.urlopen('http://127.0.0.1:9', timeout=2)", None, "x"),
    "bash": case("read x; echo $((x * 2))", "21", "42", language="bash"),
    "unavailable_language": case("package main", None, "x", language="go"),
}
print(json.dumps(report))
