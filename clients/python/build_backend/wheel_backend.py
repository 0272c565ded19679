"""A PEP 517 build backend for this one pure-Python package, standard library only: a wheel is a zip
of the package and its dist-info (PEP 427), so no setuptools or wheel download is needed."""
import base64
import hashlib
import os
import zipfile

NAME, DIST, VERSION = "motiond-client", "motiond_client", "1.0.0"
HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TAG = "py3-none-any"

METADATA = f"""Metadata-Version: 2.1
Name: {NAME}
Version: {VERSION}
Summary: Blocking and asyncio clients for motiond, the motion daemon
Requires-Python: >=3.8
"""
WHEEL = f"""Wheel-Version: 1.0
Generator: motiond wheel_backend
Root-Is-Purelib: true
Tag: {TAG}
"""


def _record(path, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{path},sha256={digest},{len(data)}"


def _files():
    package = os.path.join(HERE, DIST)
    for name in sorted(os.listdir(package)):
        if name.endswith(".py") or name == "py.typed":  # py.typed: the PEP 561 marker (inline types)
            with open(os.path.join(package, name), "rb") as source:
                yield f"{DIST}/{name}", source.read()


def _write_wheel(directory, files):
    info = f"{DIST}-{VERSION}.dist-info"
    path = os.path.join(directory, f"{DIST}-{VERSION}-{TAG}.whl")
    entries = list(files) + [(f"{info}/METADATA", METADATA.encode()), (f"{info}/WHEEL", WHEEL.encode())]
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        records = []
        for name, data in entries:
            archive.writestr(name, data)
            records.append(_record(name, data))
        records.append(f"{info}/RECORD,,")
        archive.writestr(f"{info}/RECORD", "\n".join(records) + "\n")
    return os.path.basename(path)


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_editable(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    return _write_wheel(wheel_directory, _files())


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    # A .pth file pointing at the source tree.
    return _write_wheel(wheel_directory, [(f"{DIST}.pth", (HERE + "\n").encode())])
