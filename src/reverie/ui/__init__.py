"""``reverie ui``: a small local web view of one home's memory (Starlette + Jinja2, no build step).

* :mod:`.security` the token, the session cookie, CSRF and same-origin checks, the Host rule
* :mod:`.home` which agents of the home are served (the access rule) and their open memories
* :mod:`.mdview` memory files as Markdown with line numbers, annotations as badges, nothing raw
* :mod:`.explain` a search's ``--explain`` trace as bar rows for the templates
* :mod:`.live` the file watcher and background jobs (re-index, Dreaming preview) behind the live pages
* :mod:`.pages` / :mod:`.writes` the read pages and the writes about files (edit, append, re-index)
* :mod:`.dreaming_page` (with :mod:`.dreambars`) Dreaming: diary, history with diffs, candidates,
  preview, restore; :mod:`.forget_page` forget planned, confirmed and applied
* :mod:`.app` assembles them (:func:`build_app`)

See docs/ui.md for the security model and the pages.
"""

from .app import build_app

__all__ = ["build_app"]
