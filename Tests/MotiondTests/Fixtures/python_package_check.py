"""PythonPackageTests: the installed motiond_client package against a real daemon (argv[1]: socket).
Prints one line per check; argv[2] == "restart" waits for the test to restart the daemon."""
import asyncio
import sys
import threading
import time

from motiond_client import AsyncClient, Client, MotiondError

path = sys.argv[1]

with Client(path) as client:
    assert client.hello["clock"] == "monotonic", client.hello
    sub = client.subscribe(streams=["frames"], targets=["card"])
    client.call("plan.add", target="card", plan={"type": "Tween", "property": "x", "from": [0], "to": [100], "duration": 0.2})
    try:
        client.call("plan.add", target="card", plan={"type": "Tween", "property": "x", "to": [1], "dampng": 1})
    except MotiondError as error:
        print("error", error.code)
    last = None
    for event in client.events(timeout=5):
        for runtime, target, prop, value, velocity in Client.updates(event):
            last = value
        if last == [100]:
            break
    print("blocking", sub, last)
    # Values JSON cannot carry are refused by the client (the daemon's answer to an unreadable line has no
    # id to match a call by: the call would wait for ever), and the connection goes on.
    for bad in ({"type": "Spring", "property": "x", "to": [float("nan")]}, {"type": "Set", "property": "x\udcff", "value": [1]}):
        try:
            client.call("plan.add", target="card", plan=bad)
        except MotiondError as error:
            print("refused", error.code)
    assert client.call("status")["clients"] >= 1

    # The pinned call shape (docs/clients.md): Client(socket=…).call(method, params) -> dict, and a
    # subscription as an iterator of its own events.
with Client(socket=path) as client:
    status = client.call("status", None)
    assert isinstance(status, dict) and isinstance(client.call("status", {}), dict), status
    frames = client.stream(streams=["frames"], targets=["it"])
    other = client.subscribe(streams=["frames"], targets=["other"])
    client.call("plan.add", {"target": "other", "plan": {"type": "Set", "property": "x", "value": [1]}})
    client.call("plan.add", {"target": "it", "plan": {"type": "Set", "property": "x", "value": [7]}})
    event = next(iter(frames))
    assert event["sub"] == frames.sub, event
    print("stream", [update["value"] for update in event["updates"]], "kept", next(client.events(timeout=5))["sub"] == other)

    # Shared-memory frames (docs/clients.md): the region via mmap, its slots named by events.
    # One made with call() gets no reader: its descriptor must not be the next reader's (nor, after the
    # restart below, the remapped one's).
    client.call("subscribe", streams=["frames"], transport="shm", slots=1024)
    shm_sub, reader = client.subscribe_shm(targets=["s1", "s2"])
    print("shm region", bytes(reader.region[:4]).decode(), reader.slot_capacity)
    for target, to in (("s1", 10), ("s2", 20)):
        client.call("plan.add", target=target, plan={"type": "Tween", "property": "x", "from": [0], "to": [to], "duration": 0.2})
    latest = {}
    for event in client.events(timeout=5):
        if event.get("event") == "frame" and event.get("sub") == shm_sub:
            assert "updates" not in event, event
            for runtime, target, prop, value, velocity in reader.updates():
                latest[target] = value
        if latest.get("s1") == [10] and latest.get("s2") == [20]:
            break
    print("shm values", latest.get("s1"), latest.get("s2"))


async def main():
    async with await AsyncClient.connect(path) as client:
        sub = await client.subscribe(streams=["frames", "trace"], targets=["ball"])
        try:
            await asyncio.wait_for(client.call("plan.add", target="ball", plan={"type": "Set", "property": "y", "value": [float("inf")]}), 5)
        except MotiondError as error:
            print("asyncio refused", error.code)
        await client.call("plan.add", target="ball", plan={"type": "Spring", "property": "y", "to": [50]})
        async for event in client.events():
            if event.get("kind") == "animation.ended":
                break
        state = await client.call("runtime.state")
        print("asyncio", sub, state["targets"]["ball"]["properties"]["y"]["value"])

asyncio.run(main())

if len(sys.argv) > 2 and sys.argv[2] == "restart":
    with Client(path) as client:
        # Made with a plain call and unsubscribed: not made again after the restart, and the later
        # subscriptions keep their ids.
        unwanted = client.call("subscribe", streams=["frames"], targets=["unwanted"])["sub"]
        after = client.subscribe(streams=["frames"], targets=["after"])
        client.call("subscribe", streams=["frames"], transport="shm", slots=1024)  # no reader: made again without one
        shm_sub, reader = client.subscribe_shm(targets=["after"])
        client.call("unsubscribe", sub=unwanted)
        # Polling with timeout 0 (as after select) keeps the connection when nothing is there to read.
        client.call("runtime.create", name="idle", ephemeral=True)
        polled = [client.next_event(timeout=0) for _ in range(20)]
        client.call("runtime.state", runtime="idle")  # raises runtime.not_found if the connection was made again
        if not any(event and event.get("event") == "reconnected" for event in polled):
            print("timeout 0 keeps the connection", flush=True)
        # A second client that only makes calls: its first call after the restart finds the connection
        # gone, its next reconnects, and its events say "reconnected" all the same.
        caller = Client(path)
        # And an asyncio client on a loop of its own thread that also only calls.
        loop = asyncio.new_event_loop()
        threading.Thread(target=loop.run_forever, daemon=True).start()
        def on_loop(coroutine, timeout=30):
            return asyncio.run_coroutine_threadsafe(coroutine, loop).result(timeout)
        async_caller = on_loop(AsyncClient.connect(path))
        # Clients whose next call, keyed, is sent again across the restart (docs/protocol.md#idempotency-keys).
        keyed = Client(path)
        async_keyed = on_loop(AsyncClient.connect(path))
        client.call("runtime.create", name="waiting", ephemeral=True)  # tells the test to restart the daemon
        print("waiting", flush=True)
        reconnected = False
        longest = 0.0

        def polled_events(seconds):
            """Events from next_event(timeout=0) polls, as a select loop would make them."""
            global longest
            deadline = time.monotonic() + seconds
            while time.monotonic() < deadline:
                started = time.monotonic()
                event = client.next_event(timeout=0)
                longest = max(longest, time.monotonic() - started)
                if event is None:
                    time.sleep(0.01)
                else:
                    yield event

        # Until the new daemon is back and its frames came (a stop and a start under load took over 20 s).
        for event in polled_events(100):
            if event.get("event") == "reconnected":
                reconnected = True
                print("reconnected", flush=True)
                client.call("plan.add", target="unwanted", plan={"type": "Set", "property": "x", "value": [1]})
            elif event.get("event") == "frame" and event.get("sub") == unwanted:
                print("a frame for the unsubscribed subscription", event, flush=True)
            elif event.get("event") == "frame" and reconnected and event.get("sub") == shm_sub:
                # The new daemon's region, mapped again by the client.
                if any(target == "after" for _, target, _, _, _ in reader.updates()):
                    print("shm after restart", reader.slot_capacity, flush=True)
                    break
            elif event.get("event") == "frame" and reconnected and event.get("sub") == after:
                print("frame after restart", flush=True)
        for event in client.events(timeout=0.5):
            if event.get("event") == "frame" and event.get("sub") == unwanted:
                print("a frame for the unsubscribed subscription", event, flush=True)
        try:
            caller.call("status")
        except ConnectionError:
            pass  # the call that found the connection gone (never replayed)
        caller.call("status")
        event = caller.next_event(timeout=1)
        print("a call noticed the restart:", event.get("event") if event else None, flush=True)
        caller.close()
        created = keyed.call("runtime.create", name="keyed", ephemeral=True, idempotency_key="create-keyed")
        again = keyed.call("runtime.create", name="keyed", ephemeral=True, idempotency_key="create-keyed")
        print("a keyed call was sent again:", created == again and created["runtime"] == "keyed", flush=True)
        keyed.close()
        result = on_loop(async_keyed.call("runtime.create", name="async-keyed", ephemeral=True, idempotency_key="create-async"))
        print("an asyncio keyed call was sent again:", result["runtime"] == "async-keyed", flush=True)
        on_loop(async_keyed.close())

        async def call_then_event():
            try:
                await async_caller.call("status")
            except ConnectionError:
                await async_caller.call("status")  # the call that found the connection closing
            # What the old daemon said as it stopped (server.shutting_down) comes first.
            while True:
                event = await asyncio.wait_for(async_caller.next_event(), 5)
                if event.get("event") == "reconnected":
                    return event
        event = on_loop(call_then_event())
        print("an asyncio call noticed the restart:", event.get("event"), flush=True)
        on_loop(async_caller.close())
        print("unsubscribed stays unsubscribed", flush=True)
        # Never the backoff's wait (9 s used to pass in one call); a due attempt's hello and resubscribe
        # take a few milliseconds, more on a loaded machine.
        if longest < 1.5:
            print("timeout 0 never blocks", flush=True)
        else:
            print(f"timeout 0 blocked for {longest:.2f} s", flush=True)
