"""A short healthy two-rank gloo DDP run on CPU (INFO logging, metric lines, a metrics table, a finished message), for
checking that triage says nothing about a run that did not fail. Launched by hand here, one process per rank, with
MASTER_ADDR=127.0.0.1 MASTER_PORT=29555 RANK=r WORLD_SIZE=2 and each output prefixed "[rankN]: " (test/fixtures/healthy).
"""
import logging
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
log = logging.getLogger("train")
dist.init_process_group("gloo")
rank = dist.get_rank()
torch.manual_seed(0)
model = DDP(torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.ReLU(), torch.nn.Linear(64, 1)))
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
for step in range(30):
    x = torch.randn(64, 32); y = x.sum(1, keepdim=True)
    loss = torch.nn.functional.mse_loss(model(x), y)
    opt.zero_grad(); loss.backward(); opt.step()
    if rank == 0 and step % 5 == 0:
        log.info("step %d loss %.4f val_error: %.4f failed_batches: 0", step, loss.item(), loss.item() / 10)
if rank == 0:
    log.info("evaluation error rate 0.031, 0 errors, no failures; saving checkpoint to /tmp/runs/error-analysis/ckpt.pt")
    print(f"| metric | value |\n| error | {loss.item():.3f} |")
    print("Training complete.")
dist.destroy_process_group()
