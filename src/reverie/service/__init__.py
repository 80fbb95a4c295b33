"""Running ``reverie serve`` as a per-user service (systemd user unit, launchd agent).

:mod:`reverie.service.units` renders the files; ``reverie service`` (reverie.cli.service_cmd)
writes them and talks to the service manager. See docs/service.md.
"""
