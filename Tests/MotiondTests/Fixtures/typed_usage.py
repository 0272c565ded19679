"""A client program with type hints, as a user of motiond_client writes it: `mypy --strict` must accept it
against the package's own annotations (py.typed). Checked, not run (PythonPackageTests)."""
import asyncio
from typing import Any, Dict, List, Optional

from motiond_client import AsyncClient, Client, FrameReader, MotiondError


def settle(socket: str) -> List[float]:
    values: List[float] = []
    with Client(socket, name="typed") as client:
        hello = client.hello
        assert hello is not None and hello["server"] == "motiond"
        sub: int = client.subscribe(streams=["frames", "trace"], targets=["card"])
        result: Dict[str, Any] = client.call("plan.add", target="card", plan={"type": "Spring", "property": "x", "to": [1]},
                                             idempotency_key="card-1")
        assert result["target"] == "card"
        for event in client.events(timeout=2):
            for _runtime, _target, _property, value, _velocity in Client.updates(event):
                values.append(float(value[0]))
            if event.get("kind") == "runtime.idle":
                break
        waiting: Optional[Dict[str, Any]] = client.next_event(timeout=0)
        del waiting, sub
        try:
            client.call("plan.add", target="card", plan={"type": "Nope"})
        except MotiondError as error:
            code: str = error.code
            del code
        shm: int
        reader: FrameReader
        shm, reader = client.subscribe_shm(targets=["card"])
        del shm, reader
    return values


async def settle_async(socket: str) -> Optional[Dict[str, Any]]:
    async with AsyncClient(socket, name="typed-async") as client:
        await client.call("plan.add", {"target": "card", "plan": {"type": "Spring", "property": "x", "to": [2]}})
        async for event in client.events():
            if event.get("kind") == "runtime.idle":
                return event
    return None


if __name__ == "__main__":
    print(settle("/run/motiond/motiond.sock"), asyncio.run(settle_async("/run/motiond/motiond.sock")))
