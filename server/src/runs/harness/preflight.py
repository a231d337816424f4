"""Describes the machine a run executes on, as one JSON object on stdout.

Run by the supervisor before the first cell (and by a target's "test connection"): Python and
torch versions, the platform (cuda, rocm or cpu), the devices with their capacity, the
distributed backends, and the C compiler that can build the preload shim.
"""
import json
import platform
import shutil
import socket
import sys


def describe():
    info = {
        "python": sys.executable,
        "pythonVersion": platform.python_version(),
        "platform": "cpu",
        "devices": [],
        "distributedBackends": [],
        "hostname": socket.gethostname(),
    }
    compiler = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if compiler:
        info["compiler"] = compiler
    try:
        import torch
    except ImportError as exc:
        info["torchError"] = str(exc)
        return info
    info["torchVersion"] = torch.__version__
    if torch.cuda.is_available():
        info["platform"] = "rocm" if getattr(torch.version, "hip", None) else "cuda"
        for index in range(torch.cuda.device_count()):
            props = torch.cuda.get_device_properties(index)
            info["devices"].append({"name": props.name, "totalBytes": int(props.total_memory)})
    try:
        import torch.distributed as dist
        for name, check in (("gloo", "is_gloo_available"), ("nccl", "is_nccl_available"), ("mpi", "is_mpi_available")):
            if getattr(dist, check, lambda: False)():
                info["distributedBackends"].append(name)
    except ImportError:
        pass
    return info


if __name__ == "__main__":
    json.dump(describe(), sys.stdout)
    sys.stdout.write("\n")
