"""Clients for motiond, the motion daemon: JSON lines over its Unix socket (docs/protocol.md).

    from motiond_client import Client
    with Client() as client:                       # default socket rules; says hello
        client.subscribe(streams=["frames"], targets=["card"])
        client.call("plan.add", target="card", plan={"type": "Spring", "property": "x", "to": [100]})
        for event in client.events():              # reconnects and resubscribes if motiond restarts
            ...

`Client(socket).call(method, params)` returns the result as a dict; `client.stream(**subscribe_params)` is one
subscription's events as an iterator. `AsyncClient` (motiond_client.aio) connects, calls and yields events
(`async for event in client.events()`) the same way for asyncio. `Client.subscribe_shm` reads frames from shared
memory (`FrameReader`, mmap). Standard library only.
"""
from __future__ import annotations
from .client import Client, MotiondError, Subscription, default_socket
from .aio import AsyncClient
from .shm import FrameReader

__all__ = ["Client", "AsyncClient", "FrameReader", "MotiondError", "Subscription", "default_socket"]
__version__ = "1.0.0"
