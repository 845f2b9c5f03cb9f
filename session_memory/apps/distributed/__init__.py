"""The fold beyond one machine: events on a log, workers that share sessions, memories in KV.

Optional (``pip install 'session-memory[nats]'``). Only :mod:`.jetstream` imports the NATS
client; everything else talks to :class:`~.transport.Transport`. See ``docs/distributed.md``.
"""
