"""A small fine-tuning loop, the shape of many real ones: the example log came from running it
with a batch that no longer fits after the sequence length was raised."""
import torch
import torch.nn.functional as F


def build_model(vocab: int = 32_000, width: int = 4096, depth: int = 24) -> torch.nn.Module:
    layers = [torch.nn.Embedding(vocab, width)]
    for _ in range(depth):
        layers += [torch.nn.Linear(width, 4 * width), torch.nn.GELU(), torch.nn.Linear(4 * width, width)]
    layers.append(torch.nn.Linear(width, vocab))
    return torch.nn.Sequential(*layers).cuda()


def train_step(model, optimizer, tokens):
    logits = model(tokens)
    loss = F.cross_entropy(logits.float().view(-1, logits.size(-1)), tokens.view(-1))
    loss.backward()
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    return loss.item()


def main() -> None:
    model = build_model()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    for step in range(1000):
        tokens = torch.randint(0, 32_000, (16, 4096), device="cuda")
        train_step(model, optimizer, tokens)


if __name__ == "__main__":
    main()
