"""The blocking client."""
import json
import os
import socket
import time

PROTOCOL = 1


class MotiondError(Exception):
    """An error motiond answered: `code` (e.g. "plan.invalid") and `message`."""

    def __init__(self, code, message):
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


def default_socket(environment=None):
    """SPEC §5: $MOTIOND_SOCKET, $RUNTIME_DIRECTORY (its first entry), $XDG_RUNTIME_DIR, then /run/motiond."""
    env = os.environ if environment is None else environment
    if env.get("MOTIOND_SOCKET"):
        return env["MOTIOND_SOCKET"]
    if env.get("RUNTIME_DIRECTORY"):
        return env["RUNTIME_DIRECTORY"].split(":")[0] + "/motiond.sock"
    if env.get("XDG_RUNTIME_DIR"):
        return env["XDG_RUNTIME_DIR"] + "/motiond.sock"
    return "/run/motiond/motiond.sock"


def backoff():
    """Seconds to wait before each reconnect attempt: 0.1 doubling to 2."""
    delay = 0.1
    while True:
        yield delay
        delay = min(delay * 2, 2.0)


class Client:
    """One connection. Not thread-safe: use it from one thread (or one per thread).

    Events that arrive while `call` waits for its reply are kept, in order, for `events()`.
    With `reconnect` (the default), `events()` survives a daemon restart: it connects again with
    backoff, says hello, makes every subscription again and yields {"event": "reconnected"}; a call on a
    lost connection raises ConnectionError and is never replayed.
    """

    def __init__(self, path=None, reconnect=True, name="motiond_client"):
        self.path = path or default_socket()
        self.reconnect = reconnect
        self.name = name
        self.subscriptions = []
        self.pending = []
        self.hello = None
        self._connect()

    # Connection

    def _connect(self):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            self.sock.connect(self.path)
        except OSError as error:
            self.sock.close()
            self.sock = None
            raise ConnectionError(f"cannot connect to motiond at {self.path}: {error.strerror} "
                                  "(is it running? set MOTIOND_SOCKET)") from None
        # One file to read and one to write: a text file opened "rw" drops its read-ahead on write.
        self.reader = self.sock.makefile("r", encoding="utf-8", newline="\n")
        self.writer = self.sock.makefile("w", encoding="utf-8", newline="\n")
        self.next_id = 0
        self.hello = self.call("hello", protocol=PROTOCOL, client=self.name)

    def _drop(self):
        for closing in (getattr(self, "reader", None), getattr(self, "writer", None), self.sock):
            try:
                if closing:
                    closing.close()
            except OSError:
                pass
        self.sock = None

    def _reconnect(self):
        for delay in backoff():
            time.sleep(delay)
            try:
                self._connect()
            except (ConnectionError, OSError):
                continue
            for params in self.subscriptions:
                self.call("subscribe", **params)
            return

    def fileno(self):
        """The socket, to select/poll on with other work (then read with events(timeout=0))."""
        return self.sock.fileno() if self.sock else -1

    def close(self):
        self._drop()

    def __enter__(self):
        return self

    def __exit__(self, *exception):
        self.close()

    # Requests

    def call(self, method, **params):
        """Sends a request and returns its result; raises MotiondError for an error reply."""
        if self.sock is None:
            if not self.reconnect:
                raise ConnectionError("not connected to motiond")
            self._connect()
            for kept in self.subscriptions:
                self.call("subscribe", **kept)
        self.next_id += 1
        request = {"id": self.next_id, "method": method, "params": params}
        try:
            self.writer.write(json.dumps(request, separators=(",", ":")) + "\n")
            self.writer.flush()
            while True:
                line = self.reader.readline()
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

    def subscribe(self, **params):
        """`subscribe` (streams=[...], runtime=..., targets=[...], display={...}); returns the sub id.
        Made again after a reconnect (the ids come back the same)."""
        result = self.call("subscribe", **params)
        self.subscriptions.append(params)
        return result["sub"]

    # Events

    def next_event(self, timeout=None):
        """The next event; None if `timeout` seconds pass without one (None: wait)."""
        while True:
            if self.pending:
                return self.pending.pop(0)
            if self.sock is None:
                if not self.reconnect:
                    raise ConnectionError("motiond closed the connection")
                self._reconnect()
                return {"event": "reconnected"}
            try:
                self.sock.settimeout(timeout)
                line = self.reader.readline()
            except socket.timeout:
                return None
            except OSError:
                line = ""
            finally:
                if self.sock is not None:
                    self.sock.settimeout(None)
            if line:
                return json.loads(line)
            self._drop()
            if not self.reconnect:
                raise ConnectionError("motiond closed the connection")

    def events(self, timeout=None):
        """Yields events as they come (reconnecting as the class says); stops after `timeout` seconds
        without one, if given."""
        while True:
            event = self.next_event(timeout)
            if event is None:
                return
            yield event

    @staticmethod
    def updates(event):
        """A frame's updates as (runtime, target, property, value, velocity) tuples."""
        for update in event.get("updates", []):
            yield update.get("runtime"), update["target"], update["property"], update["value"], update.get("velocity")
