"""The n-th prime from the generated table."""


def nth_prime(n):
    from .table import PRIMES

    if not 1 <= n <= len(PRIMES):
        raise IndexError("the table holds primes 1 to %d" % len(PRIMES))
    return PRIMES[n - 1]
