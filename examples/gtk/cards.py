#!/usr/bin/python3
"""Cards that slide in and can be flicked: a GTK 4 program whose widgets move by motiond's frames.

    python3 examples/gtk/cards.py [--socket PATH] [--record DIR] [--tosses N]

Debian: `apt install python3-gi gir1.2-gtk-4.0`. How a toolkit integrates (docs/clients.md#a-toolkit-gtk-4-examplesgtk):

- Frames are timed to the window's GdkFrameClock: the subscription follows a display whose period is the
  frame clock's refresh interval and whose vblank is a frame time, with a latency of one period, so the
  frame for the frame time F arrives about a period before F. `display.sync` re-phases it when GTK's
  frame times drift from the daemon's vblanks.
- The socket is one more source in GLib's main loop; frames wait in a queue and a tick callback, which
  GTK runs once per frame while it is installed, applies the one whose `present` is the frame time.
- A drag on a card is handed to a `Tossable`: the plan is added when the pointer goes down, every
  pointer sample is a `gesture.push` stamped with its event's time on CLOCK_MONOTONIC (the daemon's
  clock), and at release motiond springs the card to the snap point nearest where it would coast.

--record DIR (under X11) writes screenshots of the window once GTK has painted a frame (xwd, from
Debian's x11-apps) and DIR/shots.jsonl saying, for each, the frame time, the frame's `present`, the values
applied and where the card area is in the shot, and DIR/gestures.jsonl every pointer sample it pushed; the
program then quits once N tosses have come to rest (--tosses, default 1), or at SIGTERM or SIGINT.
"""
import argparse
import json
import os
import signal
import subprocess
import sys

import gi

gi.require_version("Gtk", "4.0")
gi.require_version("GdkX11", "4.0")
gi.require_version("Graphene", "1.0")
from gi.repository import GdkX11, GLib, Graphene, Gtk  # noqa: E402

try:
    from motiond_client import Client
except ImportError:  # run from a checkout: the package's sources beside this example
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "clients", "python"))
    from motiond_client import Client

RUNTIME = "gtk.cards"
WIDTH, HEIGHT = 640, 360
CARD_W, CARD_H = 120, 80
REST_X, FAR_X = 40, 480             # the two snap points of every card
COLORS = ["#c01c28", "#1a5fb4", "#26a269"]
ROWS = [30, 140, 250]
SLIDE = {"type": "Spring", "property": "x", "spring": "@spatial.slow"}   # the theme's spring, named once
CSS = "".join(".card-%d { background: %s; color: white; border-radius: 12px; }\n" % (i, c)
              for i, c in enumerate(COLORS)) + ".area { background: #f6f5f4; }"


def monotonic():
    """CLOCK_MONOTONIC in seconds: GLib's monotonic time, the clock of GTK's frame times and motiond's."""
    return GLib.get_monotonic_time() / 1e6


class Cards:
    def __init__(self, options):
        self.options = options
        self.client = Client(options.socket, name="gtk-cards")
        if self.client.hello.get("clock") != "monotonic":
            raise SystemExit("motiond's clock is not CLOCK_MONOTONIC; frames and samples would be mistimed")
        self.window = Gtk.Window(title="motiond cards")
        self.window.set_default_size(WIDTH, HEIGHT)
        self.window.connect("close-request", lambda *_: self.loop.quit())
        self.area = Gtk.Fixed(css_classes=["area"])
        self.area.set_size_request(WIDTH, HEIGHT)
        self.window.set_child(self.area)
        provider = Gtk.CssProvider()
        provider.load_from_data(CSS.encode())
        Gtk.StyleContext.add_provider_for_display(self.window.get_display(), provider,
                                                  Gtk.STYLE_PROVIDER_PRIORITY_APPLICATION)
        self.cards, self.x = {}, {}
        for index, row in enumerate(ROWS):
            name = "card-%d" % (index + 1)
            card = Gtk.Label(label=name, css_classes=["card-%d" % index], valign=Gtk.Align.START)
            card.set_size_request(CARD_W, CARD_H)
            self.area.put(card, -CARD_W, row)
            self.cards[name], self.x[name] = card, -CARD_W
        drag = Gtk.GestureDrag()
        drag.connect("drag-begin", self.drag_began)
        drag.connect("drag-update", self.dragged)
        drag.connect("drag-end", self.drag_ended)
        self.area.add_controller(drag)
        self.frames, self.sub, self.period, self.ticking = [], None, 1 / 60, None
        self.dragging, self.tossed, self.rested, self.watch, self.retrying = None, 0, 0, None, None
        self.shots, self.shot_count, self.plans = [], 0, {}
        if options.record:
            os.makedirs(options.record, exist_ok=True)
            self.log = open(os.path.join(options.record, "shots.jsonl"), "w")
            self.pushed = open(os.path.join(options.record, "gestures.jsonl"), "w")
        self.loop = GLib.MainLoop()
        for number in (signal.SIGINT, signal.SIGTERM):    # a stop asked for is a clean quit (status 0)
            GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, number, lambda: self.loop.quit() or GLib.SOURCE_REMOVE)
        self.window.add_tick_callback(self.first_tick)
        self.window.present()

    # Frames: subscribed on the first frame, when the frame clock knows its times

    def first_tick(self, widget, clock):
        frame_time = clock.get_frame_time()
        interval, _ = clock.get_refresh_info(frame_time)
        self.period = interval / 1e6 if interval > 0 else 1 / 60
        self.client.call("runtime.create", name=RUNTIME, ephemeral=True)
        self.sub = self.client.subscribe(streams=["frames", "trace"], runtime=RUNTIME, display={
            "period": self.period, "vblank": frame_time / 1e6, "latency": self.period})
        for index, name in enumerate(self.cards):
            plan = dict(SLIDE, **{"from": [-CARD_W - 160 * index], "to": [REST_X]})
            self.plans[name] = plan
            self.client.call("plan.add", runtime=RUNTIME, target=name, plan=plan)
        self.watch_socket()
        self.receive()
        return GLib.SOURCE_REMOVE

    def watch_socket(self):
        if self.watch is not None:
            GLib.source_remove(self.watch)
        self.watch = GLib.unix_fd_add_full(GLib.PRIORITY_HIGH, self.client.fileno(),
                                           GLib.IOCondition.IN | GLib.IOCondition.HUP, self.readable)

    def readable(self, fd, condition):
        current = self.watch
        self.receive()                                # a reconnect replaces this watch (watch_socket)
        if self.watch != current:
            return GLib.SOURCE_REMOVE
        if self.client.sock is None:                  # the daemon went away: retried on a timer
            self.watch = None
            return GLib.SOURCE_REMOVE
        return GLib.SOURCE_CONTINUE

    def retry(self):
        self.retrying = None
        self.receive()
        return GLib.SOURCE_REMOVE

    def receive(self):
        """Takes every event already here (a call may have read some): frames queue for the tick."""
        while True:
            event = self.client.next_event(0)
            if event is None:
                break
            if event.get("event") == "reconnected":   # motiond restarted: its runtime and plans went with it
                self.watch_socket()                   # (the client made the subscription again)
                self.client.call("runtime.create", name=RUNTIME, ephemeral=True)
                for name, plan in self.plans.items():
                    if plan is not None:              # a slide not finished goes on from where it was
                        self.client.call("plan.add", runtime=RUNTIME, target=name,
                                         plan=dict(plan, **{"from": [self.x[name]]}))
            elif event.get("event") == "frame":
                self.frames.append(event)
            elif event.get("kind") == "runtime.idle":
                self.frames.append(event)             # applied after the frame before it
        if self.client.sock is None and self.retrying is None:   # away: try again as the backoff says
            self.retrying = GLib.timeout_add(100, self.retry)
        if self.frames and self.ticking is None:
            self.ticking = self.window.add_tick_callback(self.tick)

    def tick(self, widget, clock):
        """Applies the latest frame meant for this frame time (a frame never shows before its present)."""
        frame_time = clock.get_frame_time() / 1e6
        applied = None
        while self.frames and self.frames[0].get("present", frame_time) <= frame_time + self.period / 2:
            event = self.frames.pop(0)
            if event.get("event") == "trace":
                self.at_rest()
                continue
            for update in event["updates"]:
                name, x = update["target"], update["value"][0]
                self.x[name] = x
                self.area.move(self.cards[name], x, ROWS[list(self.cards).index(name)])
            applied = event
        if applied is not None:
            drift = frame_time - applied["present"]
            if abs(drift) > self.period / 4:          # GTK's frames and the daemon's vblanks parted
                self.client.call("display.sync", sub=self.sub, vblank=frame_time)
            if self.options.record:
                self.record(clock, frame_time, applied)
        if not self.frames:
            self.ticking = None
            return GLib.SOURCE_REMOVE
        return GLib.SOURCE_CONTINUE

    def at_rest(self):
        if self.tossed > self.rested and self.dragging is None:
            self.rested += 1
            print("%s rests at %.2f" % (self.last_tossed, self.x[self.last_tossed]), flush=True)
            if self.options.record and self.rested >= self.options.tosses:
                GLib.timeout_add(200, self.loop.quit)
        elif self.tossed == 0:
            print("cards at rest", flush=True)

    # A drag handed to a Tossable

    def drag_began(self, gesture, x, y):
        hit = [name for name, card in self.cards.items()
               if self.x[name] <= x <= self.x[name] + CARD_W and ROWS[list(self.cards).index(name)] <= y <= ROWS[list(self.cards).index(name)] + CARD_H]
        if not hit:
            gesture.set_state(Gtk.EventSequenceState.DENIED)
            return
        self.dragging, self.start = hit[0], (x, y)
        self.plans[self.dragging] = None                # the drag takes over from its slide
        self.event_base, self.last_sample = None, 0.0
        plan = {"type": "Tossable", "property": "x", "gesture": self.dragging, "axis": "x",
                "snap": [[REST_X], [FAR_X]], "spring": "@spatial.default"}
        self.client.call("plan.add", runtime=RUNTIME, target=self.dragging, plan=plan)
        self.push("began", x, gesture)

    def dragged(self, gesture, dx, dy):
        if self.dragging is not None:
            self.push("moved", self.start[0] + dx, gesture)

    def drag_ended(self, gesture, dx, dy):
        if self.dragging is not None:
            self.push("ended", self.start[0] + dx, gesture)
            self.last_tossed, self.dragging = self.dragging, None
            self.tossed += 1

    def sample_time(self, gesture):
        """When the pointer was there: the event's own time (milliseconds, on the windowing system's clock),
        put on CLOCK_MONOTONIC by the offset taken at the press. A busy main loop handles events late, and
        stamping them when handled would make a flick look slow (or rested before its release)."""
        now, ms = monotonic(), gesture.get_current_event_time()
        if not ms:
            return max(now, self.last_sample)
        if self.event_base is None:
            self.event_base = now - ms / 1000
        self.last_sample = max(min(ms / 1000 + self.event_base, now), self.last_sample)
        return self.last_sample

    def push(self, phase, x, gesture):
        sample = {"t": self.sample_time(gesture), "position": [x], "phase": phase}
        self.client.call("gesture.push", runtime=RUNTIME, gesture=self.dragging, samples=[sample])
        if self.options.record:
            self.pushed.write(json.dumps(dict(sample, gesture=self.dragging)) + "\n")
            self.pushed.flush()
        GLib.idle_add(lambda: self.receive() and False)

    # Screenshots: the X server's pixels, once GTK has painted the frame (under X11: Xvfb in the tests)

    def record(self, clock, frame_time, event):
        values = {u["target"]: u["value"][0] for u in event["updates"]}
        entry = {"frameTime": frame_time, "present": event["present"], "values": dict(self.x),
                 "plans": {k: v for k, v in self.plans.items() if v and k in values},
                 "tossed": self.tossed, "file": "shot-%04d.xwd" % self.shot_count}
        self.shot_count += 1

        def painted(clock):
            clock.disconnect(handler)
            self.window.get_display().sync()          # the X server has drawn everything GTK sent
            origin = self.area.compute_point(self.window, Graphene.Point())[1]
            shadow = self.window.get_surface_transform()
            entry["area"] = [origin.x + shadow[0], origin.y + shadow[1], WIDTH, HEIGHT]
            xid = GdkX11.X11Surface.get_xid(self.window.get_surface())
            subprocess.run(["xwd", "-silent", "-id", str(xid), "-out",
                            os.path.join(self.options.record, entry["file"])], check=True)
            self.log.write(json.dumps(entry) + "\n")
            self.log.flush()
        handler = clock.connect("after-paint", painted)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--socket", help="motiond's socket (default: MOTIOND_SOCKET, then the usual places)")
    parser.add_argument("--record", metavar="DIR", help="write what GTK drew and when, then quit")
    parser.add_argument("--tosses", type=int, default=1, help="with --record: quit once this many tosses rest")
    options = parser.parse_args()
    cards = Cards(options)
    cards.loop.run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
