#!/usr/bin/env python3
"""A client for Benchmarks/journal/run: `add SOCKET` adds 10,000 never-settling springs to a lasting
runtime, pipelined, and prints plans per second; `state SOCKET` prints what came back after a restart."""
import json, socket, sys, time, os, subprocess, signal
mode = sys.argv[1]; path = sys.argv[2]
s = socket.socket(socket.AF_UNIX); s.connect(path); f = s.makefile("rwb")
n = 0
def send(m, p):
    global n; n += 1; f.write((json.dumps({"id": n, "method": m, "params": p}) + "\n").encode()); return n
def wait(i):
    f.flush()
    while True:
        r = json.loads(f.readline())
        if r.get("id") == i: return r
wait(send("hello", {"protocol": 1}))
if mode == "add":
    wait(send("runtime.create", {"name": "work"}))
    start = time.monotonic()
    for i in range(10000):
        send("plan.add", {"runtime": "work", "target": "s%d" % i, "plan": {"type": "Spring", "property": "x", "from": [0], "to": [1000], "tension": 1, "damping": 0.001, "threshold": 1e-9}})
    r = wait(n)
    print(json.dumps({"plans_per_s": round(10000 / (time.monotonic() - start)), "last": list(r.keys())}))
else:
    r = wait(send("runtime.state", {"runtime": "work", "limit": 1}))["result"]
    st = wait(send("status", {}))["result"]
    print(json.dumps({"targets": r["targetCount"], "active": r["active"], "animations": st["animations"]}))
