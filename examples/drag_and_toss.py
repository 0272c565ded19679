#!/usr/bin/env python3
"""Drives a drag and a toss from a scripted pointer (standard library only; docs/vocabulary.md#interactions).

    python3 examples/drag_and_toss.py [SOCKET]

A `Draggable` slider is pulled past its bound (it rubber-bands), then a `Tossable` card is thrown at
1,000 units/s and springs to the snap point nearest where it would have coasted to. Samples carry
time.monotonic(), which on Linux is the daemon's CLOCK_MONOTONIC (hello reports clock and now).
"""
import os
import sys
import time

# The client of examples/motion_client.py (standard library only), next to this file.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from motion_client import Client, default_socket  # noqa: E402


def latest(client, target, prop):
    """The last value of target.prop among the events received so far."""
    value = None
    for event in client.events:
        for update in event.get("updates", []):
            if update["target"] == target and update["property"] == prop:
                value = update["value"]
    return value


def drag(client, runtime, gesture, positions, phase_end="ended", step=0.008):
    """Pushes one sample per position, `step` seconds apart, then the release."""
    for index, position in enumerate(positions):
        client.call("gesture.push", runtime=runtime, gesture=gesture,
                    samples=[{"t": time.monotonic(), "position": position, "phase": "began" if index == 0 else "moved"}])
        time.sleep(step)
    client.call("gesture.push", runtime=runtime, gesture=gesture,
                samples=[{"t": time.monotonic(), "position": positions[-1], "phase": phase_end}])


def main():
    client = Client(sys.argv[1] if len(sys.argv) > 1 else default_socket())
    hello = client.call("hello", protocol=1, client="drag_and_toss.py")
    if hello.get("clock") != "monotonic" or abs(hello["now"] - time.monotonic()) > 5:
        print("the daemon's clock is not this machine's CLOCK_MONOTONIC; samples would be mistimed")
        return 1
    runtime = "example.drag"
    client.call("runtime.create", name=runtime, ephemeral=True)
    client.call("subscribe", streams=["frames", "trace"], runtime=runtime)

    # A slider from 0 to 100: pulled 150 to the right, it stops short of 150 (rubber band).
    client.call("plan.add", runtime=runtime, target="slider",
                plan={"type": "Draggable", "property": "x", "gesture": "thumb", "axis": "x",
                      "bounds": {"min": [0], "max": [100]}})
    drag(client, runtime, "thumb", [[x] for x in range(0, 151, 10)])
    slider = latest(client, "slider", "x")
    print("slider pulled to 150 shows %.2f (bound 100, rubber band past it)" % slider[0])

    # A card thrown at 1,000 units/s from 0 to 80: it would coast to about 580; the nearest snap point is 300.
    client.call("plan.add", runtime=runtime, target="card",
                plan={"type": "Tossable", "property": "x", "gesture": "finger", "axis": "x", "snap": [[0], [300]],
                      "spring": {"dampingRatio": 0.9, "response": 0.4}})
    client.events.clear()
    drag(client, runtime, "finger", [[x] for x in range(0, 81, 8)])
    card, released = None, None
    while True:
        event = client.next_event()
        for update in event.get("updates", []):
            if update["target"] == "card" and update["property"] == "x":
                card = update["value"]
        if event.get("kind") == "gesture.ended":
            released = event["velocity"][0]
            print("released at %.0f units/s from x = %.1f" % (released, event["position"][0]))
        if event.get("kind") == "runtime.idle" and released is not None:
            break
    print("card rests at %.2f" % card[0])
    return 0 if slider[0] < 150 and abs(card[0] - 300) < 1 else 1


if __name__ == "__main__":
    sys.exit(main())
