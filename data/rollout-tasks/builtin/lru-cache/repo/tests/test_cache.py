import unittest

import cachekit
from cachekit import LRUCache


class EvictionTest(unittest.TestCase):
    def test_evicts_least_recent(self):
        cache = LRUCache(2)
        cache.put("a", 1)
        cache.put("b", 2)
        cache.put("c", 3)
        self.assertNotIn("a", cache)
        self.assertEqual(cache.get("c"), 3)
        self.assertEqual(len(cache), 2)

    def test_get_refreshes_recency(self):
        cache = LRUCache(2)
        cache.put("a", 1)
        cache.put("b", 2)
        cache.get("a")
        cache.put("c", 3)
        self.assertIn("a", cache)
        self.assertNotIn("b", cache)

    def test_update_existing(self):
        cache = LRUCache(2)
        cache.put("a", 1)
        cache.put("a", 5)
        self.assertEqual(cache.get("a"), 5)
        self.assertEqual(len(cache), 1)

    def test_capacity_validation(self):
        with self.assertRaises(ValueError):
            LRUCache(0)


class StatsTest(unittest.TestCase):
    def test_hit_ratio(self):
        cache = LRUCache(4)
        cache.put("a", 1)
        cache.get("a")
        cache.get("a")
        cache.get("a")
        cache.get("missing")
        self.assertAlmostEqual(cache.stats.hit_ratio(), 0.75)

    def test_zero_lookups(self):
        self.assertEqual(LRUCache(1).stats.hit_ratio(), 0.0)

    def test_exports_stats(self):
        self.assertIn("CacheStats", cachekit.__all__)
        self.assertIsInstance(LRUCache(1).stats, cachekit.CacheStats)


if __name__ == "__main__":
    unittest.main()
