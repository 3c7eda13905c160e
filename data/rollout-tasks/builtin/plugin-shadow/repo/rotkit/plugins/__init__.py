"""Codec plugins (one module each)."""
