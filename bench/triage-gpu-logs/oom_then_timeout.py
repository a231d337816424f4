"""The seeds' cascade on two GPUs under torchrun, for triage: rank 1 runs out of device memory in a step and does not
catch it; rank 0 has entered the step's all_reduce and waits. What the user's console shows (torchrun's report, the
ranks' own lines, and, when the launcher is slow to act, rank 0's watchdog) is the log Headroom must read as the OOM
first and the rest as its consequences."""
import datetime
import os

import torch
import torch.distributed as dist

rank = int(os.environ["RANK"])
torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
dist.init_process_group("nccl", timeout=datetime.timedelta(seconds=int(os.environ.get("PG_TIMEOUT_S", "20"))),
                        device_id=torch.device("cuda", torch.cuda.current_device()))
weights = torch.ones(1 << 20, device="cuda")
for step in range(3):
    dist.all_reduce(weights)
    torch.cuda.synchronize()
    print(f"rank {rank}: step {step} done", flush=True)
if rank == 1:
    # Activations for a batch too large for the card: the request is above what is free.
    free, total = torch.cuda.mem_get_info()
    activations = torch.empty(free + (8 << 30), dtype=torch.uint8, device="cuda")
dist.all_reduce(weights)
torch.cuda.synchronize()
print(f"rank {rank}: step 3 done", flush=True)
dist.destroy_process_group()
