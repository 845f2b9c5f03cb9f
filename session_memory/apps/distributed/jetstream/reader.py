"""Reading a partition of the log: one pull request kept open (see :class:`NatsReader`)."""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING, Final

import nats
import nats.errors
import nats.js.errors
import orjson
from nats.aio.msg import Msg
from nats.aio.subscription import Subscription
from nats.js.api import Header

from session_memory.apps.distributed.jetstream.errors import NATS_ERRORS
from session_memory.apps.distributed.transport import Delivered, TransportError

if TYPE_CHECKING:
    from session_memory.apps.distributed.jetstream.nats_transport import NatsTransport

__all__ = ["REQUEST_SECONDS", "NatsReader"]

logger = logging.getLogger(__name__)

REQUEST_SECONDS: Final = 1.0
"""How long a reader's pull request stays open (see :class:`NatsReader`)."""
_REQUEST_GRACE_SECONDS: Final = 2.0
_REQUEST_OVER: Final = frozenset({"404", "408", "409"})
"""Statuses that end a pull request: nothing left, expired, or cut short (a leader
changed, too many waiting); a new request follows, except for a deleted consumer."""


class NatsReader:
    """A pull consumer with one pull request kept open, made again after any error.

    A request asks for up to as many messages as :meth:`fetch` may return, for up to
    :data:`REQUEST_SECONDS`: messages published while it is open arrive without another
    request, and :meth:`fetch` hands them out as soon as the log has no more for now. (The
    client's own ``fetch`` sends two requests per call when nothing is waiting, a probe and
    a lingering one: at a thousand single-event messages a second that was more work than
    folding them.) A request ends when it is filled or the server says it expired or cut
    it short; a request sent before the connection was made again is asked again; one that
    neither delivers nor ends in time was lost, and the fetch fails (the worker reads
    again from its last position, with a new consumer).
    """

    def __init__(self, transport: NatsTransport, subject: str, after: int) -> None:
        self._t = transport
        self._subject = subject
        self._next = after + 1
        self._consumer: str | None = None
        self._sub: Subscription | None = None
        self._inbox = ""
        self._requested = 0
        """Messages the open request may still deliver (0: no request is open)."""
        self._ends = 0.0
        """When the open request is over at the latest (its expiry, with a grace)."""
        self._connection = 0
        """The client's reconnect count when the open request was sent."""

    async def fetch(self, max_messages: int, timeout: float) -> list[Delivered]:
        try:
            out = await self._receive(max_messages, timeout)
        except NATS_ERRORS as exc:
            await self.close()
            raise TransportError(f"cannot read {self._subject}: {exc!r}") from exc
        # A recreated consumer starts at the first position not yet handed out.
        out = [d for d in out if d.seq >= self._next]
        if out:
            self._next = out[-1].seq + 1
        return out

    async def _receive(self, max_messages: int, timeout: float) -> list[Delivered]:
        """Up to ``max_messages`` messages, once one has come and the log has no more now.

        Each message says how many follow it in the log: while some do, they are on their
        way (the open request asks for them), so a backlog is handed out in full batches
        and a lone message at once.
        """
        sub = self._sub or await self._open()
        deadline = time.monotonic() + timeout
        out: list[Delivered] = []
        while len(out) < max_messages:
            if not sub.pending_msgs:
                if out and not out[-1].pending:
                    break  # the log has no more for now
                await self._keep_requested(max_messages)
            msg = await self._message(sub, deadline)
            if msg is None:
                break
            status = msg.headers.get(Header.STATUS) if msg.headers else None
            if status is None:
                out.append(_delivered(msg))
                # Never below 0: a message of a request forgotten at a reconnect may still come.
                self._requested = max(0, self._requested - 1)
            elif status in _REQUEST_OVER and not _consumer_deleted(msg):
                self._requested = 0
            else:
                raise TransportError(f"pull request refused: {status} {msg.headers}")
        return out

    async def _keep_requested(self, batch: int) -> None:
        """A request open on this connection (one sent before a reconnect is forgotten)."""
        if self._connection != self._t._nc.stats["reconnects"]:
            self._requested = 0
        if not self._requested:
            await self._request(batch)

    async def _message(self, sub: Subscription, deadline: float) -> Msg | None:
        """The next message (at once when one is here), None when none came by ``deadline``.

        A wait that found nothing past the end of the open request means that it was lost.
        """
        if sub.pending_msgs:
            return await sub.next_msg(timeout=None)
        wait = deadline - time.monotonic()
        if wait <= 0:
            return None
        try:
            return await sub.next_msg(timeout=wait)
        except nats.errors.TimeoutError:
            if self._requested and time.monotonic() > self._ends:
                raise TransportError("a pull request neither delivered nor ended") from None
            return None

    async def _open(self) -> Subscription:
        nc = self._t._nc
        self._consumer = await self._t.add_reader_consumer(self._subject, self._next)
        self._inbox = nc.new_inbox()
        self._sub = await nc.subscribe(self._inbox)
        self._requested = 0
        return self._sub

    async def _request(self, batch: int) -> None:
        body = orjson.dumps({"batch": batch, "expires": int(REQUEST_SECONDS * 1e9)})
        subject = f"$JS.API.CONSUMER.MSG.NEXT.{self._t.stream}.{self._consumer}"
        nc = self._t._nc
        self._connection = nc.stats["reconnects"]
        await nc.publish(subject, body, reply=self._inbox)
        self._requested = batch
        self._ends = time.monotonic() + REQUEST_SECONDS + _REQUEST_GRACE_SECONDS

    async def close(self) -> None:
        sub, self._sub = self._sub, None
        consumer, self._consumer = self._consumer, None
        self._requested = 0
        try:
            if sub is not None:
                await sub.unsubscribe()
            if consumer is not None:
                await self._t.delete_consumer(consumer)
        except NATS_ERRORS as exc:
            logger.debug("consumer of %s not deleted (it expires): %s", self._subject, exc)


def _consumer_deleted(msg: Msg) -> bool:
    return "deleted" in (msg.headers or {}).get(Header.DESCRIPTION, "").lower()


def _delivered(msg: Msg) -> Delivered:
    meta = msg.metadata
    return Delivered(
        seq=meta.sequence.stream,
        session=msg.subject.rsplit(".", 1)[-1],
        body=msg.data,
        pending=meta.num_pending,
    )
