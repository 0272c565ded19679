"""PythonPackageTests: the installed motiond_client package against a real daemon (argv[1]: socket).
Prints one line per check; argv[2] == "restart" waits for the test to restart the daemon."""
import asyncio
import sys

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


async def main():
    async with await AsyncClient.connect(path) as client:
        sub = await client.subscribe(streams=["frames", "trace"], targets=["ball"])
        await client.call("plan.add", target="ball", plan={"type": "Spring", "property": "y", "to": [50]})
        async for event in client.events():
            if event.get("kind") == "animation.ended":
                break
        state = await client.call("runtime.state")
        print("asyncio", sub, state["targets"]["ball"]["properties"]["y"]["value"])

asyncio.run(main())

if len(sys.argv) > 2 and sys.argv[2] == "restart":
    with Client(path) as client:
        client.subscribe(streams=["frames"], targets=["after"])
        client.call("runtime.create", name="waiting", ephemeral=True)  # tells the test to restart the daemon
        print("waiting", flush=True)
        reconnected = False
        for event in client.events(timeout=20):
            if event.get("event") == "reconnected":
                reconnected = True
                print("reconnected", flush=True)
            elif event.get("event") == "frame" and reconnected:
                print("frame after restart", flush=True)
                break
