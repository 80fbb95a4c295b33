"""The ``clawmem`` command: a thin shell over :class:`clawmem.Memory`."""
