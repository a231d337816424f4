"""A look-alike for triage: an index out of range on the GPU (a label id past the number of classes), which fails as a
device-side assert, not an out-of-memory. One GPU."""
import torch

logits = torch.randn(8, 10, device="cuda")
labels = torch.tensor([1, 2, 3, 4, 5, 6, 7, 12], device="cuda")
loss = torch.nn.functional.cross_entropy(logits, labels)
print(f"loss {loss.item()}", flush=True)
