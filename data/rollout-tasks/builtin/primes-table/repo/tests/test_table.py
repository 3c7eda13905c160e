import hashlib
import unittest

from sieve import is_prime, nth_prime


class CheckTest(unittest.TestCase):
    def test_small(self):
        self.assertEqual([n for n in range(20) if is_prime(n)], [2, 3, 5, 7, 11, 13, 17, 19])

    def test_large(self):
        self.assertTrue(is_prime(224737))
        self.assertFalse(is_prime(224739))


class TableTest(unittest.TestCase):
    def test_first(self):
        self.assertEqual(nth_prime(1), 2)

    def test_count(self):
        from sieve.table import PRIMES

        self.assertEqual(len(PRIMES), 20000)

    def test_last(self):
        self.assertEqual(nth_prime(20000), 224737)

    def test_every_entry(self):
        from sieve.table import PRIMES

        digest = hashlib.sha256(",".join(map(str, PRIMES)).encode()).hexdigest()
        self.assertEqual(digest, "868b2133147b32d98bf8ace30c9b9a01999c5826258c759c8666d73ce978f353")


if __name__ == "__main__":
    unittest.main()
