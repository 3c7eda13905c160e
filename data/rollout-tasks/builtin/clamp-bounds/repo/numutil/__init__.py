from .clamp import clamp

__all__ = ["clamp"]
