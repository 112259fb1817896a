"""The package as pip installed it: its metadata, its licence, its extension.

These read the installed distribution (`scripts/test-all.sh` installs it with
`pip install ./python`, which builds the wheel through maturin), so they check
what a user gets, not the source tree.
"""

import importlib.metadata
import re
import struct
import sys
from pathlib import Path

import pytest

import pgnfen

from conftest import ROOT


def workspace_version():
    """The version every crate inherits (`[workspace.package]` of Cargo.toml)."""
    text = (ROOT / "Cargo.toml").read_text(encoding="utf-8")
    section = re.search(r"^\[workspace\.package\]\n(.*?)(?=^\[|\Z)", text, re.M | re.S)
    assert section, "Cargo.toml has no [workspace.package]"
    version = re.search(r'^version = "([^"]+)"', section.group(1), re.M)
    assert version, "[workspace.package] names no version"
    return version.group(1)


def test_one_version_everywhere():
    version = workspace_version()
    assert importlib.metadata.version("pgnfen") == version
    assert pgnfen.__version__ == version
    # No crate writes a version of its own: they all inherit it.
    for manifest in ["Cargo.toml", "crates/core/Cargo.toml", "crates/pgnfen/Cargo.toml", "python/Cargo.toml"]:
        package = (ROOT / manifest).read_text(encoding="utf-8").split("[package]", 1)[1].split("\n[", 1)[0]
        assert "version.workspace = true" in package, manifest


def test_licence_travels_with_the_wheel():
    meta = importlib.metadata.metadata("pgnfen")
    assert meta["License-Expression"] == "GPL-3.0-or-later"
    assert meta["License-File"] == "COPYING"
    files = importlib.metadata.files("pgnfen") or []
    copying = [f for f in files if f.name == "COPYING" and "licenses" in f.parts]
    assert len(copying) == 1, files
    text = copying[0].read_text(encoding="utf-8")
    assert text == (ROOT / "COPYING").read_text(encoding="utf-8")
    assert "GNU GENERAL PUBLIC LICENSE" in text and "Version 3" in text


def elf_section_names(path):
    """The section names of a 64-bit little-endian ELF file."""
    data = Path(path).read_bytes()
    assert data[:4] == b"\x7fELF" and data[4] == 2 and data[5] == 1, "not a 64-bit little-endian ELF"
    shoff = struct.unpack_from("<Q", data, 0x28)[0]
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    headers = [struct.unpack_from("<IIQQQQ", data, shoff + i * shentsize) for i in range(shnum)]
    names_offset = headers[shstrndx][4]
    names = []
    for name, *_ in headers:
        start = names_offset + name
        names.append(data[start : data.index(b"\0", start)].decode("ascii"))
    return names


@pytest.mark.skipif(sys.platform != "linux", reason="reads the extension as an ELF file (Linux)")
def test_extension_is_stripped():
    extension = Path(pgnfen._pgnfen.__file__)
    names = elf_section_names(extension)
    assert ".dynsym" in names  # what Python needs to load it stays
    assert ".symtab" not in names and ".debug_info" not in names, names
