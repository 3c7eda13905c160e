import subprocess
import sys

sys.path.insert(0, "/app/calc")
from calc.evaluate import evaluate  # noqa: E402
from calc.tokenize import tokenize  # noqa: E402

assert tokenize("12+3") == ["12", "+", "3"], tokenize("12+3")
assert evaluate("10 - 4 - 3") == 3, evaluate("10 - 4 - 3")
assert evaluate("2 * (30 - 5) - 8") == 42, evaluate("2 * (30 - 5) - 8")
assert evaluate("7") == 7
out = subprocess.run([sys.executable, "-m", "calc", "100 - 1 - 1"], cwd="/app/calc", capture_output=True, text=True, check=True)
assert out.stdout.strip() == "98", out.stdout
# The clone is a real repository with its upstream history.
log = subprocess.run(["git", "-c", "safe.directory=*", "-C", "/app/calc", "log", "--format=%s"], capture_output=True, text=True, check=True)
assert "calc: evaluator" in log.stdout, log.stdout
print("all passed")
