#!/usr/bin/env python3
"""A motiond client with the standard library only: add a spring and print its frames until it settles.

    python3 examples/motion_client.py [SOCKET]
"""
import json
import os
import socket
import sys


def default_socket():
    if os.environ.get("MOTIOND_SOCKET"):
        return os.environ["MOTIOND_SOCKET"]
    for variable in ("RUNTIME_DIRECTORY", "XDG_RUNTIME_DIR"):
        if os.environ.get(variable):
            return os.path.join(os.environ[variable], "motiond.sock")
    return "/run/motiond/motiond.sock"


class Client:
    def __init__(self, path):
        self.socket = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.socket.connect(path)
        # One file to read and one to write: a text file opened "rw" drops what it has read ahead
        # whenever it is written to (an event that came with a reply would be lost).
        self.reader = self.socket.makefile("r", encoding="utf-8", newline="\n")
        self.writer = self.socket.makefile("w", encoding="utf-8", newline="\n")
        self.next_id = 0
        self.events = []

    def call(self, method, **params):
        """Sends a request and returns its result; events that arrive first are kept in self.events."""
        self.next_id += 1
        self.writer.write(json.dumps({"id": self.next_id, "method": method, "params": params}) + "\n")
        self.writer.flush()
        while True:
            message = json.loads(self.reader.readline())
            if message.get("id") == self.next_id:
                if "error" in message:
                    raise RuntimeError("%(code)s: %(message)s" % message["error"])
                return message["result"]
            self.events.append(message)

    def next_event(self):
        if self.events:
            return self.events.pop(0)
        line = self.reader.readline()
        if not line:
            raise EOFError("motiond closed the connection")
        return json.loads(line)


def main():
    client = Client(sys.argv[1] if len(sys.argv) > 1 else default_socket())
    hello = client.call("hello", protocol=1, client="example.py")
    print("connected to %s %s; plan types: %s" % (hello["server"], hello["version"], ", ".join(hello["planTypes"])))
    client.call("subscribe", streams=["frames", "trace"], targets=["ball"])
    client.call("plan.add", target="ball", plan={"type": "Spring", "property": "position", "to": [100, 50]})
    while True:
        event = client.next_event()
        if event.get("event") == "frame":
            for update in event["updates"]:
                print("t=%.3f %s.%s = %s" % (event["t"], update["target"], update["property"], update["value"]))
        elif event.get("event") == "trace" and event["kind"] == "animation.ended":
            print("ended: %s" % event.get("reason"))
            return


if __name__ == "__main__":
    main()
