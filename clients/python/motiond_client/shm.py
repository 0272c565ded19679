"""The shared-memory frame channel's reader (docs/clients.md, layout in motion_frames.h) via mmap.

A `transport: "shm"` subscription's region holds one slot per property (value and velocity under a
seqlock), a ring of frame records and a ring of changed-slot indices. `FrameReader.read()` returns the
slots changed since the previous call, each once with its latest value; the daemon never waits for it.
"""
from __future__ import annotations
import mmap
import os
import struct
from typing import Any, Dict, Iterator, List, Optional, Tuple, cast

# A JSON object as parsed by json.loads (a result or an event).
JSONObject = Dict[str, Any]

MAGIC = b"MOTF"
VERSION_MAJOR = 1
ALL_CHANGED = 0xFFFFFFFF
COMPONENTS = 4

# motion_frames_header (128 bytes): magic, major, minor, header/slot/record sizes, capacities, offsets,
# total size, frame, changes_written, slots_used, flags.
_HEADER = struct.Struct("=4sHHIIIIIIQQQQQQII")
_FRAME_AT = 64            # offsetof(motion_frames_header, frame)
_CHANGES_WRITTEN_AT = 72
_SLOTS_USED_AT = 80
_RECORD = struct.Struct("=QQIIdd")     # frame, first_change, change_count, dropped, time, present
_SLOT_HEAD = struct.Struct("=IIII")    # sequence, tag, components, reserved
_SLOT_VALUES = struct.Struct("=8d")
_U64 = struct.Struct("=Q")
_U32 = struct.Struct("=I")


class FrameReader:
    """Maps a region's descriptor read-only (taking the descriptor). `names` maps a slot to
    (tag, runtime, target, property), filled from the `slots` events the client hands it."""

    minor: int
    slot_capacity: int
    record_capacity: int
    change_capacity: int
    slots_offset: int
    records_offset: int
    changes_offset: int

    def __init__(self, fd: int, sub: Optional[int] = None) -> None:
        self.sub = sub
        self.names: Dict[int, Tuple[int, Optional[str], Optional[str], Optional[str]]] = {}
        self.announced: Optional[int] = None   # a client's reader reads only frames announced on its socket
        self._map(fd)

    def _map(self, fd: int) -> None:
        try:
            size = os.fstat(fd).st_size
            self.region = mmap.mmap(fd, size, mmap.MAP_SHARED, mmap.PROT_READ)
        finally:
            os.close(fd)
        fields = _HEADER.unpack_from(self.region, 0)
        (magic, major, self.minor, header_size, slot_size, record_size, self.slot_capacity,
         self.record_capacity, self.change_capacity, self.slots_offset, self.records_offset,
         self.changes_offset, total_size) = fields[:13]
        if magic != MAGIC:
            raise ValueError("shm: no MOTF magic")
        if major != VERSION_MAJOR:
            raise ValueError(f"shm: unsupported major version {major}")
        if slot_size != 80 or record_size != 40 or header_size < 128:
            raise ValueError("shm: a layout with other slot or record sizes")
        if total_size > size:
            raise ValueError("shm: the region is shorter than its header says")
        self.last_frame = 0
        self.names = {}

    def remap(self, fd: int) -> None:
        """A restarted daemon's region for the same subscription."""
        self.region.close()
        self._map(fd)
        self.announced = 0 if self.announced is not None else None

    @property
    def frame(self) -> int:
        return cast(int, _U64.unpack_from(self.region, _FRAME_AT)[0])

    def slot(self, index: int) -> Tuple[int, int, Tuple[float, ...], Tuple[float, ...]]:
        """(tag, components, value, velocity) of one slot, consistent (seqlock)."""
        offset = self.slots_offset + index * 80
        region = self.region
        while True:
            sequence, tag, components, _ = _SLOT_HEAD.unpack_from(region, offset)
            if sequence & 1:
                continue
            numbers = _SLOT_VALUES.unpack_from(region, offset + 16)
            if _U32.unpack_from(region, offset)[0] == sequence:
                count = min(components, COMPONENTS)
                return tag, count, numbers[:count], numbers[4:4 + count]

    def _changed(self) -> List[int]:
        newest = self.frame
        if self.announced is not None:
            newest = min(newest, self.announced)
        if newest == self.last_frame:
            return []
        changed, seen = [], set()
        lapped = newest < self.last_frame or newest - self.last_frame >= self.record_capacity
        mask = self.change_capacity - 1
        frame = self.last_frame + 1
        while not lapped and frame <= newest:
            offset = self.records_offset + (frame & (self.record_capacity - 1)) * 40
            record_frame, first, count, _, _, _ = _RECORD.unpack_from(self.region, offset)
            if record_frame != frame or count == ALL_CHANGED or count > self.change_capacity \
                    or _U64.unpack_from(self.region, offset)[0] != frame:
                lapped = True
                break
            for position in range(first, first + count):
                index = _U32.unpack_from(self.region, self.changes_offset + (position & mask) * 4)[0]
                if index not in seen:
                    seen.add(index)
                    changed.append(index)
            if _U64.unpack_from(self.region, _CHANGES_WRITTEN_AT)[0] > first + self.change_capacity:
                lapped = True
            frame += 1
        if lapped:
            used = _U32.unpack_from(self.region, _SLOTS_USED_AT)[0]
            if self.announced is not None:
                used = min(used, max(self.names, default=-1) + 1)
            changed.extend(index for index in range(min(used, self.slot_capacity)) if index not in seen)
        self.last_frame = newest
        return changed

    def read(self) -> List[Tuple[int, int, Tuple[float, ...], Tuple[float, ...]]]:
        """The slots changed since the last call: a list of (slot, tag, value, velocity)."""
        out = []
        for index in self._changed():
            tag, _, value, velocity = self.slot(index)
            out.append((index, tag, value, velocity))
        return out

    def updates(self) -> Iterator[Tuple[Optional[str], Optional[str], Optional[str], List[float], List[float]]]:
        """Like read(), named: (runtime, target, property, value, velocity) for slots whose names came."""
        for index, tag, value, velocity in self.read():
            name = self.names.get(index)
            if name and name[0] == tag:
                yield name[1], name[2], name[3], list(value), list(velocity)

    def apply(self, event: JSONObject) -> None:
        """Takes a `slots` event (names) or a frame announcement (`shm`) meant for this subscription."""
        if event.get("event") == "slots":
            for entry in event.get("slots", []):
                self.names[entry["slot"]] = (entry.get("tag", 0), entry.get("runtime"), entry.get("target"),
                                             entry.get("property"))
        elif event.get("event") == "frame" and "shm" in event and self.announced is not None:
            self.announced = event["shm"]

    def close(self) -> None:
        self.region.close()
