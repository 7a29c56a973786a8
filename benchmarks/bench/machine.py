"""The machine the benchmark ran on: CPU, memory, OS and the version of everything measured."""

from __future__ import annotations

import os
import platform
import re
import shutil
import subprocess
from pathlib import Path
from typing import Dict

from .config import REPO

__all__ = ["machine_info"]


def _read(path: str) -> str:
    try:
        return Path(path).read_text()
    except OSError:
        return ""


def _cmd(*argv: str) -> str:
    try:
        out = subprocess.run(argv, capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError):
        return ""
    return (out.stdout or out.stderr).strip()


def machine_info() -> Dict[str, str]:
    """CPU, cores, memory, OS and the versions of everything measured."""
    cpu = ""
    for line in _read("/proc/cpuinfo").splitlines():
        if line.startswith("model name"):
            cpu = line.split(":", 1)[1].strip()
            break
    cpu = cpu or platform.processor() or platform.machine()
    mem = ""
    m = re.search(r"MemTotal:\s+(\d+) kB", _read("/proc/meminfo"))
    if m:
        mem = f"{int(m.group(1)) / 2**20:.1f} GiB"
    os_name = ""
    m = re.search(r'^PRETTY_NAME="?([^"\n]*)"?', _read("/etc/os-release"), re.M)
    if m:
        os_name = m.group(1)
    info = {
        "cpu": cpu,
        "cores": f"{os.cpu_count()} logical CPUs"
                 + (f" (this process may use {len(os.sched_getaffinity(0))})"
                    if hasattr(os, "sched_getaffinity") and len(os.sched_getaffinity(0)) != os.cpu_count() else ""),
        "memory": mem,
        "os": f"{os_name or platform.system()} (kernel {platform.release()}, {platform.machine()})",
        "python": platform.python_version(),
    }
    try:
        import aqmsim

        info["aqmsim"] = aqmsim.__version__
    except Exception:  # noqa: BLE001 - informational only
        info["aqmsim"] = "?"
    commit = _cmd("git", "-C", str(REPO), "rev-parse", "--short=12", "HEAD")
    if commit:
        dirty = _cmd("git", "-C", str(REPO), "status", "--porcelain", "--untracked-files=no")
        info["aqmsim"] += f" (git {commit}{', with uncommitted changes' if dirty else ''})"
    info["rustc"] = _cmd("rustc", "--version") or "?"
    ns2 = _cmd("dpkg-query", "-W", "-f=${Version}", "ns2")
    info["ns-2"] = f"Debian ns2 {ns2}" if ns2 else ("installed" if shutil.which("ns") else "not installed")
    ns3 = _cmd("pkg-config", "--modversion", "ns3-core")
    ns3deb = _cmd("dpkg-query", "-W", "-f=${Version}", "libns3-dev")
    info["ns-3"] = (f"{ns3} (Debian libns3-dev {ns3deb})" if ns3deb else ns3) if ns3 else "not installed"
    cxx = _cmd("g++", "--version").splitlines()
    info["g++"] = cxx[0] if cxx else "not installed"
    load = os.getloadavg() if hasattr(os, "getloadavg") else None
    if load:
        info["load average at start"] = " ".join(f"{x:.2f}" for x in load)
    return info

