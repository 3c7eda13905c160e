from .lru import LRUCache

__all__ = ["LRUCache"]
