"""The ``reverie`` command: a thin shell over :class:`reverie.Memory`."""
