#!/usr/bin/env python3
"""A client for Benchmarks/journal/run.

`add SOCKET [COUNT] [KIND]` adds COUNT (10,000) never-settling animations to a lasting runtime, one target
each, a thousand requests in flight, and prints plans per second; KIND is `spring` (a spring that never
settles) or `tween` (a tween repeated forever, autoreversing: issue #46's journal).
`state SOCKET` prints what came back after a restart."""
import json, socket, sys, time

mode = sys.argv[1]; path = sys.argv[2]
count = int(sys.argv[3]) if len(sys.argv) > 3 else 10000
kind = sys.argv[4] if len(sys.argv) > 4 else "spring"
s = socket.socket(socket.AF_UNIX); s.connect(path); f = s.makefile("rwb")
n = 0


def send(m, p):
    global n
    n += 1
    f.write((json.dumps({"id": n, "method": m, "params": p}) + "\n").encode())
    return n


def wait(i):
    f.flush()
    while True:
        r = json.loads(f.readline())
        if r.get("id") == i:
            return r


wait(send("hello", {"protocol": 1}))
if mode == "add":
    wait(send("runtime.create", {"name": "work"}))
    if kind == "tween":
        plan = {"type": "Tween", "property": "x", "from": [0], "to": [1000], "duration": 1, "repeat": "forever", "autoreverse": True}
    else:
        plan = {"type": "Spring", "property": "x", "from": [0], "to": [1000], "tension": 1, "damping": 0.001, "threshold": 1e-9}
    start = time.monotonic()
    errors = 0
    for i in range(count):
        last = send("plan.add", {"runtime": "work", "target": "s%d" % (i // 10 if kind == "tween" else i), "plan": dict(plan, property="p%d" % (i % 10)) if kind == "tween" else plan})
        if (i + 1) % 1000 == 0 or i + 1 == count:
            errors += "error" in wait(last)
    print(json.dumps({"plans_per_s": round(count / (time.monotonic() - start)), "errors": errors}))
else:
    r = wait(send("runtime.state", {"runtime": "work", "limit": 1}))["result"]
    st = wait(send("status", {}))["result"]
    print(json.dumps({"targets": r["targetCount"], "active": r["active"], "animations": st["animations"]}))
