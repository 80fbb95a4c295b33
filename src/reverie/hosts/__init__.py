"""Hosts: the agent programs people run, each reaching reverie's lanes through the sidecar
(reverie.sidecar) in its own terms: hook commands, sessions, stores, plugins (docs/hosts/)."""
