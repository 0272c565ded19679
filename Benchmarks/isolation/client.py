"""The line protocol client the isolation attacks and their victim share. Standard library only."""
import json, socket


class Client:
    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX)
        self.sock.connect(path)
        self.file = self.sock.makefile("rwb")
        self.next = 0

    def send(self, method, params=None, key=None):
        self.next += 1
        request = {"id": self.next, "method": method, "params": params or {}}
        if key is not None:
            request["key"] = key  # an idempotency key (docs/protocol.md)
        line = json.dumps(request) + "\n"
        self.file.write(line.encode())
        return self.next

    def reply(self, id):
        self.file.flush()
        while True:
            line = self.file.readline()
            if not line:
                raise ConnectionError("motiond closed the connection")
            message = json.loads(line)
            # The answer, or a closing notice (an error with no id: the connection ends after it).
            if message.get("id") == id or (message.get("id") is None and "error" in message):
                return message

    def call(self, method, params=None):
        return self.reply(self.send(method, params))

    def code(self, method, params=None):
        reply = self.call(method, params)
        return reply.get("error", {}).get("code", "ok")
