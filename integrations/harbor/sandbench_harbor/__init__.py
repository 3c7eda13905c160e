"""sandbench as a Harbor environment provider: ``harbor run -e sandbench_harbor:SandbenchEnvironment``."""
from sandbench_harbor.environment import SandbenchEnvironment

__all__ = ["SandbenchEnvironment"]
