"""Release version helpers."""


def sort_versions(versions):
    """The versions, oldest first."""
    return sorted(versions)


def latest(versions):
    """The newest final release (a pre-release only when there is nothing else)."""
    return max(versions)
