"""The background service: keep a memory next to every live transcript.

:class:`MemoryService` tails transcripts (files, or directories watched recursively for
``*.jsonl``), folds each new complete line into that transcript's deriver, and keeps
``<out>/<session>.memory.json`` and ``<out>/<session>.memory.md`` current. A compressed
transcript (``*.jsonl.zst``, a Codex rollout idle for a week) is immutable: it is read whole,
once, and again only when another file takes its place. What it promises, killed at any
instant or fed hostile files, is in ``docs/service-guarantees.md``.

The package, one module per part:

- :mod:`.loop`: :class:`MemoryService`; catch up, then notifications and the slow timer's
  ticks until the stop event;
- :mod:`.update`: the path of one change of one transcript: visit, advance, fold, publish,
  commit;
- :mod:`.mode`: the one value that says what the service is doing;
- :mod:`.catch_up`: the start: discovery, progress, adoption of the workers' results;
- :mod:`.farm`: the catch-up's worker processes;
- :mod:`.residency`: which transcripts are in memory, which only on disk, and eviction;
- :mod:`.restore`: a transcript back from its state file, checked like any input;
- :mod:`.transcript`: one transcript as held, one line folded, its memory so far;
- :mod:`.writers`: the writer threads and the durability of a batch of writes;
- :mod:`.names`: the output name of each transcript;
- :mod:`.options`: what a service is asked to do, checked;
- :mod:`.logs`: the service's logger, skipped lines, failing writes.
"""

from session_memory.apps.service.catch_up import LISTED_MAX, PROGRESS_SECONDS
from session_memory.apps.service.loop import MemoryService, ServiceSummary
from session_memory.apps.service.mode import Mode
from session_memory.apps.service.options import DEFAULT_STATE_DIRNAME, Clock, output_paths
from session_memory.apps.service.update import BURST_STATE_SECONDS
from session_memory.apps.service.writers import SYNC_ONCE_MIN

__all__ = [
    "BURST_STATE_SECONDS",
    "DEFAULT_STATE_DIRNAME",
    "LISTED_MAX",
    "PROGRESS_SECONDS",
    "SYNC_ONCE_MIN",
    "Clock",
    "MemoryService",
    "Mode",
    "ServiceSummary",
    "output_paths",
]
