"""Recall before the question: how memory reaches the model without a search (docs/recall.md).

* :mod:`.startup` what a new or reset session starts with (workspace files by audience, today's
  and yesterday's notes, budgets, entries of inactive projects left out)
* :mod:`.projects` the active project scope (an LRU of 4 keys; inferred from a git repository)
* :mod:`.triggers`, :mod:`.trigger` lane 1: trigger recall, no model call
* :mod:`.active`, :mod:`.active_pass`, :mod:`.intent_words`, :mod:`.across` lane 2: Active Memory
* :mod:`.lanes` the lanes of one conversation, wired into the runtime through ``Runtime.inject``
* :mod:`.switch` ``memory.enabled``, read again on every call
* :mod:`.report` what ``status`` and ``doctor`` say about it
"""
