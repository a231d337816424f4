import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { findModel, hubCacheConfig, transformerParams, type TransformerShape } from '../../server/src/analysis/models';
import { analyzeDocument, resolveDevice } from '../../server/src/analysis/analyze';
import { ParsedDocument } from '../../server/src/analysis/parser';
import { PythonIndex } from '../../server/src/analysis/pyindex';
import { analyzeFixture, analyzeText, fixture, withDefault } from './analysis-helpers';
import { tempDir } from '../support/tempDir';

describe('model catalog', () => {
  it('counts Llama-3.1-8B and Llama-3.2-1B parameters exactly', () => {
    expect(transformerParams(findModel('meta-llama/Llama-3.1-8B')!.shape as TransformerShape).total).toBe(8_030_261_248);
    // The same count the GPU run printed for the random-weight 1B model (bench/analysis-truth).
    expect(transformerParams(findModel('meta-llama/Llama-3.2-1B')!.shape as TransformerShape).total).toBe(1_235_814_400);
  });

  it('resident AdamW per Llama-3.1-8B layer is 2.62 GB (seed 003)', () => {
    const perLayer = transformerParams(findModel('Llama-3.1-8B')!.shape as TransformerShape).perLayer;
    expect((perLayer * 12) / 1e9).toBeCloseTo(2.62, 2);
  });
});

describe('seed 003 planned memory per card', () => {
  // The seed's table: cards, resident layers per card, planned GB per card.
  const rows: Array<[number, number, number]> = [[1, 8, 50], [1, 4, 40], [1, 3, 37], [2, 8, 36], [2, 6, 31], [2, 0, 15]];
  for (const [cards, resident, plannedGB] of rows) {
    it(`${cards} card(s), ${resident} resident layers: within 5% of ~${plannedGB} GB`, async () => {
      const { file, text } = fixture('seed003_resident_adamw.py');
      const variant = withDefault(withDefault(text, 'resident-layers', resident), 'pipeline-stages', cards);
      const { plan } = await analyzeText(file, variant, 'RNGD');
      expect(plan).toBeDefined();
      const gb = plan!.allocatedPeakBytes / 1e9;
      expect(Math.abs(gb - plannedGB) / plannedGB).toBeLessThan(0.05);
    });
  }
});

describe('training or inference, and the branches a run takes', () => {
  const llama = "import torch\nfrom transformers import AutoModelForCausalLM\nmodel = AutoModelForCausalLM.from_pretrained('meta-llama/Llama-3.2-1B')\n";
  const keys = async (text: string): Promise<string[]> => (await analyzeText('/tmp/s.py', text)).plan!.breakdown.map((b) => b.key);

  it('keeps a branch on a launcher-set argument (--local_rank) or a counter alive', async () => {
    const localRank = `import argparse\n${llama}p = argparse.ArgumentParser()\np.add_argument('--local_rank', type=int, default=-1)\nargs = p.parse_args()\nif args.local_rank == -1:\n    device = 'cuda'\nelse:\n    torch.distributed.init_process_group('nccl')\nif args.local_rank != -1:\n    model = torch.nn.parallel.DistributedDataParallel(model)\n`;
    expect((await analyzeText('/tmp/s.py', localRank)).facts?.sharding?.value).toBe('ddp');
    const counter = `${llama}opt = torch.optim.AdamW(model.parameters())\nstep = 0\nmodel.eval()\nfor batch in data:\n    if step > 0:\n        model(**batch).loss.backward()\n    step += 1\n`;
    expect(await keys(counter)).toContain('optimizerStates');
  });

  it('reads training done in another module, and keeps a training plan free of generate\'s KV cache', async () => {
    const delegated = `${llama}from engine import train_one_epoch, evaluate\noptimizer = build_optimizer(model)\ntrain_one_epoch(model, optimizer)\nmodel.eval()\nwith torch.no_grad():\n    evaluate(model)\n`;
    expect((await analyzeText('/tmp/s.py', delegated)).facts?.inference).toBeUndefined();
    const sampling = `${llama}opt = torch.optim.AdamW(model.parameters())\nmodel(ids).loss.backward()\nmodel.eval()\nsample = model.generate(ids, max_new_tokens=2048)\n`;
    expect(await keys(sampling)).not.toContain('kvCache');
  });

  it('plans a checkpointed model run without autograd as inference', async () => {
    const text = `${llama}model.gradient_checkpointing_enable()\nmodel.eval()\nwith torch.no_grad():\n    out = model(ids)\n`;
    const { plan } = await analyzeText('/tmp/s.py', text);
    expect(plan?.breakdown.find((b) => b.key === 'logits')?.note).toContain('the output of one forward');
  });

  it('applies flags passed to a script whose settings are module globals (nanoGPT)', async () => {
    const text = "from model import GPT, GPTConfig\nbatch_size = 12\ninit_from = 'scratch'\nexec(open('configurator.py').read())\nif init_from == 'scratch':\n    model = GPT(GPTConfig(n_layer=12, n_head=12, n_embd=768))\nelif init_from.startswith('gpt2'):\n    model = GPT.from_pretrained(init_from)\n";
    const doc = await ParsedDocument.create('python', text);
    try {
      const { facts } = analyzeDocument(doc, '/tmp/train.py', resolveDevice('H100-80GB'), ['--init_from=gpt2-xl', '--batch_size=4']);
      expect(facts?.model?.value.ref).toBe('gpt2-xl');
      expect(facts?.batchSize).toMatchObject({ value: 4, evidence: '--batch_size 4 (passed to the script)' });
    } finally {
      doc.dispose();
    }
  });

  it('fills a passed flag into what the parser returned only, not a same-named attribute elsewhere', async () => {
    const doc = await ParsedDocument.create('python', 'model_args, training_args = parser.parse_args_into_dataclasses()\nx = training_args.learning_rate\ny = optimizer.learning_rate\nopt = argp.parse_args()\nz = opt.learning_rate\n');
    try {
      const idx = new PythonIndex(doc.tree, [], new Map([['learning_rate', '0.1']]));
      expect(idx.evaluate(idx.assignments.get('x'))).toBe(0.1);
      expect(idx.evaluate(idx.assignments.get('y'))).toBeUndefined();
      expect(idx.evaluate(idx.assignments.get('z'))).toBe(0.1);
    } finally {
      doc.dispose();
    }
  });

  it('resolves short options passed to the script (-a resnet50 -b 64) to their argparse destinations', async () => {
    const text = "import argparse, torch\nimport torchvision.models as models\nparser = argparse.ArgumentParser()\nparser.add_argument('-a', '--arch', default='resnet18')\nparser.add_argument('-b', '--batch-size', default=256, type=int)\nparser.add_argument('--lr', default=0.1, type=float)\nargs = parser.parse_args()\nmodel = models.__dict__[args.arch]()\noptimizer = torch.optim.SGD(model.parameters(), args.lr, momentum=0.9)\n";
    const doc = await ParsedDocument.create('python', text);
    try {
      const { facts } = analyzeDocument(doc, '/tmp/main.py', resolveDevice('H100-80GB'), ['-a', 'resnet50', '-b', '64', '--lr', '-0.5']);
      expect(facts?.model?.value.ref).toBe('resnet50');
      expect(facts?.batchSize?.value).toBe(64);
    } finally {
      doc.dispose();
    }
  });

  it('reads a cast chained on the load after its torch_dtype, and .float()', async () => {
    const chained = await analyzeText('/tmp/s.py', "import torch\nfrom transformers import AutoModelForCausalLM\nmodel = AutoModelForCausalLM.from_pretrained('gpt2', torch_dtype=torch.bfloat16).to(torch.float32)\n");
    expect(chained.facts?.weightDtype?.value).toBe('fp32');
    const upcast = await analyzeText('/tmp/s.py', "import torch\nfrom transformers import AutoModelForCausalLM\nmodel = AutoModelForCausalLM.from_pretrained('gpt2', torch_dtype=torch.float16)\nmodel.float()\n");
    expect(upcast.facts?.weightDtype?.value).toBe('fp32');
  });
});

describe('GPU truth for generate (H200, docs/GPU-RESULTS.md, sixth session)', () => {
  // torch.cuda.max_memory_allocated of hf_llama_generate.py (bf16 weights, 256 new tokens) on an H200.
  const truth: Array<[number, number, number]> = [[8, 1024, 3_313_900_544], [2, 4000, 3_300_738_048], [32, 512, 4_121_566_208]];
  for (const [batch, seq, measured] of truth) {
    it(`batch ${batch}, prompt ${seq}: within 5% of the measured peak`, async () => {
      const { file, text } = fixture('hf_llama_generate.py');
      const { plan } = await analyzeText(file, withDefault(withDefault(text, 'batch-size', batch), 'seq-len', seq));
      expect(plan?.breakdown.some((b) => b.key === 'kvCache')).toBe(true);
      expect(Math.abs(plan!.allocatedPeakBytes / measured - 1)).toBeLessThan(0.05);
    });
  }
});

describe('GPU truth (H200, bench/analysis-truth/measured-h200-2026-11-30.json)', () => {
  // Measured torch.cuda.max_memory_allocated of the same scripts on an H200 (docs/GPU-RESULTS.md).
  const truth: Array<[string, Record<string, number | string>, number]> = [
    ['hf_llama_from_config.py', { 'batch-size': 4, 'seq-len': 1024, 'gradient-checkpointing': 0 }, 33_273_243_648],
    ['hf_llama_from_config.py', { 'batch-size': 4, 'seq-len': 1024, 'gradient-checkpointing': 1 }, 25_834_104_320],
    ['hf_llama_from_config.py', { 'batch-size': 8, 'seq-len': 2048, 'gradient-checkpointing': 0 }, 80_984_647_680],
    ['hf_llama_from_config.py', { 'batch-size': 8, 'seq-len': 2048, 'gradient-checkpointing': 1 }, 47_327_455_232],
    ['hf_llama_from_config.py', { 'batch-size': 4, 'seq-len': 1024, 'pure-bf16': 1 }, 22_027_646_976],
    ['hf_llama_from_config.py', { 'batch-size': 2, 'seq-len': 1024, attn: 'eager' }, 31_962_220_544],
    ['hf_gpt2_from_config.py', { 'batch-size': 8, 'seq-len': 1024 }, 29_008_222_208],
  ];
  for (const [script, args, measured] of truth) {
    it(`${script} ${JSON.stringify(args)} within 10% of the measured peak`, async () => {
      const { file, text } = fixture(script);
      const variant = Object.entries(args).reduce((t, [k, v]) => withDefault(t, k, v), text);
      const { plan } = await analyzeText(file, variant, 'H200');
      expect(Math.abs(plan!.allocatedPeakBytes - measured) / measured).toBeLessThan(0.1);
    });
  }
});

describe('facts and plans of real-style scripts', () => {
  it('reads a DeepSpeed ZeRO-3 JSON config through TrainingArguments and the launcher line', async () => {
    const { facts, plan } = await analyzeFixture('hf_trainer_deepspeed.py');
    expect(facts?.sharding?.value).toBe('zero3');
    expect(facts?.worldSize?.value).toBe(8);
    expect(facts?.batchSize?.value).toBe(4);
    expect(facts?.seqLen?.value).toBe(4096);
    expect(facts?.attention?.value).toBe('flash');
    expect(plan?.breakdown.find((b) => b.key === 'weights')?.bytes).toBe(Math.round((8_030_261_248 * 2) / 8));
  });

  it('FSDP2 torchtitan: sharded over the mesh, FFN size from ffn_dim_multiplier', async () => {
    const { facts } = await analyzeFixture('torchtitan_fsdp2.py');
    expect(facts?.sharding?.value).toBe('fsdp-full');
    expect(facts?.worldSize?.value).toBe(8);
    const shape = facts?.model?.value.shape as TransformerShape;
    expect(shape.intermediate).toBe(14336);
    expect(facts?.allocConf[0]?.value).toBe('expandable_segments:True');
  });

  it('Lightning: DeepSpeed stage 2, 4 devices, bf16-mixed', async () => {
    const { facts, plan } = await analyzeFixture('lightning_gpt2.py');
    expect(facts?.sharding?.value).toBe('zero2');
    expect(facts?.worldSize?.value).toBe(4);
    expect(facts?.autocast?.value).toBe('bf16');
    expect(facts?.gradAccum?.value).toBe(4);
    expect(plan?.params).toBe(354_823_168);
  });

  it('nanoGPT: GPTConfig(**model_args), DDP over 8 ranks, fused AdamW', async () => {
    const { facts, plan } = await analyzeFixture('nanogpt_train.py');
    expect(facts?.sharding?.value).toBe('ddp');
    expect(facts?.worldSize?.value).toBe(8);
    expect(facts?.optimizer?.value.impl).toBe('fused');
    expect(plan?.breakdown.some((b) => b.key === 'ddpBuckets')).toBe(true);
  });

  it('warns over capacity and says how much', async () => {
    const { findings, plan } = await analyzeFixture('accelerate_qwen.py', 'H100-80GB');
    expect(plan!.perCardBytes).toBeGreaterThan(plan!.device.capacityBytes);
    const f = findings.find((x) => x.rule === 'HR001');
    expect(f?.severity).toBe('warning');
    expect(f?.codeFix?.edits[0]?.newText).toContain('model.gradient_checkpointing_enable()');
  });

  it('counts an nn.Module defined in the script from its __init__ (literal sizes, bound constructor arguments)', async () => {
    const { facts, plan } = await analyzeFixture('local_module_mlp.py');
    // Embedding 32000x1024, 12 blocks of (2 LayerNorms, MultiheadAttention, 1024->4096->1024 MLP), final norm, untied head.
    expect(plan?.params).toBe(216_692_736);
    expect(facts?.model?.value.origin).toBe('local-class');
    expect(plan?.assumptions.some((a) => a.includes('activations of modules defined in the script are not estimated'))).toBe(true);
  });

  it('reads a local config.json next to the script', async () => {
    const { facts, plan } = await analyzeFixture('local_config/finetune_local.py');
    expect(facts?.model?.value.origin).toBe('config.json');
    expect(facts?.model?.value.configFile).toMatch(/my-llama\/config\.json$/);
    // The Llama-3.2-3B shape: 3,212,749,824 parameters.
    expect(plan?.params).toBe(3_212_749_824);
  });

  it("reads a hub model's config.json from the local Hugging Face cache when the catalog lacks it", async () => {
    const cache = tempDir('hf-hub-');
    const repo = path.join(cache, 'models--acme--tiny-llama');
    mkdirSync(path.join(repo, 'snapshots', 'old'), { recursive: true });
    mkdirSync(path.join(repo, 'snapshots', 'f00d'), { recursive: true });
    mkdirSync(path.join(repo, 'refs'));
    writeFileSync(path.join(repo, 'refs', 'main'), 'f00d\n');
    const config = { model_type: 'llama', hidden_size: 512, num_hidden_layers: 4, num_attention_heads: 8, num_key_value_heads: 4, intermediate_size: 1536, vocab_size: 32000 };
    writeFileSync(path.join(repo, 'snapshots', 'old', 'config.json'), JSON.stringify({ ...config, num_hidden_layers: 2 }));
    writeFileSync(path.join(repo, 'snapshots', 'f00d', 'config.json'), JSON.stringify(config));
    const saved = process.env['HF_HUB_CACHE'];
    process.env['HF_HUB_CACHE'] = cache;
    try {
      const { facts } = await analyzeText('/tmp/ft.py', "from transformers import AutoModelForCausalLM\nmodel = AutoModelForCausalLM.from_pretrained('acme/tiny-llama')\n");
      expect(facts?.model?.value.configFile).toBe(path.join(repo, 'snapshots', 'f00d', 'config.json'));
      expect(facts?.model?.value.shape).toMatchObject({ layers: 4, hidden: 512, kvHeads: 4 });
    } finally {
      if (saved === undefined) delete process.env['HF_HUB_CACHE'];
      else process.env['HF_HUB_CACHE'] = saved;
      rmSync(cache, { recursive: true, force: true });
    }
  });

  it('finds the hub cache under HF_HOME, and treats an unreadable one as absent', async () => {
    const home = tempDir('hf-home-');
    const repo = path.join(home, 'hub', 'models--acme--tiny');
    mkdirSync(path.join(repo, 'snapshots', 'r1'), { recursive: true });
    writeFileSync(path.join(repo, 'snapshots', 'r1', 'config.json'), '{}');
    expect(hubCacheConfig('acme/tiny', { HF_HOME: home })).toBe(path.join(repo, 'snapshots', 'r1', 'config.json'));
    // A file where the snapshots folder should be.
    const broken = path.join(home, 'hub', 'models--acme--broken');
    mkdirSync(broken, { recursive: true });
    writeFileSync(path.join(broken, 'snapshots'), 'not a folder');
    expect(hubCacheConfig('acme/broken', { HF_HOME: home })).toBeUndefined();
    rmSync(home, { recursive: true, force: true });
  });

  it('HR001 is an info between 90% and 100% of capacity', async () => {
    const { file, text } = fixture('hf_llama_from_config.py');
    const { findings, plan } = await analyzeText(file, withDefault(text, 'batch-size', 5), 'A100-40GB');
    const ratio = plan!.perCardBytes / plan!.device.capacityBytes;
    expect(ratio).toBeGreaterThan(0.9);
    expect(ratio).toBeLessThan(1);
    expect(findings.find((f) => f.rule === 'HR001')?.severity).toBe('info');
  });

  it('follows an if/elif chain on a literal: only the branch taken sizes the model', async () => {
    // nanoGPT's shape: `init_from` picks one of three loads; the hub branch names no size.
    const text = [
      'import os, torch',
      "from model import GPT, GPTConfig",
      "init_from = 'scratch'",
      "ddp = int(os.environ.get('RANK', -1)) != -1",
      'model_args = dict(n_layer=24, n_head=16, n_embd=1024, block_size=1024, vocab_size=50304)',
      "if init_from == 'scratch':",
      '    conf = GPTConfig(**model_args)',
      '    model = GPT(conf)',
      "elif init_from == 'resume':",
      "    model = GPT(GPTConfig(n_layer=2, n_head=2, n_embd=64))",
      "elif init_from.startswith('gpt2'):",
      '    model = GPT.from_pretrained(init_from)',
      'if ddp:',
      '    model = torch.nn.parallel.DistributedDataParallel(model)',
    ].join('\n');
    const { facts } = await analyzeText('/tmp/gpt.py', text);
    expect(facts?.model?.value.shape).toMatchObject({ layers: 24, hidden: 1024 });
    // RANK is set by the launcher at run time: its default decides no branch.
    expect(facts?.sharding?.value).toBe('ddp');
  });

  it("reads the config class's own module for the MLP's GELU (nanoGPT's nn.GELU saves only its input)", async () => {
    const local = await analyzeFixture('local_gpt/train.py');
    const shape = local.facts?.model?.value.shape;
    expect(shape).toMatchObject({ kind: 'transformer', fusedGelu: true, layers: 12, hidden: 768 });
    // The same config class with no module beside the script: GPT-2's gelu written in Python.
    const { text } = fixture('local_gpt/train.py');
    const alone = await analyzeText('/tmp/alone/train.py', text);
    const activations = (r: typeof local): number => r.plan!.breakdown.find((b) => b.key === 'activations')!.bytes;
    // Five fp32-sized MLP intermediates (16 B per MLP element under autocast) against two bf16 ones (4 B).
    expect(activations(alone) - activations(local)).toBe(12 * (16 - 4) * 3072 * 8 * 1024);
  });

  it('resolves a torchvision architecture looked up by name, with its measured fp32 step memory', async () => {
    const text = [
      'import argparse, torch',
      'import torchvision.models as models',
      'parser = argparse.ArgumentParser()',
      "parser.add_argument('-a', '--arch', default='resnet34')",
      "parser.add_argument('-b', '--batch-size', default=64, type=int)",
      'args = parser.parse_args()',
      'model = models.__dict__[args.arch]().cuda()',
      'alt = getattr(models, args.arch)()',
      'optimizer = torch.optim.SGD(model.parameters(), 0.1, momentum=0.9)',
    ].join('\n');
    const { facts, plan } = await analyzeText('/tmp/imagenet.py', text);
    expect(facts?.model?.value.ref).toBe('resnet34');
    // fp32 (no autocast): the H200 measurement of ResNet-34, per image, times the batch.
    expect(plan?.breakdown.find((b) => b.key === 'activations')?.bytes).toBe(33_290_096 * 64);
  });

  it('plans an inference script without gradients or optimizer states, and a training script with model.eval() as training', async () => {
    const load = "from transformers import AutoModelForCausalLM\nimport torch\nmodel = AutoModelForCausalLM.from_pretrained('gpt2').to('cuda', torch.bfloat16)\n";
    const inference = await analyzeText('/tmp/infer.py', `${load}model.eval()\nwith torch.no_grad():\n    out = model(ids)\n`);
    expect(inference.facts?.weightDtype?.value).toBe('bf16');
    expect(inference.plan?.breakdown.map((b) => b.key)).toEqual(['weights', 'activations', 'logits', 'runtimeOverhead', 'fragmentationMargin']);
    expect(inference.plan?.assumptions.some((a) => a.startsWith('inference: model.eval()'))).toBe(true);
    // Over capacity, the advice is about the weights, not gradient checkpointing.
    const big = await analyzeText('/tmp/infer.py', `${load.replace("'gpt2'", "'meta-llama/Llama-3.1-70B'")}model.eval()\n`, 'A100-40GB');
    const hr001 = big.findings.find((f) => f.rule === 'HR001');
    expect(hr001?.fix).toContain('8-bit');
    expect(hr001?.codeFix).toBeUndefined();
    const training = await analyzeText('/tmp/train.py', `${load}opt = torch.optim.AdamW(model.parameters())\nmodel.eval()\nloss = model(ids).loss\nloss.backward()\n`);
    expect(training.facts?.inference).toBeUndefined();
    expect(training.plan?.breakdown.some((b) => b.key === 'optimizerStates')).toBe(true);
  });

  it("sizes torch.optim's other optimizers by their parameter-sized states", async () => {
    const plan = async (optimizer: string): Promise<number | undefined> => {
      const text = `import torch\nfrom transformers import AutoModelForCausalLM\nmodel = AutoModelForCausalLM.from_pretrained('gpt2')\noptimizer = ${optimizer}\n`;
      const { plan: p } = await analyzeText('/tmp/opt.py', text);
      return p?.breakdown.find((b) => b.key === 'optimizerStates')?.bytes;
    };
    const params = 124_439_808; // GPT-2 small, fp32 states
    expect(await plan('torch.optim.Adadelta(model.parameters())')).toBe(params * 8);
    expect(await plan('torch.optim.Adagrad(model.parameters())')).toBe(params * 4);
    expect(await plan('torch.optim.RMSprop(model.parameters(), momentum=0.9, centered=True)')).toBe(params * 12);
    expect(await plan('torch.optim.AdamW(model.parameters(), amsgrad=True)')).toBe(params * 12);
    expect(await plan('torch.optim.LBFGS(model.parameters(), history_size=10)')).toBe(params * 4 * 22);
  });

  it('counts no communicator for hogwild workers that share one model', async () => {
    const text = [
      'import torch, torch.multiprocessing as mp',
      "from transformers import AutoModelForCausalLM",
      'num_processes = 4',
      "model = AutoModelForCausalLM.from_pretrained('gpt2').cuda()",
      'model.share_memory()',
      'for rank in range(num_processes):',
      '    mp.Process(target=train, args=(rank, model)).start()',
    ].join('\n');
    const hogwild = await analyzeText('/tmp/hogwild.py', text);
    expect(hogwild.plan?.breakdown.some((b) => b.key === 'commBuffers')).toBe(false);
    const ddp = await analyzeText('/tmp/ddp.py', `${text}\ntorch.distributed.init_process_group('nccl')\n`);
    expect(ddp.plan?.breakdown.some((b) => b.key === 'commBuffers')).toBe(true);
  });

  it('returns no plan when the model is unknown', async () => {
    const { plan } = await analyzeText('/tmp/x.py', 'import torch\nmodel = MyNet()\n');
    expect(plan).toBeUndefined();
  });
});
