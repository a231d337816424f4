/**
 * Model shapes: a catalog of common architectures (values from each model's published
 * config.json on the Hugging Face Hub, or torchvision's documented parameter counts) and a reader
 * for a local config.json, so the planner can count parameters and activations.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/** A transformer whose per-layer tensors the planner can enumerate. */
export interface TransformerShape {
  kind: 'transformer';
  family: string;
  /** Causal LMs produce vocabulary logits for every position; encoders and ViTs do not. */
  causalLm: boolean;
  layers: number;
  hidden: number;
  heads: number;
  kvHeads: number;
  headDim: number;
  intermediate: number;
  vocab: number;
  /** `gated` (SwiGLU/GeGLU: gate, up, down) or `plain` (fc1, fc2). */
  mlp: 'gated' | 'plain';
  /**
   * True when the config class's own module builds the MLP with PyTorch's GELU (nanoGPT's `nn.GELU()`),
   * which saves only its input; GPT-2 otherwise means Hugging Face's or minGPT's gelu written in Python.
   */
  fusedGelu?: boolean;
  tiedEmbeddings: boolean;
  /** Learned position embeddings (GPT-2, BERT, ViT) of this many positions; 0 with rotary. */
  learnedPositions: number;
  /** Biases on every linear and LayerNorm (GPT-2, BERT, ViT) vs none (Llama) or q/k/v only (Qwen2). */
  bias: 'all' | 'qkv' | 'none';
  norm: 'rms' | 'layer';
  /** Fixed tokens per sample for vision transformers (patches + class token); undefined for text. */
  tokensPerSample?: number;
}

/** A model known only by its parameter count and a measured activation size per sample. */
export interface OpaqueShape {
  kind: 'opaque';
  family: string;
  params: number;
  /** Memory a training step needs above its steady state, per sample under bf16 autocast, at the reference input size. */
  activationBytesPerSample: number;
  /** The same in fp32 (no autocast); twice the bf16 figure where it was not measured. */
  fp32ActivationBytesPerSample?: number;
  source: string;
}

export type ModelShape = TransformerShape | OpaqueShape;

export interface CatalogModel {
  /** Hub ids or constructor names it answers to (matched case-insensitively, on the last path segment too). */
  ids: readonly string[];
  shape: ModelShape;
}

function llama(
  ids: string[], layers: number, hidden: number, heads: number, kvHeads: number, intermediate: number, vocab: number, tied: boolean,
  family = 'llama', extra: Partial<TransformerShape> = {},
): CatalogModel {
  return {
    ids,
    shape: {
      kind: 'transformer', family, causalLm: true, layers, hidden, heads, kvHeads, headDim: hidden / heads,
      intermediate, vocab, mlp: 'gated', tiedEmbeddings: tied, learnedPositions: 0, bias: 'none', norm: 'rms', ...extra,
    },
  };
}

function gpt2(ids: string[], layers: number, hidden: number, heads: number): CatalogModel {
  return {
    ids,
    shape: {
      kind: 'transformer', family: 'gpt2', causalLm: true, layers, hidden, heads, kvHeads: heads, headDim: hidden / heads,
      intermediate: 4 * hidden, vocab: 50257, mlp: 'plain', tiedEmbeddings: true, learnedPositions: 1024, bias: 'all', norm: 'layer',
    },
  };
}

function encoder(ids: string[], family: string, layers: number, hidden: number, heads: number, vocab: number, positions: number, tokensPerSample?: number): CatalogModel {
  return {
    ids,
    shape: {
      kind: 'transformer', family, causalLm: false, layers, hidden, heads, kvHeads: heads, headDim: hidden / heads,
      intermediate: 4 * hidden, vocab, mlp: 'plain', tiedEmbeddings: true, learnedPositions: positions, bias: 'all', norm: 'layer',
      ...(tokensPerSample !== undefined && { tokensPerSample }),
    },
  };
}

const RESNET_SOURCE = 'torchvision parameter counts; memory a training step needs per 224 px image above its steady state, measured on an H200 for each architecture (bench/analysis-truth/vision-activations.py)';

/** `bf16` and `fp32`: bytes per 224 px image, bench/analysis-truth/vision-activations-h200-2026-11-30.json. */
function resnet(ids: string[], params: number, bf16: number, fp32: number): CatalogModel {
  return { ids, shape: { kind: 'opaque', family: 'resnet', params, activationBytesPerSample: bf16, fp32ActivationBytesPerSample: fp32, source: RESNET_SOURCE } };
}

export const MODELS: readonly CatalogModel[] = [
  llama(['meta-llama/Llama-3.1-8B', 'meta-llama/Llama-3.1-8B-Instruct', 'meta-llama/Meta-Llama-3-8B', 'meta-llama/Meta-Llama-3-8B-Instruct'], 32, 4096, 32, 8, 14336, 128256, false),
  llama(['meta-llama/Llama-3.1-70B', 'meta-llama/Llama-3.1-70B-Instruct', 'meta-llama/Llama-3.3-70B-Instruct', 'meta-llama/Meta-Llama-3-70B'], 80, 8192, 64, 8, 28672, 128256, false),
  llama(['meta-llama/Llama-3.2-1B', 'meta-llama/Llama-3.2-1B-Instruct'], 16, 2048, 32, 8, 8192, 128256, true),
  llama(['meta-llama/Llama-3.2-3B', 'meta-llama/Llama-3.2-3B-Instruct'], 28, 3072, 24, 8, 8192, 128256, true),
  llama(['mistralai/Mistral-7B-v0.1', 'mistralai/Mistral-7B-Instruct-v0.2'], 32, 4096, 32, 8, 14336, 32000, false, 'mistral'),
  llama(['mistralai/Mistral-7B-v0.3', 'mistralai/Mistral-7B-Instruct-v0.3'], 32, 4096, 32, 8, 14336, 32768, false, 'mistral'),
  llama(['Qwen/Qwen2.5-0.5B', 'Qwen/Qwen2.5-0.5B-Instruct'], 24, 896, 14, 2, 4864, 151936, true, 'qwen2', { bias: 'qkv' }),
  llama(['Qwen/Qwen2.5-1.5B', 'Qwen/Qwen2.5-1.5B-Instruct'], 28, 1536, 12, 2, 8960, 151936, true, 'qwen2', { bias: 'qkv' }),
  llama(['Qwen/Qwen2.5-7B', 'Qwen/Qwen2.5-7B-Instruct'], 28, 3584, 28, 4, 18944, 152064, false, 'qwen2', { bias: 'qkv' }),
  llama(['google/gemma-2b'], 18, 2048, 8, 1, 16384, 256000, true, 'gemma', { headDim: 256 }),
  llama(['google/gemma-7b'], 28, 3072, 16, 16, 24576, 256000, true, 'gemma', { headDim: 256 }),
  llama(['google/gemma-2-9b'], 42, 3584, 16, 8, 14336, 256000, true, 'gemma2', { headDim: 256 }),
  gpt2(['gpt2', 'openai-community/gpt2'], 12, 768, 12),
  gpt2(['gpt2-medium', 'openai-community/gpt2-medium'], 24, 1024, 16),
  gpt2(['gpt2-large', 'openai-community/gpt2-large'], 36, 1280, 20),
  gpt2(['gpt2-xl', 'openai-community/gpt2-xl'], 48, 1600, 25),
  encoder(['bert-base-uncased', 'google-bert/bert-base-uncased', 'bert-base-cased'], 'bert', 12, 768, 12, 30522, 512),
  encoder(['bert-large-uncased', 'google-bert/bert-large-uncased'], 'bert', 24, 1024, 16, 30522, 512),
  encoder(['google/vit-base-patch16-224', 'vit_b_16', 'vit_base_patch16_224'], 'vit', 12, 768, 12, 0, 197, 197),
  encoder(['google/vit-large-patch16-224', 'vit_l_16', 'vit_large_patch16_224'], 'vit', 24, 1024, 16, 0, 197, 197),
  resnet(['resnet18', 'microsoft/resnet-18'], 11_689_512, 13_368_832, 23_008_688),
  resnet(['resnet34'], 21_797_672, 19_272_624, 33_290_096),
  resnet(['resnet50', 'microsoft/resnet-50'], 25_557_032, 46_403_936, 86_948_624),
  resnet(['resnet101'], 44_549_160, 68_309_728, 127_990_928),
  resnet(['resnet152'], 60_192_808, 94_798_176, 178_856_720),
];

function idKey(id: string): string {
  return id.toLowerCase();
}

/** Finds a catalog model by hub id, by its last path segment, or by constructor name. */
export function findModel(id: string): CatalogModel | undefined {
  const wanted = idKey(id);
  const tail = wanted.split('/').pop() ?? wanted;
  return (
    MODELS.find((m) => m.ids.some((i) => idKey(i) === wanted)) ??
    MODELS.find((m) => m.ids.some((i) => (idKey(i).split('/').pop() ?? '') === tail))
  );
}

type Json = Record<string, unknown>;

function num(obj: Json, ...keys: string[]): number | undefined {
  for (const k of keys) {
    const v = obj[k];
    if (typeof v === 'number' && Number.isFinite(v)) return v;
  }
  return undefined;
}

/**
 * A shape from Hugging Face-style config keys (config.json, or the keywords of a `LlamaConfig(...)`
 * / `GPTConfig(...)` call). Returns undefined when the essential sizes are missing.
 */
export function shapeFromConfig(config: Json): TransformerShape | undefined {
  const modelType = typeof config['model_type'] === 'string' ? config['model_type'] : '';
  const hidden = num(config, 'hidden_size', 'n_embd', 'd_model', 'dim');
  const layers = num(config, 'num_hidden_layers', 'n_layer', 'n_layers', 'num_layers');
  const heads = num(config, 'num_attention_heads', 'n_head', 'n_heads', 'num_heads');
  if (hidden === undefined || layers === undefined || heads === undefined) return undefined;
  const gpt2Style = config['n_embd'] !== undefined || modelType === 'gpt2';
  const encoderStyle = ['bert', 'roberta', 'vit', 'deberta'].includes(modelType);
  const gated = !gpt2Style && !encoderStyle;
  const intermediate = num(config, 'intermediate_size', 'n_inner', 'ffn_dim', 'hidden_dim') ?? llamaMetaFfn(config, hidden) ?? 4 * hidden;
  const vocab = num(config, 'vocab_size') ?? (modelType === 'vit' ? 0 : 50257);
  const bias = gpt2Style || encoderStyle ? 'all' : modelType === 'qwen2' || config['attention_bias'] === true ? 'qkv' : 'none';
  const imageSize = num(config, 'image_size');
  const patchSize = num(config, 'patch_size');
  const tokensPerSample = modelType === 'vit' && imageSize && patchSize ? (imageSize / patchSize) ** 2 + 1 : undefined;
  return {
    kind: 'transformer',
    family: modelType || (gpt2Style ? 'gpt2' : 'llama'),
    causalLm: !encoderStyle,
    layers,
    hidden,
    heads,
    kvHeads: num(config, 'num_key_value_heads', 'n_kv_heads') ?? heads,
    headDim: num(config, 'head_dim') ?? hidden / heads,
    intermediate,
    vocab,
    mlp: gated ? 'gated' : 'plain',
    tiedEmbeddings: config['tie_word_embeddings'] === undefined ? gpt2Style || encoderStyle : config['tie_word_embeddings'] === true,
    learnedPositions: gpt2Style || encoderStyle ? (num(config, 'n_positions', 'block_size', 'max_position_embeddings') ?? tokensPerSample ?? 0) : 0,
    bias,
    norm: gated ? 'rms' : 'layer',
    ...(tokensPerSample !== undefined && { tokensPerSample }),
  };
}

/** Meta/torchtitan Llama: 2/3 of 4*dim, times ffn_dim_multiplier, rounded up to multiple_of. */
function llamaMetaFfn(config: Json, hidden: number): number | undefined {
  const multiple = num(config, 'multiple_of');
  if (multiple === undefined) return undefined;
  let ffn = Math.trunc((2 * 4 * hidden) / 3);
  const mult = num(config, 'ffn_dim_multiplier');
  if (mult !== undefined) ffn = Math.trunc(mult * ffn);
  return multiple * Math.ceil(ffn / multiple);
}

/** Reads `<dir>/config.json` (or the file itself) when `ref` names a local model directory. */
export function readLocalConfig(ref: string, baseDir: string): { shape: TransformerShape; file: string } | undefined {
  const candidates = [path.resolve(baseDir, ref, 'config.json'), path.resolve(baseDir, ref)];
  for (const file of candidates) {
    if (!file.endsWith('.json') || !existsSync(file)) continue;
    try {
      const parsed = JSON.parse(readFileSync(file, 'utf8')) as unknown;
      if (typeof parsed !== 'object' || parsed === null) continue;
      const shape = shapeFromConfig(parsed as Json);
      if (shape) return { shape, file };
    } catch {
      // A config.json we cannot read is treated like a missing one: the model stays unknown.
    }
  }
  return undefined;
}

/** `~` and `$VAR`/`${VAR}` expanded, as huggingface_hub's `os.path.expanduser(os.path.expandvars(...))` does. */
function expandPath(value: string, env: NodeJS.ProcessEnv): string {
  const vars = value.replace(/\$(\w+)|\$\{(\w+)\}/g, (whole, a: string | undefined, b: string | undefined) => env[(a ?? b)!] ?? whole);
  return vars === '~' || vars.startsWith('~/') ? path.join(os.homedir(), vars.slice(1)) : vars;
}

/** The hub cache folder in huggingface_hub's order: HF_HUB_CACHE, the legacy HUGGINGFACE_HUB_CACHE, HF_HOME/hub, XDG_CACHE_HOME/huggingface/hub. */
function hubCacheDir(env: NodeJS.ProcessEnv): string {
  const set = (name: string): string | undefined => (env[name] ? expandPath(env[name]!, env) : undefined);
  const home = set('HF_HOME') ?? path.join(set('XDG_CACHE_HOME') ?? path.join(os.homedir(), '.cache'), 'huggingface');
  return set('HF_HUB_CACHE') ?? set('HUGGINGFACE_HUB_CACHE') ?? path.join(home, 'hub');
}

/**
 * The config.json of a hub model already downloaded on this machine (the language server runs where the
 * GPUs are, over Remote-SSH too): `<cache>/models--org--name/snapshots/<revision>/config.json`, the revision
 * `refs/main` names, else any snapshot that has one. A cache it cannot read counts as no cache.
 */
export function hubCacheConfig(ref: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (!/^[\w.-]+\/[\w.-]+$/.test(ref)) return undefined;
  const repo = path.join(hubCacheDir(env), `models--${ref.replace('/', '--')}`);
  try {
    const snapshots = path.join(repo, 'snapshots');
    if (!existsSync(snapshots)) return undefined;
    const mainRef = path.join(repo, 'refs', 'main');
    const main = existsSync(mainRef) ? readFileSync(mainRef, 'utf8').trim() : undefined;
    const revisions = [...(main ? [main] : []), ...readdirSync(snapshots).filter((r) => r !== main)];
    return revisions.map((r) => path.join(snapshots, r, 'config.json')).find((f) => existsSync(f));
  } catch {
    // Another user's cache, or a file where a folder should be: the model stays unknown, the analysis goes on.
    return undefined;
  }
}

/** Parameters of a transformer, split into the repeated layers and the rest (embeddings, head, final norm). */
export function transformerParams(s: TransformerShape): { perLayer: number; embedding: number; head: number; other: number; total: number } {
  const q = s.hidden * s.heads * s.headDim;
  const kv = 2 * s.hidden * s.kvHeads * s.headDim;
  const o = s.heads * s.headDim * s.hidden;
  const attnBias = s.bias === 'all' ? s.heads * s.headDim + 2 * s.kvHeads * s.headDim + s.hidden : s.bias === 'qkv' ? s.heads * s.headDim + 2 * s.kvHeads * s.headDim : 0;
  const mlp = s.mlp === 'gated' ? 3 * s.hidden * s.intermediate : 2 * s.hidden * s.intermediate;
  const mlpBias = s.bias === 'all' ? s.intermediate + s.hidden : 0;
  const norms = s.norm === 'rms' ? 2 * s.hidden : 4 * s.hidden;
  const perLayer = q + kv + o + attnBias + mlp + mlpBias + norms;
  const embedding = s.vocab * s.hidden + s.learnedPositions * s.hidden;
  const head = s.causalLm && !s.tiedEmbeddings ? s.vocab * s.hidden : 0;
  const other = s.norm === 'rms' ? s.hidden : 2 * s.hidden;
  return { perLayer, embedding, head, other, total: perLayer * s.layers + embedding + head + other };
}

/** Total parameters of any shape. */
export function totalParams(shape: ModelShape): number {
  return shape.kind === 'opaque' ? shape.params : transformerParams(shape).total;
}
