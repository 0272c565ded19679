"""Issue #45's attacks: one uid holding many connections, unfinished lines, and readers that never read
(stopped or killed all at once). Run by attacks.py in the attacker's process. Standard library only."""
import json, os, resource, signal, socket, subprocess, sys, time

from client import Client

NAMES = ("connections", "subscriptions", "shm", "slowloris", "names", "stopped", "killed")


def attack(path, name, end, count):
    """One of NAMES until `end` (time.monotonic()); `count(code)` tallies what the attacker saw."""
    if name in ("connections", "subscriptions", "shm", "names"):
        # Connections (each greeted) until refused; "subscriptions" and "shm": 64 subscriptions on each,
        # never read; "names": 64 connections whose hello carries a 1 MB client name.
        raise_descriptor_limit()
        held = []
        for index in range(64 if name == "names" else 1100):
            try:
                other = Client(path)
                hello = {"protocol": 1, "client": ("n" * 1_000_000) if name == "names" else "attacker"}
                code = other.code("hello", hello)
                count("hello " + code)
                if code != "ok":
                    break
            except OSError as error:
                count("connect " + (error.strerror or str(error)))
                break
            held.append(other)
            if name in ("subscriptions", "shm"):
                params = {"streams": ["frames"]}
                if name == "shm":
                    params.update({"transport": "shm", "slots": 1})
                for _ in range(64):
                    other.send("subscribe", params)
                other.file.flush()
                codes = [other.reply(other.next - 63 + k).get("error", {}).get("code", "ok") for k in range(64)]
                for code in codes:
                    count("subscribe " + code)
                if "quota.exceeded" in codes and index > 20:
                    break
        count("held %d" % len(held))
        while time.monotonic() < end:
            time.sleep(0.1)
    elif name == "slowloris":
        # Connections that each start a 1 MiB line and add a byte every 5 s: never a whole request.
        raise_descriptor_limit()
        held = []
        for _ in range(1024):
            try:
                other = Client(path)
                other.code("hello", {"protocol": 1, "client": "attacker"})
                # Just under the 1 MiB line limit: what a connection may hold, were it not for the uid's quota.
                other.sock.sendall(b'{"id":1,"method":"status","params":{"x":"' + b"a" * ((1 << 20) - 100))
                held.append(other)
            except OSError as error:
                count("connect " + (error.strerror or str(error)))
                break
        count("held %d" % len(held))
        closed = 0
        while time.monotonic() < end:
            time.sleep(5)
            for other in held:
                try:
                    other.sock.send(b"a")
                except OSError:
                    closed += 1
        codes = {}
        for other in held:
            other.sock.settimeout(0.2)
            try:
                data = other.sock.recv(1 << 16)
            except OSError:
                data = b""
            for line in data.splitlines():
                try:
                    code = json.loads(line).get("error", {}).get("code")
                except ValueError:
                    code = None
                if code:
                    codes[code] = codes.get(code, 0) + 1
        count("closed by motiond: %s" % json.dumps(codes, sort_keys=True))
    elif name in ("stopped", "killed"):
        # A child of the attacker's uid subscribes on 1,024 connections and never reads; then it is
        # stopped (SIGSTOP: the daemon must cut it off without a gap for others) or killed (every
        # connection ends at once).
        python = "/usr/bin/python3" if os.access("/usr/bin/python3", os.X_OK) else sys.executable
        child = subprocess.Popen([python, os.path.join(os.path.dirname(os.path.abspath(__file__)), "attacks.py"), "--subscriber", path],
                                 stdout=subprocess.PIPE, text=True)
        count(child.stdout.readline().strip())
        time.sleep(1)
        if name == "stopped":
            child.send_signal(signal.SIGSTOP)
            count("stopped")
        else:
            child.kill()
            count("killed")
        while time.monotonic() < end:
            time.sleep(0.1)
        child.kill()
        child.wait()


def raise_descriptor_limit():
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def subscriber(path):
    """Runs in the attacker's child: 1,024 connections, 16 frame subscriptions each where its quota
    allows, none read; says how many, then waits to be stopped or killed."""
    raise_descriptor_limit()
    held, made = [], 0
    # Motion of its own, so frames flow to the connections it will stop reading.
    mover = Client(path)
    mover.call("hello", {"protocol": 1, "client": "mover"})
    for index in range(2000):
        mover.send("plan.add", {"target": "m%d" % index, "plan": {
            "type": "Spring", "property": "x", "from": [0], "to": [1000], "tension": 1, "damping": 0.001, "threshold": 1e-9}})
    mover.reply(mover.next)
    held.append(mover)
    for _ in range(1023):
        try:
            other = Client(path)
            if other.code("hello", {"protocol": 1, "client": "subscriber"}) != "ok":
                break
        except OSError:
            break
        held.append(other)
        for _ in range(16):
            other.send("subscribe", {"streams": ["frames", "trace"]})
        other.file.flush()
        made += sum(other.reply(other.next - 15 + k).get("error") is None for k in range(16))
    print("subscribed %d on %d connections" % (made, len(held)), flush=True)
    while True:
        time.sleep(1)
