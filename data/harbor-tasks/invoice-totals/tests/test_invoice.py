import subprocess
import sys
import tempfile

sys.path.insert(0, "/app")
from invoice.lines import line_cents  # noqa: E402
from invoice.totals import total_cents  # noqa: E402

assert line_cents("2.499", 4) == 1000, line_cents("2.499", 4)
assert line_cents("0.125", 8) == 100, line_cents("0.125", 8)
assert line_cents("0.35", 12) == 420
with tempfile.NamedTemporaryFile("w", suffix=".csv", delete=False) as handle:
    handle.write("item,unit_price,quantity\nbolt,0.015,3\n")
assert total_cents(handle.name) == 5, total_cents(handle.name)
out = subprocess.run([sys.executable, "-m", "invoice", "/app/orders.csv"], cwd="/app", capture_output=True, text=True, check=True)
assert out.stdout.strip() == "1520", out.stdout
print("all passed")
