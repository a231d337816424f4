"""Seed 004 made on purpose, left to PyTorch's own NCCL watchdog: rank 1 catches an OOM and skips the
third all_reduce; rank 0 enters it and waits until the process-group timeout (15 s here) fires the
watchdog, which prints the desync report, dumps the flight recorder, and tears the rank down with
SIGABRT on its own thread (no Python frame there). Run it under Headroom with a hang window longer
than the timeout to capture that teardown with the preload shim."""
import datetime
import os

import torch
import torch.distributed as dist

rank = int(os.environ["RANK"])
torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", rank)))
dist.init_process_group("nccl", timeout=datetime.timedelta(seconds=15), device_id=torch.device("cuda", torch.cuda.current_device()))
x = torch.ones(1024, device="cuda")
for i in range(2):
    dist.all_reduce(x)
torch.cuda.synchronize()
print(f"rank {rank}: two all_reduce done", flush=True)
try:
    if rank == 1:
        torch.empty(1 << 50, dtype=torch.uint8, device="cuda")  # 1 PiB: fails on every card
    dist.all_reduce(x)
    torch.cuda.synchronize()
    print(f"rank {rank}: third all_reduce done", flush=True)
except torch.OutOfMemoryError as exc:
    print(f"rank {rank}: caught {str(exc).splitlines()[0]}; skipping the collective", flush=True)
dist.barrier()
torch.cuda.synchronize()
print(f"rank {rank}: exiting", flush=True)
dist.destroy_process_group()
