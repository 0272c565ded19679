#!/usr/bin/env python3
"""Issue #16's attacks against a running motiond, each beside a victim that counts its own frames.

    attacks.py SOCKET [--uid UID] [--seconds S] [--hold N] [ATTACK...]

With --hold N, the attacker's uid first adds N never-settling springs (in an ephemeral runtime of a
connection held open) and every attack runs beside them: what a uid within its quotas (100,000
performers) makes the daemon carry.

The victim (this process's uid) animates one spring that never settles and subscribes to it; while an
attacker (a subprocess, run as UID through setpriv when given) performs one attack, the victim records
its frame rate and longest gap between frames. One JSON line per attack. Standard library only.
"""
import json, os, selectors, socket, subprocess, sys, threading, time

import exhaustion
from client import Client

ATTACKS = ["swarm", "bulk", "chains", "waits", "props", "filters", "fanout", "scrub", "sample", "state", "bigplan", "keyframes", "restagger", "routes", "neighbour", "idle",
           "churn", "replace", "connections", "subscriptions", "shm", "slowloris", "names", "stopped", "killed", "retune", "replay", "keys", "tokens",
           "leaving", "displays", "all"]
# "all": one uid at every limit at once (issue #45), these attacks together, each in a process of its own.
ALL_AT_ONCE = ["bulk", "filters", "keyframes", "bigplan", "state", "subscriptions", "shm", "slowloris", "names", "stopped"]
# Issue #45's attacks hold many connections: they run at least this long (the daemon cuts a stopped
# reader off after 10 s; what the victim sees then is the point).
MINIMUM_SECONDS = {"stopped": 16, "killed": 12, "slowloris": 14, "all": 16}


def victim(path, seconds, result):
    # VICTIM_FIFO=N: the victim reads at SCHED_FIFO N (as a compositor would), so its own scheduling
    # is not part of what it measures.
    if os.environ.get("VICTIM_FIFO"):
        os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(int(os.environ["VICTIM_FIFO"])))
    client = Client(path)
    client.call("hello", {"protocol": 1, "client": "victim"})
    client.call("runtime.create", {"name": "victim", "ephemeral": True})
    client.call("plan.add", {"runtime": "victim", "target": "v", "plan": {
        "type": "Spring", "property": "x", "from": [0], "to": [1000], "tension": 1, "damping": 0.001, "threshold": 1e-9}})
    client.call("subscribe", {"streams": ["frames"], "runtime": "victim"})
    result["ready"].set()
    frames, stamps, dropped = [], [], 0
    # Ten times a second it adds a plan of its own and times the reply: its requests must not wait
    # behind the attacker's.
    asked, latencies = None, []
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        now = time.monotonic()
        if asked is None or (asked[1] is None and now - asked[0] >= 0.1):
            client.send("plan.add", {"target": "w", "plan": {"type": "Set", "property": "x", "value": [now]}})
            client.file.flush()
            asked = (now, client.next)
        line = client.file.readline()
        if line.startswith(b'{"event":"frame"'):
            frames.append(time.monotonic())
            frame = json.loads(line)
            stamps.append(frame.get("t"))
            dropped += frame.get("dropped", 0)
        elif asked[1] is not None and line.startswith(b'{') and json.loads(line).get("id") == asked[1]:
            latencies.append(time.monotonic() - asked[0])
            asked = (time.monotonic(), None)
    gaps = [b - a for a, b in zip(frames, frames[1:])]
    result["fps"] = round(len(frames) / seconds, 1)
    result["dropped"] = dropped
    result["max_gap_ms"] = round(max(gaps) * 1000, 1) if gaps else None
    # The frames' own times: a gap here is the daemon's frame clock; the arrival after its time is the
    # delivery (the daemon's writer, the socket, and this reader's own scheduling).
    if stamps and stamps[0] is not None:
        result["max_t_gap_ms"] = round(max(b - a for a, b in zip(stamps, stamps[1:])) * 1000, 1)
        # `t` is the daemon's clock, not this process's: lateness beyond the quickest frame's.
        offsets = [f - t for f, t in zip(frames, stamps)]
        result["max_late_ms"] = round((max(offsets) - min(offsets)) * 1000, 1)
    if asked is not None and asked[1] is not None:
        latencies.append(time.monotonic() - asked[0])   # still unanswered: at least this long
    latencies.sort()
    result["requests"] = len(latencies)
    result["request_max_ms"] = round(latencies[-1] * 1000, 1) if latencies else None


def attack(path, name, seconds):
    """Runs in the attacker's process; prints a JSON summary of what it saw."""
    client = Client(path)
    client.call("hello", {"protocol": 1, "client": "attacker"})
    end = time.monotonic() + seconds
    seen = {}

    def count(code):
        seen[code] = seen.get(code, 0) + 1

    if name in exhaustion.NAMES:
        exhaustion.attack(path, name, end, count)
    elif name in ("swarm", "filters", "fanout"):
        # Many moving springs of its own ("swarm": nothing else, the reference for "filters"), and
        # every subscription it may have, each filtering on the longest target list allowed; it never
        # reads what it subscribed to.
        client.call("runtime.create", {"name": "swarm"})
        for index in range(10000):
            client.send("plan.add", {"runtime": "swarm", "target": "s%d" % index, "plan": {
                "type": "Spring", "property": "x", "from": [0], "to": [1000], "tension": 1, "damping": 0.001, "threshold": 1e-9}})
            if index % 500 == 499:
                client.reply(client.next)
        names = ["s%d" % i for i in range(4096)]
        for _ in range(64 if name == "filters" else 0):
            client.send("subscribe", {"streams": ["frames"], "targets": names})
        # "fanout": its 10,000 springs to 64 shared-memory subscribers of its own, whose small frame
        # announcements it reads (the regions' descriptors are dropped unread): cheap for it, 64 region
        # writes of every spring a tick for the daemon.
        for _ in range(64 if name == "fanout" else 0):
            client.send("subscribe", {"streams": ["frames"], "transport": "shm"})
        client.file.flush()
        count("subscribed")
        client.sock.settimeout(0.1)
        while time.monotonic() < end:
            if name != "fanout":
                time.sleep(0.1)
                continue
            try:
                client.sock.recv(1 << 20)
            except socket.timeout:
                pass
    elif name == "all":
        # Issue #45: one uid at every limit at once: the attacks that each fill one of its quotas, each in a
        # process of its own (this uid), those that hold plans first, then those that hold every connection
        # and subscription it may have left.
        children = []
        python = "/usr/bin/python3" if os.access("/usr/bin/python3", os.X_OK) else sys.executable
        for group in (ALL_AT_ONCE[:5], ALL_AT_ONCE[5:]):
            for each in group:
                command = [python, os.path.abspath(__file__), "--attack", path, each, "%.1f" % max(1.0, end - time.monotonic())]
                children.append((each, subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)))
            time.sleep(1)
        for each, child in children:
            output, _ = child.communicate(timeout=max(1.0, end - time.monotonic()) + 120)
            lines = output.strip().splitlines()
            count("%s %s" % (each, lines[-1][:300] if lines else "(nothing)"))
    elif name == "bulk":
        # As many springs as its quotas allow (100,000 performers), added as fast as they are answered:
        # the lanes they live in grow while the victim's frames go on.
        # Ephemeral: they go with the connection (the attacks after it are held to the same quotas).
        client.call("runtime.create", {"name": "bulk", "ephemeral": True})
        for index in range(100000):
            client.send("plan.add", {"runtime": "bulk", "target": "s%d" % index, "plan": {
                "type": "Spring", "property": "x", "from": [0], "to": [1000], "tension": 1, "damping": 0.001, "threshold": 1e-9}})
            if index % 500 == 499:
                count(client.reply(client.next).get("error", {}).get("code", "ok"))
            if time.monotonic() > end:
                break
        while time.monotonic() < end:
            time.sleep(0.1)
    elif name == "chains":
        # 1,000 Sequences of a 0.5 s tween then 255 Sets, re-added every second: their tweens end at one
        # tick, and each starts 255 plans then (255,000 in one tick before composites had a budget).
        client.call("runtime.create", {"name": "chains", "ephemeral": True})
        plan = {"type": "Sequence", "steps": [{"type": "Tween", "property": "x", "from": [0], "to": [1], "duration": 0.5}] +
                [{"type": "Set", "property": "p%d" % i, "value": [i]} for i in range(255)]}
        while time.monotonic() < end - 1:
            for index in range(1000):
                client.send("plan.add", {"runtime": "chains", "target": "s%d" % index, "plan": plan})
                if index % 50 == 49:
                    count(client.reply(client.next).get("error", {}).get("code", "ok"))
            time.sleep(1.0)
    elif name == "waits":
        # 100,000 leaves of Groups waiting (never-settling springs), then 5,120 short tweens on targets of
        # their own that end together (each ending tween once looked at every waiting leaf).
        client.call("runtime.create", {"name": "waits", "ephemeral": True})
        plan = {"type": "Group", "plans": [{"type": "Spring", "property": "p%d" % i, "to": [1], "tension": 1,
                                            "damping": 0.001, "threshold": 1e-9} for i in range(250)]}
        for index in range(400):
            client.send("plan.add", {"runtime": "waits", "target": "g%d" % index, "plan": plan})
            if index % 20 == 19:
                count(client.reply(client.next).get("error", {}).get("code", "ok"))
        tween = {"type": "Tween", "property": "x", "from": [0], "to": [1], "duration": 0.3}
        round = 0
        while time.monotonic() < end - 0.5:
            round += 1
            for batch in range(20):
                client.send("plan.add", {"runtime": "waits", "targets": ["w%d_%d_%d" % (round, batch, i) for i in range(256)],
                                         "stagger": 0, "plan": tween})
            count(client.reply(client.next).get("error", {}).get("code", "ok"))
            time.sleep(1.0)
    elif name == "props":
        # Sets of new properties on one target (past 1,024 refused), then runtime.state of it, back to back.
        client.call("runtime.create", {"name": "props", "ephemeral": True})
        for index in range(2000):
            client.send("plan.add", {"runtime": "props", "target": "one", "plan": {
                "type": "Set", "property": "p%d-%s" % (index, "x" * 200), "value": [index]}})
            if index % 100 == 99:
                count(client.reply(client.next).get("error", {}).get("code", "ok"))
        while time.monotonic() < end:
            count(client.code("runtime.state", {"runtime": "props", "limit": 1}))
    elif name == "scrub":
        client.call("runtime.create", {"name": "long"})
        for index in range(200):
            client.send("plan.add", {"runtime": "long", "target": "t%d" % index, "plan": {
                "type": "Tween", "property": "x", "from": [0], "to": [100], "duration": 60}})
        client.reply(client.next)
        count(client.code("timeline.attach", {"runtime": "long", "offset": 60}))
        offset = 0
        while time.monotonic() < end:
            offset = 60 - offset
            count(client.code("timeline.scrub", {"runtime": "long", "offset": offset}))
    elif name == "sample":
        times = [i * 0.06 for i in range(10000)]
        plan = {"type": "Spring", "property": "x", "from": [0], "to": [1], "tension": 1, "damping": 0.001}
        while time.monotonic() < end:
            ids = [client.send("plan.sample", {"plan": plan, "times": times}) for _ in range(4)]
            for id in ids:
                count("ok" if "result" in client.reply(id) else "error")
    elif name == "state":
        client.call("runtime.create", {"name": "wide"})
        for index in range(20000):
            client.send("plan.add", {"runtime": "wide", "target": "t%d" % index, "name": "n", "plan": {"type": "Set", "property": "x", "value": [index]}})
            if index % 1000 == 999:
                client.reply(client.next)
        while time.monotonic() < end:
            after = None
            while True:
                params = {"runtime": "wide", "limit": 1000}
                if after:
                    params["after"] = after
                page = client.call("runtime.state", params)
                count("page")
                after = page.get("result", {}).get("next")
                if not after:
                    break
    elif name == "routes":
        # Issue #45: a router whose screens each start a Group of three plans, taken unanimated from its
        # root to 256 screens deep and back (255 popped in one update), on 4 connections at once.
        push = {"type": "Group", "plans": [
            {"type": "Spring", "property": "offset", "from": [400], "to": [0]},
            {"type": "Tween", "property": "opacity", "from": [0], "to": [1], "duration": 0.2},
            {"type": "Spring", "property": "scale", "from": [0.9], "to": [1]}]}
        pop = {"type": "Tween", "property": "offset", "to": [400], "duration": 0.2}
        deepest = "/".join(["s"] * 256)
        clients = [client] + [Client(path) for _ in range(3)]
        for index, other in enumerate(clients):
            if index:
                other.call("hello", {"protocol": 1, "client": "attacker"})
            other.call("router.configure", {"scheme": "deep%d" % index, "routes": {"s": {"kind": "stack", "transition": {"push": push, "pop": pop}}}})
            other.send("route.go", {"scheme": "deep%d" % index, "to": "deep%d://%s" % (index, deepest), "animated": False})
            other.file.flush()
        depth = [True] * len(clients)
        buffers = [b""] * len(clients)
        watched = selectors.DefaultSelector()
        for index, other in enumerate(clients):
            other.sock.setblocking(False)
            watched.register(other.sock, selectors.EVENT_READ, index)
        while time.monotonic() < end:
            for key, _ in watched.select(timeout=0.2):
                index, other = key.data, clients[key.data]
                try:
                    data = other.sock.recv(1 << 16)
                except BlockingIOError:
                    continue
                buffers[index] += data
                while b"\n" in buffers[index]:
                    line, buffers[index] = buffers[index].split(b"\n", 1)
                    reply = json.loads(line)
                    if reply.get("id") is None:
                        continue
                    code = reply.get("error", {}).get("code", "ok")
                    count(code)
                    # Back and forth; an error (the router still busy, say) tries the same way again.
                    if code == "ok":
                        depth[index] = not depth[index]
                    to = "deep%d://%s" % (index, deepest) if depth[index] else "deep%d://s" % index
                    line = json.dumps({"id": 1, "method": "route.go", "params": {"scheme": "deep%d" % index, "to": to, "animated": False}}) + "\n"
                    other.sock.setblocking(True)
                    other.sock.sendall(line.encode())
                    other.sock.setblocking(False)
    elif name == "bigplan":
        pad = "x" * 900000
        while time.monotonic() < end:
            count(client.code("plan.add", {"target": "a", "plan": {"type": "Spring", "property": "x", "to": [1], "pad": pad}}))
    elif name in ("keyframes", "restagger"):
        # Large valid requests back to back on 16 connections, 16 in flight on each. "keyframes": a
        # Keyframes plan as large as allowed (~60 KB, under the 64 KiB limit); "restagger": a staggered
        # Spring over 256 targets re-added to the same targets (each plan waits for its delay while the
        # next one comes).
        count_ = 1000
        if name == "keyframes":
            plan = {"type": "Keyframes", "property": "x", "duration": 1,
                    "values": [[i * 1.0000001234567, i * 0.9999998765432] for i in range(count_)],
                    "keyTimes": [i / (count_ - 1) for i in range(count_)]}
        else:
            names = ["r%d" % i for i in range(256)]
            plan = {"type": "Spring", "property": "x", "to": [1000], "tension": 1, "damping": 0.001, "threshold": 1e-9}
        clients = [client] + [Client(path) for _ in range(15)]
        for other in clients[1:]:
            other.call("hello", {"protocol": 1, "client": "attacker"})
        lines = []
        for index, other in enumerate(clients):
            if name == "keyframes":
                params = {"target": "k%d" % index, "plan": plan}
            else:
                params = {"targets": names, "stagger": 0.01, "plan": plan}
            lines.append((json.dumps({"id": 0, "method": "plan.add", "params": params}) + "\n").encode())
            other.sock.settimeout(0.2)
            other.file.write(lines[-1] * 16)
            other.file.flush()
        # Each reply read is answered with one more request.
        buffers = [b""] * len(clients)
        while time.monotonic() < end:
            for index, other in enumerate(clients):
                try:
                    data = other.sock.recv(1 << 16)
                except (socket.timeout, BlockingIOError):
                    continue
                buffers[index] += data
                *done, buffers[index] = buffers[index].split(b"\n")
                for reply in done:
                    count(json.loads(reply).get("error", {}).get("code", "ok"))
                if done:
                    other.sock.sendall(lines[index] * len(done))
    elif name == "neighbour":
        # Everything another uid could try on the victim's motion.
        while time.monotonic() < end:
            for method, params in [("runtime.state", {"runtime": "0/victim"}), ("timeline.attach", {"runtime": "0/victim"}),
                                   ("plan.add", {"runtime": "0/victim", "target": "v", "plan": {"type": "Set", "property": "x", "value": [0]}}),
                                   ("runtime.destroy", {"name": "0/victim"}), ("timeline.attach", {"runtime": "default"}),
                                   ("subscribe", {"streams": ["frames"], "runtime": "0/victim"})]:
                count(client.code(method, params))
    elif name == "churn":
        # 16 shared-memory subscribers of its own (their announcements read, the regions dropped), and a
        # runtime of 20,000 moving springs destroyed and created again under its name as fast as it is
        # answered: every property that goes is marked in each region (`GoneProperties`).
        for _ in range(16):
            client.send("subscribe", {"streams": ["frames"], "transport": "shm"})
        client.file.flush()
        while time.monotonic() < end:
            client.call("runtime.create", {"name": "churn", "ephemeral": True})
            for index in range(20000):
                client.send("plan.add", {"runtime": "churn", "target": "c%d" % index, "plan": {
                    "type": "Spring", "property": "x", "from": [0], "to": [1000], "tension": 1, "damping": 0.001, "threshold": 1e-9}})
                if index % 500 == 499:
                    client.reply(client.next)
            count(client.call("runtime.destroy", {"name": "churn"}).get("error", {}).get("code", "destroyed"))
    elif name == "replace":
        # Named replacements as fast as they are answered, each tried on a scratch performer first
        # (`Engine+Replacements`), over 2,000 targets holding a named spring each.
        client.call("runtime.create", {"name": "replace", "ephemeral": True})
        index = 0
        while time.monotonic() < end:
            client.send("plan.add", {"runtime": "replace", "target": "r%d" % (index % 2000), "name": "follow", "plan": {
                "type": "Spring", "property": "x", "to": [index % 1000], "stiffness": 300, "damping": 30}})
            index += 1
            if index % 500 == 0:
                count(client.reply(client.next).get("error", {}).get("code", "ok"))
        count("replacements %d" % index)
    elif name == "retune":
        # Its own overlay's tokens in 1,024 running Sequences of a tween and 50 springs (a uid's limit of
        # remembered plans), then the spring token changed again and again: each change carries every
        # one of them on (~600 ms of the engine at once, before retunes were sliced).
        overlay = lambda stiffness: {"scope": "user", "theme": {"name": "attacker", "springs": {"s": {"stiffness": stiffness, "dampingRatio": 0.05}},
                                                              "durations": {"d": 5}, "timings": {"t": "ease-in"}}}
        count(client.code("theme.set", overlay(1)))
        client.call("runtime.create", {"name": "tuned", "ephemeral": True})
        steps = [{"type": "Tween", "property": "p", "to": [1e6], "duration": "@d", "timing": "@t"}] + \
                [{"type": "Spring", "property": "p", "to": [i], "spring": "@s"} for i in range(50)]
        for index in range(1024):
            client.send("plan.add", {"runtime": "tuned", "target": "t%d" % index, "plan": {"type": "Sequence", "steps": steps}})
            if index % 64 == 63:
                count(client.reply(client.next).get("error", {}).get("code", "ok"))
        stiffness = 1
        while time.monotonic() < end:
            stiffness = 3 - stiffness
            count(client.code("theme.set", overlay(stiffness)))
    elif name == "replay":
        # A timeline replay of 1,000 four-component springs to 120 s, again and again (sixteen of its
        # steps between two looks at the clock held every frame ~30 ms).
        client.call("runtime.create", {"name": "replayed", "ephemeral": True})
        for index in range(1000):
            client.send("plan.add", {"runtime": "replayed", "target": "s%d" % index, "plan": {
                "type": "Spring", "property": "x", "from": [0, 0, 0, 0], "to": [1000, 1000, 1000, 1000], "tension": 1, "damping": 0.001}})
        client.reply(client.next)
        offset = 0
        count(client.code("timeline.attach", {"runtime": "replayed", "offset": 120}))
        while time.monotonic() < end:
            offset = 120 - offset
            count(client.code("timeline.scrub", {"runtime": "replayed", "offset": offset}))
    elif name == "keys":
        # Pages of ~200 KB of `runtime.state`, each with a key of its own: every answer remembered for ten
        # minutes held 1.7 GB of one uid before a uid's remembered answers were bounded in bytes.
        client.call("runtime.create", {"name": "keyed", "ephemeral": True})
        long = "n" * 250
        for index in range(1000):
            client.send("plan.add", {"runtime": "keyed", "target": "%s%d" % (long, index), "plan": {"type": "Set", "property": long, "value": [index]}})
        client.reply(client.next)
        index = 0
        while time.monotonic() < end:
            ids = []
            for _ in range(16):
                index += 1
                ids.append(client.send("runtime.state", {"runtime": "keyed"}, key="k%d" % index))
            for id in ids:
                count("ok" if "result" in client.reply(id) else "error")
    elif name == "leaving":
        # Connections that each take 16 filters of 4,096 targets (the uid's filterTargets quota) and close at
        # once: what they held leaves the filter index a slice at a time between frames.
        while time.monotonic() < end:
            other = Client(path)
            other.call("hello", {"protocol": 1, "client": "leaving"})
            for j in range(16):
                other.send("subscribe", {"streams": ["frames"], "targets": ["l%d_%d" % (j, k) for k in range(4096)]})
            count(other.reply(other.next).get("error", {}).get("code", "subscribed"))
            other.sock.close()
    elif name == "displays":
        # Display-timed subscriptions at four periods that are not the victim's: the engine steps for each
        # display; the victim, on the --rate clock, must see neither a gap nor a `dropped` for them.
        for period in (0.016, 0.017, 0.018, 0.019):
            count(client.code("subscribe", {"streams": ["frames"], "display": {"period": period, "latency": 0.1, "lead": 0.05}}))
        while time.monotonic() < end:
            time.sleep(0.1)
    elif name == "tokens":
        # Its overlay at its quota of 256 tokens, set again and again: each spring and timing token is tried
        # in a plan of its plugin (a dry run) before the overlay is taken.
        version = 0
        while time.monotonic() < end:
            version = 1 - version
            springs = {"s%d" % i: {"stiffness": 100 + i + version, "dampingRatio": 0.5} for i in range(128)}
            timings = {"t%d" % i: [0.2, 0.1 * version, 0.1 * (i % 10), 1] for i in range(128)}
            count(client.code("theme.set", {"scope": "user", "theme": {"name": "many", "springs": springs, "timings": timings}}))
    elif name == "idle":
        held = []
        for _ in range(1100):
            try:
                sock = socket.socket(socket.AF_UNIX)
                sock.connect(path)
                held.append(sock)
            except OSError:
                count("refused")
                break
        count("held %d" % len(held))
        while time.monotonic() < end:
            time.sleep(0.1)
    print(json.dumps(seen))


def hold(path, count):
    """Runs in the attacker's process: adds `count` moving springs, says so, and holds them until stdin
    closes."""
    client = Client(path)
    client.call("hello", {"protocol": 1, "client": "holder"})
    client.call("runtime.create", {"name": "held", "ephemeral": True})
    for index in range(count):
        client.send("plan.add", {"runtime": "held", "target": "h%d" % index, "plan": {
            "type": "Spring", "property": "x", "from": [0], "to": [1000], "tension": 1, "damping": 0.001, "threshold": 1e-9}})
        if index % 500 == 499 or index == count - 1:
            client.reply(client.next)
    print("held", flush=True)
    sys.stdin.read()


def resident_mib(pid, settle=0):
    """The daemon's resident memory (MiB) now, or after `settle` seconds (what it kept); None without a pid."""
    if pid is None:
        return None
    time.sleep(settle)
    with open("/proc/%d/status" % pid) as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return round(int(line.split()[1]) / 1024, 1)


def rss_peak(pid):
    """VmHWM: the most it ever held, in MiB."""
    if pid is None:
        return None
    with open("/proc/%d/status" % pid) as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return round(int(line.split()[1]) / 1024, 1)


def main():
    args = sys.argv[1:]
    if args and args[0] == "--attack":
        attack(args[1], args[2], float(args[3]))
        return
    if args and args[0] == "--subscriber":
        exhaustion.subscriber(args[1])
        return
    if args and args[0] == "--hold":
        hold(args[1], int(args[2]))
        return
    path, uid, seconds, chosen, held, daemon_pid = args[0], None, 5.0, [], 0, None
    rest = args[1:]
    while rest:
        option = rest.pop(0)
        if option == "--uid":
            uid = rest.pop(0)
        elif option == "--seconds":
            seconds = float(rest.pop(0))
        elif option == "--hold":
            held = int(rest.pop(0))
        elif option == "--daemon-pid":
            daemon_pid = int(rest.pop(0))
        else:
            chosen.append(option)
    as_uid = (lambda command: ["setpriv", "--reuid=" + uid, "--regid=" + uid, "--clear-groups"] + command) if uid else (lambda command: command)
    holder = None
    if held:
        holder = subprocess.Popen(as_uid([sys.executable, os.path.abspath(__file__), "--hold", path, str(held)]),
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        holder.stdout.readline()
    for name in chosen or ATTACKS:
        rss_before = resident_mib(daemon_pid)
        result = {"ready": threading.Event()}
        duration = max(seconds, MINIMUM_SECONDS.get(name, 0))
        watcher = threading.Thread(target=victim, args=(path, duration, result))
        watcher.start()
        result["ready"].wait()
        command = as_uid([sys.executable, os.path.abspath(__file__), "--attack", path, name, str(duration)])
        attacker = subprocess.run(command, capture_output=True, text=True, timeout=duration + 120)
        watcher.join()
        summary = attacker.stdout.strip().splitlines()[-1] if attacker.stdout.strip() else attacker.stderr.strip()[-300:]
        print(json.dumps({"attack": name, "victim_fps": result["fps"], "victim_max_gap_ms": result["max_gap_ms"], "victim_dropped": result["dropped"],
                          "frame_clock_max_gap_ms": result.get("max_t_gap_ms"), "delivery_max_late_ms": result.get("max_late_ms"),
                          "victim_requests": result["requests"], "victim_request_max_ms": result["request_max_ms"],
                          "attacker_uid": uid or os.getuid(), "held_springs": held, "attacker_saw": summary,
                          "daemon_rss_mib": [rss_before, rss_peak(daemon_pid), resident_mib(daemon_pid, settle=2)]}), flush=True)
        time.sleep(1)
    if holder:
        holder.stdin.close()
        holder.wait()


if __name__ == "__main__":
    main()
