"""``reverie serve``: one warm process per home (docs/serve.md)."""
