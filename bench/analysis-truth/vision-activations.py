"""Measures, per torchvision architecture in the planner's catalog, the memory one training step needs above
its steady state (weights and optimizer states, gradients freed by zero_grad), per 224 px image, in fp32 and
under bf16 autocast: the catalog's activation-per-sample figures.

Usage (GPU host): python3 bench/analysis-truth/vision-activations.py OUT_DIR  -> OUT_DIR/vision-activations.json
"""
import json
import sys

import torch
import torchvision

ARCHS = ["resnet18", "resnet34", "resnet50", "resnet101", "resnet152", "vit_b_16"]
BATCH = 32


def step(model, optimizer, images, labels, autocast):
    with torch.autocast("cuda", dtype=torch.bfloat16, enabled=autocast):
        loss = torch.nn.functional.cross_entropy(model(images), labels)
    loss.backward()
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)


def measure(arch, autocast):
    torch.cuda.empty_cache()
    model = getattr(torchvision.models, arch)().cuda().train()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    images = torch.randn(BATCH, 3, 224, 224, device="cuda")
    labels = torch.randint(0, 1000, (BATCH,), device="cuda")
    for _ in range(2):  # optimizer states exist, cuDNN has picked its algorithms
        step(model, optimizer, images, labels, autocast)
    torch.cuda.synchronize()
    steady = torch.cuda.memory_allocated()
    torch.cuda.reset_peak_memory_stats()
    step(model, optimizer, images, labels, autocast)
    torch.cuda.synchronize()
    peak = torch.cuda.max_memory_allocated()
    params = sum(p.numel() for p in model.parameters())
    del model, optimizer
    return {"params": params, "per_image": round((peak - steady) / BATCH)}


def main(out_dir):
    results = {"_env": {"torch": torch.__version__, "torchvision": torchvision.__version__,
                        "device": torch.cuda.get_device_name(0), "batch": BATCH}}
    for arch in ARCHS:
        results[arch] = {"bf16_autocast": measure(arch, True), "fp32": measure(arch, False)}
        print(arch, json.dumps(results[arch]), flush=True)
    with open(f"{out_dir}/vision-activations.json", "w") as f:
        json.dump(results, f, indent=1)


if __name__ == "__main__":
    main(sys.argv[1])
