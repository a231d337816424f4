"""Prints the caching allocator's out-of-memory message as this host's PyTorch writes it.

Allocates a quarter of the device, then asks for more than what is left, so the message carries every number
(requested, total, free, in use by this process, allocated, reserved-but-unallocated). Run once per allocator setting:
  PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True python3 bench/oom-messages/print_oom.py
"""
import os
import sys

import torch

print(f"torch {torch.__version__}, cuda {torch.version.cuda}, {torch.cuda.get_device_name(0)}, "
      f"PYTORCH_CUDA_ALLOC_CONF={os.environ.get('PYTORCH_CUDA_ALLOC_CONF', '')!r}", flush=True)
total = torch.cuda.get_device_properties(0).total_memory
held = torch.empty(total // 4, dtype=torch.uint8, device="cuda")
try:
    torch.empty(total, dtype=torch.uint8, device="cuda")
except torch.OutOfMemoryError as error:
    print(f"{type(error).__module__}.{type(error).__name__}: {error}", flush=True)
sys.stderr.flush()
