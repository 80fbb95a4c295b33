"""Text helpers shared by indexing and search: CJK detection, token estimates, FTS segmentation."""
