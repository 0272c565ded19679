"""The blocking client."""
from __future__ import annotations
import array
import json
import os
import socket
import time
from typing import Any, Callable, Dict, Iterator, List, Mapping, Optional, Tuple, Type, cast

from .shm import FrameReader, JSONObject

PROTOCOL = 1


class MotiondError(Exception):
    """An error motiond answered: `code` (e.g. "plan.invalid") and `message`."""
    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


def request_line(request: JSONObject) -> str:
    """One request as the line motiond reads: strict JSON (no NaN or Infinity) that UTF-8 can carry (no
    lone surrogate). Anything else is refused here with `protocol.parse`, as the daemon would refuse the
    line: its answer to a line it cannot read carries no id, so no call could be matched with it."""
    try:
        line = json.dumps(request, separators=(",", ":"), allow_nan=False, ensure_ascii=False)
        line.encode("utf-8")
    except (ValueError, TypeError) as error:  # UnicodeEncodeError is a ValueError
        raise MotiondError("protocol.parse", f"{request.get('method')}: the request is not JSON motiond can read ({error})") from None
    return line + "\n"


def default_socket(environment: Optional[Mapping[str, str]] = None) -> str:
    """docs/protocol.md: $MOTIOND_SOCKET, $RUNTIME_DIRECTORY (its first entry), $XDG_RUNTIME_DIR, then /run/motiond."""
    env = os.environ if environment is None else environment
    if env.get("MOTIOND_SOCKET"):
        return env["MOTIOND_SOCKET"]
    if env.get("RUNTIME_DIRECTORY"):
        return env["RUNTIME_DIRECTORY"].split(":")[0] + "/motiond.sock"
    if env.get("XDG_RUNTIME_DIR"):
        return env["XDG_RUNTIME_DIR"] + "/motiond.sock"
    return "/run/motiond/motiond.sock"


def backoff() -> Iterator[float]:
    """Seconds to wait before each reconnect attempt: 0.1 doubling to 2."""
    delay = 0.1
    while True:
        yield delay
        delay = min(delay * 2, 2.0)


class Subscriptions:
    """What a reconnect makes again: each subscription by id, None once unsubscribed. The daemon numbers
    a connection's subscriptions from 1, so an unsubscribed one is made again as a placeholder that
    matches nothing and unsubscribed at once: the others get their ids back."""
    PLACEHOLDER: JSONObject = {"streams": ["trace"], "targets": ["\u2400motiond_client.unsubscribed"]}

    def __init__(self) -> None:
        self.params: List[Optional[JSONObject]] = []

    def note(self, method: str, params: JSONObject, result: object) -> None:
        """Records a successful `subscribe` or `unsubscribe`, however it was called."""
        if method == "subscribe" and isinstance(result, dict) and isinstance(result.get("sub"), int):
            sub = result["sub"]
            while len(self.params) < sub:
                self.params.append(None)
            self.params[sub - 1] = params
        elif method == "unsubscribe" and isinstance(params.get("sub"), int) and 1 <= params["sub"] <= len(self.params):
            self.params[params["sub"] - 1] = None

    def replay(self, call: Callable[..., JSONObject], refused: Type[BaseException]) -> Dict[int, JSONObject]:
        """Makes every subscription again in id order with `call(method, **params)`; one the daemon
        refuses now (`refused`, its error type: a limit reached, a key it does not take) is dropped and its id
        taken by a placeholder, as an unsubscribed one's is. Returns the results by sub id (None for
        placeholders)."""
        results: Dict[int, JSONObject] = {}
        for index, params in enumerate(self.params):
            if params is not None:
                try:
                    results[index + 1] = call("subscribe", **params)
                    continue
                except refused:
                    self.params[index] = None
            placeholder = call("subscribe", **self.PLACEHOLDER)
            call("unsubscribe", sub=placeholder["sub"])
        return results

    def __len__(self) -> int:
        return sum(params is not None for params in self.params)


class Client:
    """One connection. Not thread-safe: use it from one thread (or one per thread).

    Events that arrive while `call` waits for its reply are kept, in order, for `events()`.
    With `reconnect` (the default), `events()` survives a daemon restart: it connects again with
    backoff, says hello, makes every subscription again and yields {"event": "reconnected"}; a call on a
    lost connection raises ConnectionError and is never replayed, unless it has an `idempotency_key`:
    that one is sent again, with its key, until it is answered (docs/protocol.md#idempotency-keys).
    """
    def __init__(self, socket: Optional[str] = None, reconnect: bool = True, name: str = "motiond_client",
                 path: Optional[str] = None) -> None:
        self.path = socket or path or default_socket()
        self.reconnect = reconnect
        self.name = name
        self.subscriptions = Subscriptions()
        self.readers: Dict[int, FrameReader] = {}  # sub id -> FrameReader (transport "shm")
        self.pending: List[JSONObject] = []
        self.hello: Optional[JSONObject] = None
        self._retry: Optional[Iterator[float]] = None  # backoff() while reconnecting, with the next attempt's time
        self._attempt_at = 0.0
        self._connect()

    # Connection
    def _connect(self) -> None:
        self.sock: Optional[socket.socket] = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            self.sock.connect(self.path)
        except OSError as error:
            self.sock.close()
            self.sock = None
            raise ConnectionError(f"cannot connect to motiond at {self.path}: {error.strerror} "
                                  "(is it running? set MOTIOND_SOCKET)") from None
        # Lines are read with recvmsg: a shm subscription's reply brings a descriptor (SCM_RIGHTS).
        self.input = bytearray()
        self.descriptors: List[int] = []
        self.next_id = 0
        self.hello = self._call("hello", protocol=PROTOCOL, client=self.name)

    def _drop(self) -> None:
        try:
            if self.sock:
                self.sock.close()
        except OSError:
            pass
        for fd in getattr(self, "descriptors", []):
            os.close(fd)
        self.descriptors = []
        self.sock = None

    def _readline(self) -> str:
        """The next line (str), "" when the connection closed; honours the socket's timeout."""
        while True:
            newline = self.input.find(b"\n")
            if newline >= 0:
                line = bytes(self.input[:newline + 1])
                del self.input[:newline + 1]
                return line.decode("utf-8")
            fds = array.array("i")
            data, ancillary, _, _ = cast(socket.socket, self.sock).recvmsg(1 << 16, socket.CMSG_SPACE(4 * fds.itemsize))
            for level, kind, payload in ancillary:
                if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                    fds.frombytes(payload[:len(payload) - len(payload) % fds.itemsize])
            self.descriptors.extend(fds)
            if not data:
                return ""
            self.input += data

    def _write(self, text: str) -> None:
        cast(socket.socket, self.sock).sendall(text.encode("utf-8"))

    def _reconnect(self, deadline: Optional[float] = None) -> bool:
        """Connects again, attempts spaced by `backoff()` across calls; False if the next attempt falls
        after `deadline` (a time.monotonic() instant; None: wait as long as it takes)."""
        if self._retry is None:
            self._retry = backoff()
            self._attempt_at = time.monotonic() + next(self._retry)
        while True:
            now = time.monotonic()
            if self._attempt_at > now:
                if deadline is not None and self._attempt_at > deadline:
                    if deadline > now:
                        time.sleep(deadline - now)
                    return False
                time.sleep(self._attempt_at - now)
            try:
                self._connect()
            except (ConnectionError, OSError):
                self._attempt_at = time.monotonic() + next(self._retry)
                continue
            self._retry = None
            self._resubscribe()
            return True

    def _resubscribe(self) -> None:
        for sub, result in self.subscriptions.replay(self._call, MotiondError).items():
            if not self._passes_region(result) or not self.descriptors:
                continue
            reader = self.readers.get(sub)
            if reader is not None:
                reader.remap(self.descriptors.pop(0))
            else:
                os.close(self.descriptors.pop(0))  # made with call(): no reader to map it

    @staticmethod
    def _passes_region(result: object) -> bool:
        """Whether a subscribe reply says a shared-memory region came with it (its descriptor is queued)."""
        return isinstance(result, dict) and result.get("transport") == "shm"

    def fileno(self) -> int:
        """The socket, to select/poll on with other work (then read with events(timeout=0))."""
        return self.sock.fileno() if self.sock else -1

    def close(self) -> None:
        self._drop()
        for reader in self.readers.values():
            reader.close()
        self.readers = {}

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exception: object) -> None:
        self.close()

    # Requests
    def call(self, method: str, params: Optional[JSONObject] = None, idempotency_key: Optional[str] = None,
             retry_seconds: float = 30, **keywords: Any) -> JSONObject:
        """Sends a request (`params` a dict, or keywords, or both) and returns its result (a dict);
        raises MotiondError for an error reply. A subscription made here is made again after a reconnect
        (until it is unsubscribed). One with transport="shm" gets no reader here (its region's descriptor
        is closed): use subscribe_shm.

        With `idempotency_key` (1 to 128 bytes of text), the request is sent again with that key whenever
        its answer is lost (the connection closed first, or motiond answered that it is stopping), once
        motiond is back, for up to `retry_seconds`: the daemon applies it once and answers a repeat with
        the first result (docs/protocol.md#idempotency-keys)."""
        params = dict(params or {}, **keywords)
        if idempotency_key is None:
            result: JSONObject = self._call(method, **params)
        else:
            result = self._call_keyed(method, params, idempotency_key, time.monotonic() + retry_seconds)
        self.subscriptions.note(method, params, result)
        if method == "subscribe" and self._passes_region(result) and self.descriptors:
            os.close(self.descriptors.pop(0))
        if method == "unsubscribe":
            reader = self.readers.pop(cast(int, params.get("sub")), None)
            if reader is not None:
                reader.close()
        return result

    def _call_keyed(self, method: str, params: JSONObject, key: str, deadline: float) -> Any:
        while True:
            try:
                return self._call(method, _key=key, **params)
            except (ConnectionError, OSError):
                if not self.reconnect or time.monotonic() >= deadline:
                    raise
            except MotiondError as error:
                if error.code not in ("server.shutting_down", "request.pending") or time.monotonic() >= deadline:
                    raise
                time.sleep(0.05)
                continue
            if self.sock is None and not self._reconnect(deadline):
                raise ConnectionError("motiond did not come back within the retry time")
            # A reconnect made here: events() still hears of it (an app re-adds its plans on it).
            self.pending.append({"event": "reconnected", "_applied": True})

    def _call(self, method: str, _key: Optional[str] = None, **params: Any) -> Any:
        if self.sock is None:
            if not self.reconnect:
                raise ConnectionError("not connected to motiond")
            self._connect()
            self._resubscribe()
            # A call found the daemon back: events() still says so, as when it finds it itself (an app
            # that adds its plans again on "reconnected" must hear it whichever noticed first).
            self._retry = None
            self.pending.append({"event": "reconnected", "_applied": True})
        self.next_id += 1
        request = {"id": self.next_id, "method": method, "params": params}
        if _key is not None:
            request["key"] = _key
        line = request_line(request)
        try:
            self._write(line)
            while True:
                line = self._readline()
                if not line:
                    raise ConnectionError("motiond closed the connection")
                message = json.loads(line)
                if message.get("id") == self.next_id:
                    if "error" in message:
                        raise MotiondError(message["error"].get("code"), message["error"].get("message"))
                    return message["result"]
                self.pending.append(message)
        except (ConnectionError, OSError):
            self._drop()
            raise

    def subscribe(self, **params: Any) -> int:
        """`subscribe` (streams=[...], runtime=..., targets=[...], display={...}); returns the sub id.
        Made again after a reconnect (the ids come back the same)."""
        return cast(int, self.call("subscribe", **params)["sub"])

    def stream(self, **params: Any) -> Subscription:
        """A subscription as an iterator of its own events: `for frame in client.stream(streams=["frames"],
        targets=["card"])`. Events of other subscriptions meanwhile are kept, in order, for events()."""
        return Subscription(self, self.subscribe(**params))

    def _next_for(self, sub: int, timeout: Optional[float] = None) -> Optional[JSONObject]:
        """The next event of subscription `sub` (or "reconnected"); others are kept for events()."""
        deadline = None if timeout is None else time.monotonic() + timeout
        event: Optional[JSONObject]
        for index, event in enumerate(self.pending):
            if event.get("sub") == sub:
                return self._applied(self.pending.pop(index))
        # Events that came during a call are older than any read below: applied now, in order.
        held = [dict(self._applied(event), _applied=True) for event in self.pending]
        self.pending = []
        try:
            while True:
                left = None if deadline is None else max(0.0, deadline - time.monotonic())
                event = self.next_event(left)
                if event is None or event.get("sub") == sub or event.get("event") == "reconnected":
                    return event
                held.append(dict(event, _applied=True))
        finally:
            self.pending = held + self.pending

    def subscribe_shm(self, **params: Any) -> Tuple[int, FrameReader]:
        """A `transport: "shm"` frames subscription (docs/clients.md): returns (sub id, FrameReader). Events
        taken with next_event()/events() name its slots and announce its frames; then
        `reader.updates()` gives what changed, each property once with its latest value."""
        params = dict(params, transport="shm")
        params.setdefault("streams", ["frames"])
        result: JSONObject = self._call("subscribe", **params)
        self.subscriptions.note("subscribe", params, result)
        if not self.descriptors:
            raise ConnectionError("the shm subscription's reply came without its descriptor")
        reader = FrameReader(self.descriptors.pop(0), sub=result["sub"])
        reader.announced = 0
        self.readers[result["sub"]] = reader
        return result["sub"], reader

    # Events
    def next_event(self, timeout: Optional[float] = None) -> Optional[JSONObject]:
        """The next event; None if `timeout` seconds pass without one (None: wait). With `timeout` 0 it
        does not wait: it returns an event already received, else None; while the daemon is away it tries
        to connect again only when the backoff says so (that attempt's hello and resubscribe are calls)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            if self.pending:
                return self._applied(self.pending.pop(0))
            if self.sock is None:
                if not self.reconnect:
                    raise ConnectionError("motiond closed the connection")
                if not self._reconnect(deadline):
                    return None
                return {"event": "reconnected"}
            try:
                self.sock.settimeout(None if deadline is None else max(0.0, deadline - time.monotonic()))
                line = self._readline()
            except (socket.timeout, BlockingIOError):
                # Nothing to read in time (a timeout of 0 makes the socket non-blocking: BlockingIOError).
                return None
            except OSError:
                line = ""
            finally:
                if self.sock is not None:
                    self.sock.settimeout(None)
            if line:
                return self._applied(json.loads(line))
            self._drop()
            if not self.reconnect:
                raise ConnectionError("motiond closed the connection")

    def _applied(self, event: JSONObject) -> JSONObject:
        if event.pop("_applied", False):
            return event
        reader = self.readers.get(cast(int, event.get("sub"))) if event.get("event") in ("slots", "frame") else None
        if reader is not None:
            reader.apply(event)
        return event

    def events(self, timeout: Optional[float] = None) -> Iterator[JSONObject]:
        """Yields events as they come (reconnecting as the class says); stops after `timeout` seconds
        without one, if given."""
        while True:
            event = self.next_event(timeout)
            if event is None:
                return
            yield event

    @staticmethod
    def updates(event: JSONObject) -> Iterator[Tuple[Optional[str], str, str, List[float], Optional[List[float]]]]:
        """A frame's updates as (runtime, target, property, value, velocity) tuples."""
        for update in event.get("updates", []):
            yield update.get("runtime"), update["target"], update["property"], update["value"], update.get("velocity")


class Subscription:
    """One subscription's events as an iterator (Client.stream); `sub` is its id. Iteration waits for the
    next event (`timeout` seconds at most, then it stops) and goes on across a daemon restart."""
    def __init__(self, client: Client, sub: int, timeout: Optional[float] = None) -> None:
        self.client = client
        self.sub = sub
        self.timeout = timeout

    def __iter__(self) -> Subscription:
        return self

    def __next__(self) -> JSONObject:
        event = self.client._next_for(self.sub, self.timeout)
        if event is None:
            raise StopIteration
        return event

    def close(self) -> None:
        self.client.call("unsubscribe", {"sub": self.sub})
