#!/bin/bash
# The oracle: compare parsed PEP 440 versions.
set -euo pipefail
cat > /app/releases.py <<'PY'
"""Release version helpers."""
from packaging.version import Version


def sort_versions(versions):
    """The versions, oldest first."""
    return sorted(versions, key=Version)


def latest(versions):
    """The newest final release (a pre-release only when there is nothing else)."""
    finals = [v for v in versions if not Version(v).is_prerelease]
    return max(finals or versions, key=Version)
PY
