import subprocess
import sys
import tempfile

sys.path.insert(0, "/app")
from wc import count_words  # noqa: E402

assert count_words("one two three") == 3, count_words("one two three")
assert count_words("") == 0
out = subprocess.run([sys.executable, "/app/wc.py", "/app/sample.txt"], capture_output=True, text=True, check=True)
assert out.stdout.strip() == "9", out.stdout
with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as handle:
    handle.write("a  b\tc\n")
assert count_words(open(handle.name).read()) == 3
print("all passed")
