"""A collective that runs out of device memory, for triage: each rank fills its GPU until LEAVE_MIB are free, then makes
its first all_reduce, which is when NCCL sets its communicator up and allocates its buffers on the device. What the
console shows (NCCL's warnings with NCCL_DEBUG=WARN, PyTorch's DistBackendError, torchrun's report) is the log Headroom
must read as a collective OOM."""
import datetime
import os

import torch
import torch.distributed as dist

rank = int(os.environ["RANK"])
torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
dist.init_process_group("nccl", timeout=datetime.timedelta(seconds=60), device_id=torch.device("cuda", torch.cuda.current_device()))
# The collective's tensor first, so that only NCCL's own buffers are left to allocate in the little memory left.
x = torch.ones(1 << 20, device="cuda")
leave = int(os.environ.get("LEAVE_MIB", "16")) << 20
free, _ = torch.cuda.mem_get_info()
ballast = torch.empty(max(free - leave, 0), dtype=torch.uint8, device="cuda")
torch.cuda.synchronize()
print(f"rank {rank}: {torch.cuda.mem_get_info()[0] >> 20} MiB left free before the first collective", flush=True)
dist.all_reduce(x)
torch.cuda.synchronize()
print(f"rank {rank}: all_reduce done", flush=True)
dist.destroy_process_group()
