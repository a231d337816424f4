"""Two ranks each allocate 4 GiB in 256 MiB pieces, then all_reduce a flag. Run with the preload
shim's per-rank budget (HEADROOM_FAULT_RANKS=1, HEADROOM_FAULT_BUDGET_BYTES=1 GiB): only rank 1's
allocations fail, as an injected, catchable OOM printed with the device almost entirely free."""
import os

import torch
import torch.distributed as dist

rank = int(os.environ["RANK"])
torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", rank)))
dist.init_process_group("nccl", device_id=torch.device("cuda", torch.cuda.current_device()))
blocks = [torch.empty(256 << 20, dtype=torch.uint8, device="cuda") for _ in range(16)]
print(f"rank {rank}: allocated {sum(b.numel() for b in blocks)} bytes", flush=True)
flag = torch.ones(1, device="cuda")
dist.all_reduce(flag)
torch.cuda.synchronize()
dist.destroy_process_group()
