"""The asyncio client."""
from __future__ import annotations
import asyncio
import json
import time
from typing import Any, AsyncIterator, Dict, Optional, cast

from .client import PROTOCOL, MotiondError, Subscriptions, backoff, default_socket, request_line
from .shm import JSONObject


class AsyncClient:
    """asyncio twin of Client: `await AsyncClient.connect()`, `await call(...)`, `async for event in
    client.events()`. A reader task routes replies to their calls and queues events; with `reconnect`
    (the default) a daemon restart is survived: connect again with backoff, hello, subscribe again, and
    an event {"event": "reconnected"}. Calls in flight when the connection drops raise ConnectionError; a
    call made after the drop connects again itself (once: ConnectionError if the daemon is not back yet),
    and the events say "reconnected" all the same."""

    def __init__(self, socket: Optional[str] = None, reconnect: bool = True, name: str = "motiond_client.aio",
                 path: Optional[str] = None) -> None:
        self.path = socket or path or default_socket()
        self.reconnect = reconnect
        self.name = name
        self.subscriptions = Subscriptions()
        self.queue: asyncio.Queue[Optional[JSONObject]] = asyncio.Queue()
        self.replies: Dict[int, asyncio.Future[Any]] = {}
        self.next_id = 0
        self.writer: Optional[asyncio.StreamWriter] = None
        self.reader_task: Optional[asyncio.Future[None]] = None
        self.closed = False
        self.hello: Optional[JSONObject] = None
        # One reconnect at a time: a call and next_event can notice the same drop.
        self._reconnecting = asyncio.Lock()

    @classmethod
    async def connect(cls, socket: Optional[str] = None, reconnect: bool = True,
                      path: Optional[str] = None) -> AsyncClient:
        client = cls(socket or path, reconnect)
        await client._open()
        return client

    async def _open(self) -> None:
        try:
            reader, self.writer = await asyncio.open_unix_connection(self.path, limit=64 << 20)
        except OSError as error:
            raise ConnectionError(f"cannot connect to motiond at {self.path}: {error.strerror} "
                                  "(is it running? set MOTIOND_SOCKET)") from None
        self.next_id = 0
        self.reader_task = asyncio.ensure_future(self._read(reader))
        self.hello = await self._call("hello", protocol=PROTOCOL, client=self.name)

    async def _reopen(self) -> bool:
        """Connects again and makes the subscriptions again, unless another task already has (then False)."""
        async with self._reconnecting:
            if self.writer is not None:
                return False
            await self._open()
            try:
                await self._resubscribe()
            except (ConnectionError, OSError):
                writer, self.writer = self.writer, None
                if writer is not None:
                    writer.close()
                raise
            return True

    async def _read(self, reader: asyncio.StreamReader) -> None:
        try:
            while True:
                try:
                    line = await reader.readline()
                except (ConnectionError, OSError):
                    break  # a connection reset is its end, not an error of this task's
                if not line:
                    break
                message = json.loads(line)
                future = self.replies.pop(message.get("id"), None) if "id" in message else None
                if future is not None:
                    if not future.done():
                        future.set_result(message)
                else:
                    await self.queue.put(message)
        finally:
            for future in self.replies.values():
                if not future.done():
                    future.set_exception(ConnectionError("motiond closed the connection"))
            self.replies.clear()
            self.writer = None
            if not self.closed:
                await self.queue.put(None)  # the connection ended

    async def call(self, method: str, params: Optional[JSONObject] = None, idempotency_key: Optional[str] = None,
                   retry_seconds: float = 30, **keywords: Any) -> JSONObject:
        """The result of a request (`params` a dict, or keywords); raises MotiondError for an error reply.
        A subscription made here is made again after a reconnect (until it is unsubscribed). With
        `idempotency_key`, sent again with it until answered, as Client.call says."""
        params = dict(params or {}, **keywords)
        if idempotency_key is None:
            result: JSONObject = await self._call(method, **params)
        else:
            result = await self._call_keyed(method, params, idempotency_key, time.monotonic() + retry_seconds)
        self.subscriptions.note(method, params, result)
        return result

    async def _call_keyed(self, method: str, params: JSONObject, key: str, deadline: float) -> Any:
        delay = 0.1
        while True:
            try:
                return await self._call(method, _key=key, **params)
            except (ConnectionError, OSError):
                if not self.reconnect or self.closed or time.monotonic() >= deadline:
                    raise
            except MotiondError as error:
                if error.code not in ("server.shutting_down", "request.pending") or time.monotonic() >= deadline:
                    raise
            await asyncio.sleep(min(delay, max(0.0, deadline - time.monotonic())))
            delay = min(delay * 2, 2.0)

    async def _call(self, method: str, _key: Optional[str] = None, **params: Any) -> Any:
        if self.writer is None:
            if not self.reconnect or self.closed:
                raise ConnectionError("not connected to motiond")
            # A call found the connection gone: one attempt now (the reader's end-of-connection marker in
            # the queue then says "reconnected" instead of connecting again).
            await self._reopen()
        self.next_id += 1
        request = {"id": self.next_id, "method": method, "params": params}
        if _key is not None:
            request["key"] = _key
        line = request_line(request)  # refused before a reply is waited for
        future = asyncio.get_running_loop().create_future()
        request_id = self.next_id
        self.replies[request_id] = future
        try:
            cast(asyncio.StreamWriter, self.writer).write(line.encode("utf-8"))
            await cast(asyncio.StreamWriter, self.writer).drain()
        except (ConnectionError, OSError):
            # Its reply will never come: nobody is left to hear the reader fail it at the end (or to
            # retrieve the failure the reader gave it meanwhile).
            self.replies.pop(request_id, None)
            if future.done():
                future.exception()
            else:
                future.cancel()
            raise
        message = await future
        if "error" in message:
            raise MotiondError(message["error"].get("code"), message["error"].get("message"))
        return message["result"]

    async def subscribe(self, **params: Any) -> int:
        return cast(int, (await self.call("subscribe", **params))["sub"])

    async def next_event(self) -> JSONObject:
        while True:
            event = await self.queue.get()
            if event is not None:
                return event
            if not self.reconnect or self.closed:
                raise ConnectionError("motiond closed the connection")
            if self.writer is not None:
                return {"event": "reconnected"}  # a call connected again already
            for delay in backoff():
                await asyncio.sleep(delay)
                try:
                    await self._reopen()
                except (ConnectionError, OSError):
                    continue
                return {"event": "reconnected"}

    async def _resubscribe(self) -> None:
        """As Subscriptions.replay, awaiting each call: a subscription the new daemon refuses is dropped
        and a placeholder takes its id."""
        params = self.subscriptions.params
        for index in range(len(params)):
            if params[index] is not None:
                try:
                    await self._call("subscribe", **cast(JSONObject, params[index]))
                    continue
                except MotiondError:
                    params[index] = None
            placeholder = await self._call("subscribe", **Subscriptions.PLACEHOLDER)
            await self._call("unsubscribe", sub=placeholder["sub"])

    async def events(self) -> AsyncIterator[JSONObject]:
        while True:
            yield await self.next_event()

    async def close(self) -> None:
        self.closed = True
        if self.writer is not None:
            self.writer.close()
        if self.reader_task is not None:
            self.reader_task.cancel()

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(self, *exception: object) -> None:
        await self.close()
