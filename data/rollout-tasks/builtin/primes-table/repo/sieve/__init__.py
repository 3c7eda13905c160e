from .check import is_prime
from .lookup import nth_prime

__all__ = ["is_prime", "nth_prime"]
