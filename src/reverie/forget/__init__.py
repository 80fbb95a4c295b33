"""Lineage forget (reference §17; docs/trust.md): remove everything derived from chosen sessions,
or one fact from every file and store, with a plan, a dry run, durable tombstones and a report."""

from .apply import forget
from .select import Selectors

__all__ = ["forget", "Selectors"]
