"""A short healthy training run on one GPU with an NCCL process group and NCCL_DEBUG=INFO, for checking that triage
says nothing about a run that did not fail (its NCCL INFO lines, allocator stats, metric lines, a finished message).
Run with: NCCL_DEBUG=INFO torchrun --nproc_per_node=1 bench/healthy-runs/gpu_train.py
"""
import logging
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
log = logging.getLogger("train")
dist.init_process_group("nccl")
torch.cuda.set_device(0)
model = DDP(torch.nn.Sequential(torch.nn.Linear(4096, 8192), torch.nn.GELU(), torch.nn.Linear(8192, 4096)).cuda())
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
for step in range(50):
    x = torch.randn(256, 4096, device="cuda")
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = (model(x) - x).pow(2).mean()
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    if step % 10 == 0:
        log.info("step %d loss %.4f val_error: %.4f max memory allocated %.2f GiB reserved %.2f GiB",
                 step, loss.item(), loss.item() / 3, torch.cuda.max_memory_allocated() / 2**30, torch.cuda.memory_reserved() / 2**30)
print(torch.cuda.memory_summary(abbreviated=True))
log.info("Training complete.")
dist.destroy_process_group()
