"""The derived search index: discover -> hash -> chunk -> embed (cache) -> publish."""
