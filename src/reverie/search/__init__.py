"""Hybrid search: keyword, path and vector legs, merge, re-scoring, MMR, selection, explain."""
