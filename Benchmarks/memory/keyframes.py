#!/usr/bin/env python3
"""Issue #45's memory attack, measured (docs/protocol.md#ownership-and-quotas, `planBytes`).

    Benchmarks/memory/keyframes.py SOCKET PID [COUNT]

Adds up to COUNT (3,000) `Keyframes` plans of 1,000 values (9 KB of JSON each, 600 s long) to an
ephemeral runtime of this connection, one target each, until one is refused; prints how many went in, the
refusal, the daemon's resident memory (PID's VmRSS) before and after, and after the runtime is destroyed
(a runtime is freed between frames, and the freed memory given back to the system a second later)."""
import json, socket, sys, time

path, pid = sys.argv[1], int(sys.argv[2])
count = int(sys.argv[3]) if len(sys.argv) > 3 else 3000
s = socket.socket(socket.AF_UNIX); s.connect(path); f = s.makefile("rw")


def rss_mb():
    line = next(l for l in open(f"/proc/{pid}/status") if l.startswith("VmRSS"))
    return int(line.split()[1]) / 1024


def call(i, method, params):
    f.write(json.dumps({"id": i, "method": method, "params": params}) + "\n"); f.flush()
    while True:
        reply = json.loads(f.readline())
        if reply.get("id") == i:
            return reply


call(0, "hello", {"protocol": 1})
call(1, "runtime.create", {"name": "keyframes", "ephemeral": True})
before = rss_mb()
plan = {"type": "Keyframes", "property": "x", "values": [[float(i)] for i in range(1000)], "duration": 600}
added, refusal = 0, None
for i in range(count):
    reply = call(2 + i, "plan.add", {"runtime": "keyframes", "target": "t%d" % i, "plan": plan})
    if "error" in reply:
        refusal = reply["error"]
        break
    added += 1
held = rss_mb()
call(10**7, "runtime.destroy", {"name": "keyframes"})
time.sleep(3)  # freed between frames, then given back to the system after a second
print(json.dumps({"added": added, "refusal": refusal, "rss_mb": {"before": round(before, 1), "holding": round(held, 1),
                  "after_destroy": round(rss_mb(), 1)}, "per_plan_kb": round((held - before) * 1024 / max(added, 1), 1)}))
