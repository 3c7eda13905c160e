"""Hit and miss counters of a cache."""


class CacheStats:
    def __init__(self):
        self.hits = 0
        self.misses = 0

    def record_hit(self):
        self.hits += 1

    def record_miss(self):
        self.misses += 1

    @property
    def lookups(self):
        return self.hits + self.misses

    def hit_ratio(self):
        """Hits per lookup; 0.0 before the first lookup."""
        if self.lookups == 0:
            return 0.0
        return self.hits / self.misses
