/**
 * Training facts of a Python script, each with its location: which model, at which precision,
 * which optimizer, batch and sequence sizes, checkpointing, parallelism and sharding, threads,
 * graph calls, collectives, cache calls, allocator settings and OOM handlers. The planner and the
 * rules read these; the hover and the CLI show them as evidence.
 */
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { Node } from 'web-tree-sitter';
import { ALLOC_CONF_VARS } from './launch';
import { LocalModules } from './localModules';
import { findModel, hubCacheConfig, readLocalConfig, shapeFromConfig, type ModelShape } from './models';
import { locOf, stringValue, type CallSite, type Loc, type PythonIndex, type PyValue } from './pyindex';

export interface Located<T> {
  value: T;
  loc: Loc;
  /** The source text the fact was read from (first line), for hovers and reports. */
  evidence: string;
}

export type Precision = 'fp32' | 'bf16' | 'fp16';
export type OptimizerKind =
  | 'adamw' | 'adam' | 'sgd' | 'sgd-momentum' | 'adam8bit' | 'adafactor' | 'lion'
  | 'adadelta' | 'adagrad' | 'adamax' | 'nadam' | 'radam' | 'rmsprop' | 'rprop' | 'asgd' | 'sparse-adam' | 'lbfgs';

/**
 * Parameter-sized state tensors each optimizer keeps, with its default arguments (the `state[p]`
 * entries of torch.optim's step functions; scalars such as `step` or NAdam's `mu_product` are not
 * counted). adam8bit and adafactor are sized apart: their states are not parameter-sized.
 */
export const STATE_COPIES: Record<OptimizerKind, number> = {
  adamw: 2, adam: 2, nadam: 2, radam: 2, adamax: 2, 'sparse-adam': 2, // exp_avg + exp_avg_sq (Adamax: exp_inf)
  adadelta: 2, // square_avg + acc_delta
  rprop: 2, // prev + step_size
  adagrad: 1, rmsprop: 1, asgd: 1, lion: 1, 'sgd-momentum': 1, // sum / square_avg / ax / exp_avg / momentum_buffer
  sgd: 0,
  lbfgs: 2 * 100 + 2, // history_size (100) direction and step vectors, plus d and prev_flat_grad
  adam8bit: 0, adafactor: 0,
};
export type Sharding = 'none' | 'ddp' | 'fsdp-full' | 'fsdp-grad-op' | 'fsdp-hybrid' | 'zero1' | 'zero2' | 'zero3';
export type Attention = 'flash' | 'sdpa' | 'eager';

export interface ModelFact {
  /** The hub id, path, or constructor the model came from. */
  ref: string;
  origin: 'catalog' | 'config.json' | 'config-call' | 'local-class';
  shape?: ModelShape;
  configFile?: string;
}

export interface OptimizerFact {
  kind: OptimizerKind;
  /** `foreach` (PyTorch's CUDA default) keeps a temporary the size of one state during step(); `fused` does not. */
  impl: 'foreach' | 'fused' | 'for-loop';
  /** Layers whose optimizer state and fp32 master live on the device when the rest is offloaded (seed 003). */
  residentLayers?: number;
  /** Parameter-sized states when the arguments change the kind's `STATE_COPIES` (amsgrad, RMSprop's momentum or centered, LBFGS's history_size). */
  stateCopies?: number;
}

export interface DeepSpeedConfigFact {
  file?: string;
  stage: number;
  offloadOptimizer: boolean;
  offloadParams: boolean;
  precision?: Precision;
  microBatch?: number;
  gradAccum?: number;
  optimizer?: OptimizerKind;
}

export interface TrainingFacts {
  model?: Located<ModelFact>;
  /** The variable the model is bound to (`model`), to recognize `.to(dtype)` and method calls on it. */
  modelVariable?: string;
  weightDtype?: Located<Precision>;
  autocast?: Located<Precision>;
  /** Mixed precision that keeps a low-precision copy of the weights plus an fp32 master (DeepSpeed, Lightning *-true + master). */
  masterWeights?: Located<boolean>;
  optimizer?: Located<OptimizerFact>;
  batchSize?: Located<number>;
  seqLen?: Located<number>;
  imageSize?: Located<number>;
  gradAccum?: Located<number>;
  checkpointing?: Located<boolean>;
  attention?: Located<Attention>;
  sharding?: Located<Sharding>;
  offloadOptimizer?: Located<boolean>;
  offloadParams?: Located<boolean>;
  tensorParallel?: Located<number>;
  pipelineParallel?: Located<number>;
  worldSize?: Located<number>;
  /**
   * Evidence that the ranks talk through a process group (`init_process_group`, DeepSpeed's init, a
   * launcher line): a world size read only from a name such as `num_processes` may count hogwild
   * workers that share one model and never build a communicator.
   */
  processGroup?: Located<string>;
  /**
   * The script runs the model without training it: a call that only inference makes (`model.eval()`,
   * `torch.no_grad()`, `torch.inference_mode()`, `generate`, `pipeline`) and none that training makes
   * (`backward`, `zero_grad`, `model.train()`, `trainer.train()`/`fit`, an optimizer).
   */
  inference?: Located<string>;
  /** `model.generate(...)`: the KV cache grows to the prompt plus `max_new_tokens` (unknown: not counted). */
  generate?: Located<{ maxNewTokens?: number }>;
  deepspeed?: Located<DeepSpeedConfigFact>;
  compile?: Located<string>;
  collectives: Array<Located<string>>;
  /** Functions run on worker threads (Thread targets, executor submissions). */
  threadTargets: Array<Located<string>>;
  /** CUDA graph captures: `with torch.cuda.graph(g)`; `threadLocal` when capture_error_mode="thread_local". */
  graphCaptures: Array<Located<{ threadLocal: boolean }>>;
  /** Calls that run a compiled or captured graph (replay, torch.compile'd callables). */
  graphCalls: Array<Located<string>>;
  emptyCache: Array<Located<string>>;
  memoryFraction?: Located<number>;
  allocConf: Array<Located<string>>;
  /** False when the script computes the loss itself from low-precision logits (no fp32 upcast). */
  logitsUpcast?: Located<boolean>;
  /** Parts of the model with `requires_grad_(False)`: no gradients or optimizer states for them. */
  frozen?: Located<Array<'embedding' | 'head'>>;
  gradientAsBucketView?: Located<boolean>;
  /** Where the script's arguments came from besides a launch script (`.vscode/launch.json`, the command line). */
  argumentsFrom?: string;
  /** The launch script that starts this script (its arguments and world size were applied). */
  launch?: { file: string; line: number; evidence: string };
  /** Allocator settings exported by that launch script (locations are in the launch script). */
  launchAllocConf?: Array<Located<string>>;
}

const PRECISION_NAMES: Record<string, Precision> = {
  'torch.bfloat16': 'bf16', 'torch.float16': 'fp16', 'torch.half': 'fp16', 'torch.float32': 'fp32', 'torch.float': 'fp32',
  bfloat16: 'bf16', float16: 'fp16', half: 'fp16', float32: 'fp32', bf16: 'bf16', fp16: 'fp16', fp32: 'fp32', auto: 'bf16',
};

const MODEL_LOADER_EXCLUDE = ['Tokenizer', 'Config', 'Processor', 'FeatureExtractor', 'ImageProcessor', 'GenerationConfig'];
const CONFIG_CLASSES: Record<string, string> = {
  LlamaConfig: 'llama', MistralConfig: 'mistral', Qwen2Config: 'qwen2', GemmaConfig: 'gemma', Gemma2Config: 'gemma2',
  GPT2Config: 'gpt2', BertConfig: 'bert', ViTConfig: 'vit', GPTConfig: 'gpt2', ModelArgs: 'llama', TransformerModelArgs: 'llama',
};
const OPTIMIZERS: Record<string, OptimizerKind> = {
  AdamW: 'adamw', Adam: 'adam', SGD: 'sgd', AdamW8bit: 'adam8bit', Adam8bit: 'adam8bit', PagedAdamW8bit: 'adam8bit',
  PagedAdamW: 'adamw', PagedAdam: 'adam', Adafactor: 'adafactor', Lion: 'lion', FusedAdam: 'adamw', DeepSpeedCPUAdam: 'adamw',
  ResidentAdamW: 'adamw', Adadelta: 'adadelta', Adagrad: 'adagrad', Adamax: 'adamax', NAdam: 'nadam', RAdam: 'radam',
  RMSprop: 'rmsprop', Rprop: 'rprop', ASGD: 'asgd', SparseAdam: 'sparse-adam', LBFGS: 'lbfgs',
};
const HF_OPTIM: Record<string, OptimizerKind> = {
  adamw_torch: 'adamw', adamw_torch_fused: 'adamw', adamw_hf: 'adamw', adamw_bnb_8bit: 'adam8bit', adamw_8bit: 'adam8bit',
  paged_adamw_8bit: 'adam8bit', paged_adamw_32bit: 'adamw', adafactor: 'adafactor', sgd: 'sgd', lion_32bit: 'lion',
};
const INFERENCE_CALLS = new Set(['eval', 'no_grad', 'inference_mode', 'generate', 'pipeline']);
const TRAINING_CALLS = new Set(['backward', 'zero_grad', 'fit', 'TrainingArguments', 'SFTConfig', 'Seq2SeqTrainingArguments']);

/**
 * A call only training makes: `backward`, `zero_grad`, `fit`, a training config, a trainer or
 * DeepSpeed engine, an optimizer's `step()`, or any function named for training (`model.train()`,
 * `trainer.train()`, `train_one_epoch(...)` in another module).
 */
/** `train`, `train_one_epoch`, `do_train`, `training_step`, `trainOneEpoch`; not `from_pretrained`. */
const TRAINING_NAME = /(^|_)[Tt]rain(ing)?(_|$)|^train[A-Z]/;

function isTrainingCall(c: CallSite): boolean {
  return TRAINING_CALLS.has(c.method) || TRAINING_NAME.test(c.method) || c.method.endsWith('Trainer') ||
    (c.method === 'initialize' && c.name.includes('deepspeed')) || (c.method === 'step' && /optim/i.test(c.calleeText));
}

const COLLECTIVES = new Set([
  'all_reduce', 'all_gather', 'all_gather_into_tensor', 'all_gather_object', 'reduce_scatter', 'reduce_scatter_tensor',
  'broadcast', 'broadcast_object_list', 'barrier', 'all_to_all', 'all_to_all_single', 'reduce', 'gather', 'scatter', 'send', 'recv',
  'monitored_barrier',
]);

const PROCESS_GROUP_INITS = new Set(['init_process_group', 'init_device_mesh', 'init_distributed', 'initialize_model_parallel']);

const BATCH_NAMES = ['batch_size', 'micro_batch_size', 'per_device_train_batch_size', 'train_micro_batch_size_per_gpu', 'local_batch_size', 'mbs', 'bs'];
const SEQ_NAMES = ['seq_len', 'seq_length', 'max_seq_length', 'max_seq_len', 'sequence_length', 'max_length', 'block_size', 'context_length', 'model_max_length'];
const ACCUM_NAMES = ['gradient_accumulation_steps', 'grad_accum', 'grad_accum_steps', 'accum_steps', 'accumulation_steps', 'accumulate_grad_batches'];
const IMAGE_NAMES = ['image_size', 'img_size', 'resolution', 'crop_size'];
const TP_NAMES = ['tensor_parallel_size', 'tp_size', 'tensor_model_parallel_size', 'tp_degree', 'tensor_parallel_degree'];
const PP_NAMES = ['pipeline_parallel_size', 'pp_size', 'pipeline_model_parallel_size', 'pipeline_stages', 'pp_degree'];
const WORLD_NAMES = ['world_size', 'num_gpus', 'n_gpus', 'nproc_per_node', 'num_processes'];

/** Keyword arguments the facts read from any call (the index captures only these). */
export const FACT_KWARGS: readonly string[] = [
  ...new Set([...BATCH_NAMES, ...SEQ_NAMES, ...ACCUM_NAMES, ...IMAGE_NAMES, ...TP_NAMES, ...PP_NAMES, ...WORLD_NAMES, ...ALLOC_CONF_VARS]),
];

function located<T>(value: T, node: Node): Located<T> {
  const first = node.text.split('\n')[0] ?? '';
  return { value, loc: locOf(node), evidence: first.length > 120 ? first.slice(0, 117) + '...' : first };
}

function precisionOf(idx: PythonIndex, node: Node | undefined): Precision | undefined {
  if (!node) return undefined;
  const s = stringValue(node);
  if (s !== undefined) return PRECISION_NAMES[s.toLowerCase()];
  if (node.type === 'attribute' || node.type === 'identifier') {
    const direct = PRECISION_NAMES[idx.canonical(node)];
    if (direct) return direct;
    if (node.type === 'identifier') {
      const bound = idx.assignments.get(node.text);
      if (bound && bound.id !== node.id) return precisionOf(idx, bound);
    }
  }
  return undefined;
}

/** Reads a DeepSpeed config (a dict) into the few fields the planner needs. */
export function deepSpeedFromConfig(cfg: Record<string, PyValue>, file?: string): DeepSpeedConfigFact {
  const zero = (cfg['zero_optimization'] ?? {}) as Record<string, PyValue>;
  const stage = typeof zero['stage'] === 'number' ? zero['stage'] : 0;
  const device = (v: PyValue | undefined): boolean =>
    typeof v === 'object' && v !== null && !Array.isArray(v) && (v['device'] === 'cpu' || v['device'] === 'nvme');
  const enabled = (k: string): boolean => {
    const v = cfg[k];
    return typeof v === 'object' && v !== null && !Array.isArray(v) && (v['enabled'] === true || v['enabled'] === 'auto');
  };
  const optType = (cfg['optimizer'] as Record<string, PyValue> | undefined)?.['type'];
  const micro = cfg['train_micro_batch_size_per_gpu'];
  const accum = cfg['gradient_accumulation_steps'];
  const precision: Precision | undefined = enabled('bf16') ? 'bf16' : enabled('fp16') ? 'fp16' : undefined;
  const optimizer = typeof optType === 'string' ? OPTIMIZERS[optType] ?? OPTIMIZERS[optType.replace('Fused', '')] : undefined;
  return {
    ...(file !== undefined && { file }),
    stage,
    offloadOptimizer: device(zero['offload_optimizer']),
    offloadParams: device(zero['offload_param']),
    ...(precision !== undefined && { precision }),
    ...(typeof micro === 'number' && { microBatch: micro }),
    ...(typeof accum === 'number' && { gradAccum: accum }),
    ...(optimizer !== undefined && { optimizer }),
  };
}

function readJson(file: string): Record<string, PyValue> | undefined {
  if (!existsSync(file)) return undefined;
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as unknown;
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, PyValue>) : undefined;
  } catch {
    return undefined;
  }
}

/** Tokens of launcher command lines written in comments (`# torchrun --nproc_per_node=8 train.py`). */
function launcherWorldSize(idx: PythonIndex): Located<number> | undefined {
  const first = idx.root.namedChildren[0];
  const docstring = first?.type === 'expression_statement' && first.namedChildren[0]?.type === 'string' ? first.namedChildren[0] : undefined;
  for (const comment of docstring ? [docstring, ...idx.comments] : idx.comments) {
    const tokens = comment.text.split(/\s+/);
    if (!tokens.some((t) => ['torchrun', 'deepspeed', 'launch', 'accelerate', 'srun'].includes(t) || t.endsWith('torch.distributed.run'))) continue;
    let perNode: number | undefined;
    let nodes = 1;
    tokens.forEach((t, i) => {
      const [flag, inline] = t.split('=');
      const value = Number(inline ?? tokens[i + 1]);
      if (!Number.isFinite(value)) return;
      if (flag === '--nproc_per_node' || flag === '--nproc-per-node' || flag === '--num_gpus' || flag === '--num_processes' || flag === '--ntasks-per-node') perNode = value;
      if (flag === '--nnodes' || flag === '--num_nodes' || flag === '--num_machines') nodes = value;
    });
    if (perNode !== undefined) return located(perNode * nodes, comment);
  }
  return undefined;
}

export interface FactOptions {
  /** Directory of the script, for relative config.json and DeepSpeed JSON paths. */
  baseDir: string;
}

/** Extracts the training facts of one Python file. */
export function extractFacts(idx: PythonIndex, options: FactOptions): TrainingFacts {
  const facts: TrainingFacts = { collectives: [], threadTargets: [], graphCaptures: [], graphCalls: [], emptyCache: [], allocConf: [] };
  const compiledNames = new Set<string>();

  const namedValue = (names: readonly string[]): Located<number> | undefined => {
    for (const name of names) {
      const passed = idx.passedArg(name);
      if (typeof passed === 'number') return { value: passed, loc: locOf(idx.root.child(0) ?? idx.root), evidence: `--${name} ${passed} (passed to the script)` };
    }
    for (const name of names) {
      for (const kw of idx.kwargValues.get(name) ?? []) {
        const v = idx.evalNumber(kw);
        if (v !== undefined && !idx.isDead(kw)) return located(v, kw.parent ?? kw);
      }
    }
    for (const name of names) {
      for (const candidate of [name, name.toUpperCase()]) {
        const bound = idx.assignments.get(candidate);
        const v = idx.evalNumber(bound);
        if (bound && v !== undefined) return located(v, bound.parent ?? bound);
        const arg = idx.argValue(candidate);
        if (arg && typeof arg.value === 'number') return located(arg.value, arg.node.parent?.parent ?? arg.node);
      }
    }
    return undefined;
  };

  for (const call of idx.calls) {
    if (!idx.isDeadSpan(call.startIndex, call.endIndex)) visitCall(idx, call, facts, options, compiledNames);
  }

  // `@torch.compile` decorated functions are graph calls too.
  for (const call of idx.calls) {
    const fn = call.node.childForFieldName('function');
    if (fn?.type === 'identifier' && compiledNames.has(fn.text)) facts.graphCalls.push(located(fn.text, call.node));
  }

  if (!facts.model && idx.classes.length > 0) localModel(idx, facts);

  facts.batchSize ??= namedValue(BATCH_NAMES);
  facts.seqLen ??= namedValue(SEQ_NAMES);
  facts.gradAccum ??= namedValue(ACCUM_NAMES);
  facts.imageSize ??= namedValue(IMAGE_NAMES);
  facts.tensorParallel ??= namedValue(TP_NAMES);
  facts.pipelineParallel ??= namedValue(PP_NAMES);
  if (!facts.optimizer && !idx.calls.some((c) => isTrainingCall(c) && !idx.isDeadSpan(c.startIndex, c.endIndex))) {
    const inferenceCall = idx.calls.find((c) => INFERENCE_CALLS.has(c.method) && !idx.isDeadSpan(c.startIndex, c.endIndex));
    if (inferenceCall) facts.inference = located(`${inferenceCall.calleeText}()`, inferenceCall.node);
  }
  const launcher = launcherWorldSize(idx);
  if (launcher) facts.processGroup ??= { ...launcher, value: 'launcher line' };
  facts.worldSize ??= launcher ?? namedValue(WORLD_NAMES);
  if (!facts.checkpointing) {
    for (const name of ['gradient_checkpointing', 'activation_checkpointing', 'grad_checkpointing']) {
      const bound = idx.assignments.get(name);
      const arg = idx.argValue(name);
      if (bound && idx.evaluate(bound) === true) facts.checkpointing = located(true, bound.parent ?? bound);
      else if (arg && (arg.value === true || arg.value === 1)) facts.checkpointing = located(true, arg.node.parent ?? arg.node);
    }
  }

  facts.allocConf.push(...allocConfAssignments(idx));
  for (const { left, right } of idx.attributeAssignments) {
    if (left.text.endsWith('.requires_grad') && right.type === 'false') markFrozen(facts, left.text, left.parent ?? left);
  }

  const ds = facts.deepspeed?.value;
  if (ds) {
    const loc = facts.deepspeed!;
    if (ds.stage > 0) facts.sharding = { ...loc, value: ds.stage === 1 ? 'zero1' : ds.stage === 2 ? 'zero2' : 'zero3' };
    if (ds.offloadOptimizer) facts.offloadOptimizer = { ...loc, value: true };
    if (ds.offloadParams) facts.offloadParams = { ...loc, value: true };
    if (ds.precision) {
      facts.weightDtype = { ...loc, value: ds.precision };
      facts.masterWeights = { ...loc, value: true };
    }
    if (ds.microBatch !== undefined) facts.batchSize = { ...loc, value: ds.microBatch };
    if (ds.gradAccum !== undefined) facts.gradAccum = { ...loc, value: ds.gradAccum };
    if (ds.optimizer && !facts.optimizer) facts.optimizer = { ...loc, value: { kind: ds.optimizer, impl: 'fused' } };
  }
  return facts;
}

function visitCall(idx: PythonIndex, call: CallSite, facts: TrainingFacts, options: FactOptions, compiledNames: Set<string>): void {
  const { node, name, method } = call;
  const kw = (key: string): Node | undefined => idx.kwarg(node, key);

  // Models.
  if (method === 'from_pretrained' && !MODEL_LOADER_EXCLUDE.some((x) => name.includes(x))) {
    const ref = idx.evalString(idx.positional(node, 0) ?? kw('pretrained_model_name_or_path'));
    // The load's dtype first: a cast chained on the load (`.to(torch.float32)`) comes after it.
    const dtype = precisionOf(idx, kw('torch_dtype') ?? kw('dtype'));
    if (dtype) facts.weightDtype = located(dtype, node);
    if (ref !== undefined) setModel(idx, facts, modelFromRef(ref, options.baseDir), node);
    const attn = idx.evalString(kw('attn_implementation'));
    if (attn) facts.attention = located(attn.startsWith('flash') ? 'flash' : attn === 'eager' ? 'eager' : 'sdpa', node);
  } else if (method === 'from_config' || (['ForCausalLM', 'LMHeadModel', 'ForSequenceClassification', 'ForMaskedLM', 'ForImageClassification'].some((x) => method.endsWith(x)) || method === 'GPT' || method === 'Transformer')) {
    const configNode = idx.positional(node, 0) ?? kw('config');
    const model = configNode ? modelFromConfigNode(idx, configNode, options.baseDir) : undefined;
    const dtype = precisionOf(idx, kw('torch_dtype') ?? kw('dtype'));
    if (dtype) facts.weightDtype = located(dtype, node);
    if (model) setModel(idx, facts, model, node);
    const attn = idx.evalString(kw('attn_implementation'));
    if (attn) facts.attention = located(attn.startsWith('flash') ? 'flash' : attn === 'eager' ? 'eager' : 'sdpa', node);
  } else if (method.endsWith('Trainer') && idx.evalString(kw('model')) !== undefined) {
    // TRL's trainers take the hub id itself (`SFTTrainer(model=model_args.model_name_or_path)`).
    setModel(idx, facts, modelFromRef(idx.evalString(kw('model'))!, options.baseDir), node);
  } else if (name === 'timm.create_model' || name.startsWith('torchvision.models.') || torchvisionByName(idx, node) !== undefined) {
    const ref = name === 'timm.create_model' ? idx.evalString(idx.positional(node, 0)) : torchvisionByName(idx, node) ?? method;
    const found = ref ? findModel(ref) : undefined;
    if (ref && found) setModel(idx, facts, { ref, origin: 'catalog', shape: found.shape }, node);
  }

  // Precision.
  if ((method === 'to' || method === 'bfloat16' || method === 'half' || method === 'float') && facts.modelVariable) {
    const object = node.childForFieldName('function')?.childForFieldName('object');
    if (object?.text === facts.modelVariable) castWeights(idx, facts, node, method);
  }
  if (method === 'autocast' && idx.evaluate(kw('enabled')) !== false) {
    const dtype = precisionOf(idx, kw('dtype')) ?? 'fp16';
    facts.autocast = located(dtype, node);
  }
  if (method === 'GradScaler' && !facts.autocast) facts.autocast = located('fp16', node);
  if (method === 'Accelerator') {
    const mp = idx.evalString(kw('mixed_precision'));
    if (mp === 'bf16' || mp === 'fp16') facts.autocast = located(mp, node);
  }
  if (method === 'TrainingArguments' || method === 'SFTConfig' || method === 'Seq2SeqTrainingArguments') {
    if (idx.evaluate(kw('bf16')) === true) facts.autocast = located('bf16', node);
    if (idx.evaluate(kw('fp16')) === true) facts.autocast = located('fp16', node);
    if (idx.evaluate(kw('gradient_checkpointing')) === true) facts.checkpointing = located(true, node);
    const optim = idx.evalString(kw('optim'));
    if (optim && HF_OPTIM[optim]) facts.optimizer = located({ kind: HF_OPTIM[optim]!, impl: optim.includes('fused') ? 'fused' : 'foreach' }, node);
    else if (!facts.optimizer) facts.optimizer = located({ kind: 'adamw', impl: 'foreach' }, node);
    const fsdp = idx.evalString(kw('fsdp'));
    if (fsdp) facts.sharding = located(fsdp.includes('shard_grad_op') ? 'fsdp-grad-op' : fsdp.includes('hybrid') ? 'fsdp-hybrid' : 'fsdp-full', node);
    const dsRef = kw('deepspeed');
    if (dsRef) readDeepSpeed(idx, dsRef, facts, options);
  }
  if (method === 'Trainer' && name.includes('lightning')) lightningTrainer(idx, node, facts);
  if (method === 'MixedPrecision' || method === 'MixedPrecisionPolicy') {
    const dtype = precisionOf(idx, kw('param_dtype'));
    if (dtype) facts.autocast = located(dtype, node);
  }

  // Optimizers.
  const optimizerKind = OPTIMIZERS[method];
  if (optimizerKind && (name.includes('optim') || name.includes('bnb') || name.includes('bitsandbytes') || name.includes('deepspeed') || name === method)) {
    let kind = optimizerKind;
    if (kind === 'sgd') {
      const momentum = idx.evalNumber(kw('momentum'));
      if (momentum !== undefined && momentum > 0) kind = 'sgd-momentum';
    }
    const fused = idx.evaluate(kw('fused')) === true;
    const foreachOff = idx.evaluate(kw('foreach')) === false;
    const resident = idx.evalNumber(kw('resident_layers'));
    const stateCopies = optimizerStateCopies(idx, kind, kw);
    facts.optimizer = located(
      {
        kind, impl: fused || name.includes('deepspeed') ? 'fused' : foreachOff ? 'for-loop' : 'foreach',
        ...(resident !== undefined && { residentLayers: resident }), ...(stateCopies !== undefined && { stateCopies }),
      },
      node,
    );
  }

  // Checkpointing and attention.
  if (['gradient_checkpointing_enable', 'apply_activation_checkpointing', 'checkpoint_wrapper', 'checkpoint_sequential'].includes(method) || name === 'torch.utils.checkpoint.checkpoint') {
    facts.checkpointing = located(true, node);
  }
  if (method === 'scaled_dot_product_attention' && !facts.attention) facts.attention = located('sdpa', node);
  if ((method === 'flash_attn_func' || method === 'flash_attn_varlen_func') && !facts.attention) facts.attention = located('flash', node);

  // Parallelism.
  if (method === 'DistributedDataParallel' || (method === 'DDP' && name.includes('parallel'))) facts.sharding ??= located('ddp', node);
  if (method === 'FullyShardedDataParallel' || (method === 'FSDP' && name.includes('fsdp'))) {
    const strategy = kw('sharding_strategy')?.text ?? '';
    facts.sharding = located(strategy.includes('SHARD_GRAD_OP') ? 'fsdp-grad-op' : strategy.includes('HYBRID') ? 'fsdp-hybrid' : strategy.includes('NO_SHARD') ? 'ddp' : 'fsdp-full', node);
    if ((kw('cpu_offload')?.text ?? '').includes('True')) facts.offloadParams = located(true, node);
  }
  if (method === 'fully_shard') {
    facts.sharding = located(idx.evaluate(kw('reshard_after_forward')) === false ? 'fsdp-grad-op' : 'fsdp-full', node);
    if (kw('offload_policy')?.text.includes('CPUOffloadPolicy')) facts.offloadParams = located(true, node);
  }
  if (name === 'deepspeed.initialize') {
    const cfg = kw('config') ?? kw('config_params');
    if (cfg) readDeepSpeed(idx, cfg, facts, options);
  }
  if (method === 'init_device_mesh') {
    const shape = idx.evaluate(idx.positional(node, 1) ?? kw('mesh_shape'));
    const names = idx.evaluate(kw('mesh_dim_names'));
    if (Array.isArray(shape) && Array.isArray(names)) {
      names.forEach((n, i) => {
        const size = shape[i];
        if (typeof size !== 'number') return;
        if (n === 'tp') facts.tensorParallel = located(size, node);
        if (n === 'pp') facts.pipelineParallel = located(size, node);
      });
      const world = shape.reduce<number>((a, b) => (typeof b === 'number' ? a * b : a), 1);
      facts.worldSize ??= located(world, node);
    }
  }
  if (name === 'torch.multiprocessing.spawn' || name === 'mp.spawn') {
    const n = idx.evalNumber(kw('nprocs'));
    if (n !== undefined) facts.worldSize = located(n, node);
  }

  // Threads, graphs, compile.
  if (method === 'Thread' && name.includes('threading')) {
    const target = kw('target');
    if (target) facts.threadTargets.push(located(target.text, target));
  }
  if (method === 'submit' || (method === 'map' && node.childForFieldName('function')?.childForFieldName('object')?.text.includes('executor'))) {
    const target = idx.positional(node, 0);
    if (target && (target.type === 'identifier' || target.type === 'attribute')) facts.threadTargets.push(located(target.text, target));
  }
  if (name === 'torch.cuda.graph') {
    const mode = idx.evalString(kw('capture_error_mode'));
    facts.graphCaptures.push(located({ threadLocal: mode === 'thread_local' || mode === 'relaxed' }, node));
  }
  if (method === 'replay' || method === 'make_graphed_callables') facts.graphCalls.push(located(node.text.split('(')[0] ?? method, node));
  if (name === 'torch.compile') {
    const modeValue = idx.evalString(kw('mode')) ?? idx.evalString(kw('backend')) ?? 'default';
    facts.compile = located(modeValue, node);
    const assignment = node.parent?.type === 'assignment' ? node.parent.childForFieldName('left') : undefined;
    if (assignment?.type === 'identifier') compiledNames.add(assignment.text);
    if (node.parent?.type === 'decorator') {
      const fnName = node.parent.parent?.childForFieldName('definition')?.childForFieldName('name')?.text;
      if (fnName) compiledNames.add(fnName);
    }
  }

  if (method === 'requires_grad_' && idx.evaluate(idx.positional(node, 0) ?? kw('requires_grad')) === false) {
    markFrozen(facts, node.childForFieldName('function')?.childForFieldName('object')?.text ?? '', node);
  }
  if (method === 'DistributedDataParallel' && idx.evaluate(kw('gradient_as_bucket_view')) === true) facts.gradientAsBucketView = located(true, node);
  if (method === 'cross_entropy' || method === 'CrossEntropyLoss') {
    const input = idx.positional(node, 0);
    if (method === 'cross_entropy' && input && !input.text.includes('float')) facts.logitsUpcast = located(false, node);
  }

  if (PROCESS_GROUP_INITS.has(method) && (name.includes('distributed') || name.includes('deepspeed') || name.includes('megatron') || name === method)) {
    facts.processGroup ??= located(method, node);
  }

  if (method === 'generate') {
    const maxNewTokens = idx.evalNumber(kw('max_new_tokens'));
    facts.generate ??= located(maxNewTokens === undefined ? {} : { maxNewTokens }, node);
  }

  // Collectives and cache calls.
  if ((name.startsWith('torch.distributed.') || name.startsWith('deepspeed.comm.')) && COLLECTIVES.has(method)) facts.collectives.push(located(method, node));
  if (method === 'empty_cache' && !name.includes('mps')) facts.emptyCache.push(located(name, node));
  if (method === 'set_per_process_memory_fraction') {
    const f = idx.evalNumber(idx.positional(node, 0) ?? kw('fraction'));
    facts.memoryFraction = located(f ?? 1, node);
  }
  if (method === '_set_allocator_settings') {
    const value = idx.evalString(idx.positional(node, 0));
    if (value !== undefined) facts.allocConf.push(located(value, idx.positional(node, 0)!));
  }
  if ((name === 'os.environ.setdefault' || name === 'os.putenv') && ALLOC_CONF_VARS.has(idx.evalString(idx.positional(node, 0)) ?? '')) {
    const valueNode = idx.positional(node, 1);
    const value = idx.evalString(valueNode);
    if (valueNode && value !== undefined) facts.allocConf.push(located(value, valueNode));
  }
}

/** The largest instance of an nn.Module class defined in the script, counted from its `__init__`. */
function localModel(idx: PythonIndex, facts: TrainingFacts): void {
  const modules = new LocalModules(idx);
  let best: { call: CallSite; params: number } | undefined;
  for (const call of idx.calls) {
    if (!modules.has(call.calleeText) || idx.isDeadSpan(call.startIndex, call.endIndex)) continue;
    let top: Node = call.node;
    while (top.parent && (top.parent.type === 'attribute' || top.parent.type === 'call')) top = top.parent;
    if (top.parent?.type !== 'assignment') continue;
    const params = modules.countCall(call.node);
    if (params !== undefined && (!best || params > best.params)) best = { call, params };
  }
  if (!best) return;
  setModel(idx, facts, {
    ref: `${best.call.calleeText}(...)`,
    origin: 'local-class',
    shape: {
      kind: 'opaque', family: 'local', params: best.params, activationBytesPerSample: 0,
      source: `parameters counted from ${best.call.calleeText}.__init__; activations of modules defined in the script are not estimated`,
    },
  }, best.call.node);
}

const EMBEDDING_NAMES = ['embed', 'wte', 'tok_embeddings', 'word_embeddings'];
const HEAD_NAMES = ['lm_head', 'output', 'head'];

function markFrozen(facts: TrainingFacts, target: string, node: Node): void {
  const last = target.split('.').filter((p) => p !== 'requires_grad' && p !== 'weight').pop() ?? '';
  const part = EMBEDDING_NAMES.some((n) => last.includes(n)) ? 'embedding' : HEAD_NAMES.some((n) => last === n || last.endsWith(n)) ? 'head' : undefined;
  if (!part) return;
  const parts = new Set(facts.frozen?.value ?? []);
  parts.add(part);
  facts.frozen = located([...parts], node);
}

/** Parameter-sized states when the constructor's arguments add to the kind's default ones. */
function optimizerStateCopies(idx: PythonIndex, kind: OptimizerKind, kw: (key: string) => Node | undefined): number | undefined {
  if ((kind === 'adam' || kind === 'adamw') && idx.evaluate(kw('amsgrad')) === true) return 3; // + max_exp_avg_sq
  if (kind === 'rmsprop') {
    const momentum = (idx.evalNumber(kw('momentum')) ?? 0) > 0 ? 1 : 0; // + momentum_buffer
    const centered = idx.evaluate(kw('centered')) === true ? 1 : 0; // + grad_avg
    return momentum + centered > 0 ? 1 + momentum + centered : undefined;
  }
  if (kind === 'lbfgs') {
    const history = idx.evalNumber(kw('history_size'));
    return history !== undefined ? 2 * history + 2 : undefined;
  }
  return undefined;
}

/**
 * The architecture a torchvision factory looked up by name builds: `models.__dict__[args.arch]()` (the
 * pytorch/examples ImageNet script and its forks) or `getattr(models, name)()`, with the name evaluated.
 */
function torchvisionByName(idx: PythonIndex, call: Node): string | undefined {
  const fn = call.childForFieldName('function');
  let owner: Node | null | undefined;
  let key: Node | null | undefined;
  if (fn?.type === 'subscript') {
    const value = fn.childForFieldName('value');
    if (value?.type !== 'attribute' || value.childForFieldName('attribute')?.text !== '__dict__') return undefined;
    owner = value.childForFieldName('object');
    key = fn.childForFieldName('subscript');
  } else if (fn?.type === 'call' && fn.childForFieldName('function')?.text === 'getattr') {
    owner = idx.positional(fn, 0);
    key = idx.positional(fn, 1);
  }
  if (!owner || !key || idx.canonical(owner) !== 'torchvision.models') return undefined;
  return idx.evalString(key);
}

/** `model.to(torch.bfloat16)`, `model.half()`, `model.bfloat16()`, `model.float()`: the weights' dtype from then on. */
function castWeights(idx: PythonIndex, facts: TrainingFacts, call: Node, method: string): void {
  // `.to(dtype)`, `.to(device, dtype)` or `.to(dtype=...)`.
  const toDtype = (): Precision | undefined => precisionOf(idx, idx.kwarg(call, 'dtype')) ?? precisionOf(idx, idx.positional(call, 0)) ?? precisionOf(idx, idx.positional(call, 1));
  const dtype = method === 'to' ? toDtype() : method === 'half' ? 'fp16' : method === 'bfloat16' ? 'bf16' : method === 'float' ? 'fp32' : undefined;
  if (dtype) facts.weightDtype = located(dtype, call);
}

function setModel(idx: PythonIndex, facts: TrainingFacts, model: ModelFact, node: Node): void {
  // A later load the catalog cannot size (`GPT.from_pretrained(init_from)` on a branch we cannot
  // decide) must not hide a model whose size is known.
  if (facts.model?.value.shape && !model.shape) return;
  facts.model = located(model, node);
  // `model = Auto...from_config(cfg).to('cuda', torch.bfloat16)`: climb the call chain to the
  // assignment, reading the casts on the way (they run before any later `model.to(...)` is seen).
  let top: Node = node;
  while (top.parent && (top.parent.type === 'attribute' || top.parent.type === 'call')) {
    top = top.parent;
    if (top.type === 'call') castWeights(idx, facts, top, top.childForFieldName('function')?.childForFieldName('attribute')?.text ?? '');
  }
  const assignment = top.parent?.type === 'assignment' ? top.parent.childForFieldName('left') : undefined;
  if (assignment) facts.modelVariable = assignment.text;
}

function modelFromRef(ref: string, baseDir: string): ModelFact {
  const local = readLocalConfig(ref, baseDir);
  if (local) return { ref, origin: 'config.json', shape: local.shape, configFile: local.file };
  const found = findModel(ref);
  if (found) return { ref, origin: 'catalog', shape: found.shape };
  const cachedFile = hubCacheConfig(ref);
  const cached = cachedFile ? readLocalConfig(cachedFile, baseDir) : undefined;
  return cached ? { ref, origin: 'config.json', shape: cached.shape, configFile: cached.file } : { ref, origin: 'catalog' };
}

/** A model from `from_config(cfg)` / `LlamaForCausalLM(cfg)` / `GPT(GPTConfig(...))`, following one variable hop. */
function modelFromConfigNode(idx: PythonIndex, configNode: Node, baseDir: string, depth = 0): ModelFact | undefined {
  if (depth > 3) return undefined;
  if (configNode.type === 'identifier') {
    const bound = idx.assignments.get(configNode.text);
    return bound ? modelFromConfigNode(idx, bound, baseDir, depth + 1) : undefined;
  }
  if (configNode.type !== 'call') return undefined;
  const fn = configNode.childForFieldName('function');
  if (!fn) return undefined;
  const name = idx.canonical(fn);
  const method = name.split('.').pop() ?? name;
  if (method === 'from_pretrained') {
    const ref = idx.evalString(idx.positional(configNode, 0));
    return ref !== undefined ? modelFromRef(ref, baseDir) : undefined;
  }
  const modelType = CONFIG_CLASSES[method];
  if (!modelType) return undefined;
  const config: Record<string, PyValue> = { model_type: modelType === 'gpt2' && method === 'GPTConfig' ? 'gpt2' : modelType };
  for (const arg of configNode.childForFieldName('arguments')?.namedChildren ?? []) {
    if (arg?.type === 'keyword_argument') {
      const key = arg.childForFieldName('name')?.text;
      const value = idx.evaluate(arg.childForFieldName('value'));
      if (key && value !== undefined) config[key] = value;
    } else if (arg?.type === 'dictionary_splat') {
      const value = idx.evaluate(arg.namedChildren[0]);
      if (value && typeof value === 'object' && !Array.isArray(value)) Object.assign(config, value);
    }
  }
  if (modelType === 'gpt2' && config['n_embd'] === undefined && config['hidden_size'] !== undefined) config['n_embd'] = config['hidden_size'];
  const shape = shapeFromConfig(config);
  if (shape && localModuleUsesFusedGelu(name, baseDir)) shape.fusedGelu = true;
  return shape ? { ref: `${method}(...)`, origin: 'config-call', shape } : undefined;
}

/**
 * For a config class imported from a module beside the script (`from model import GPTConfig`): true
 * when that module calls PyTorch's GELU and writes no tanh approximation of its own.
 */
function localModuleUsesFusedGelu(canonicalName: string, baseDir: string): boolean {
  const modulePath = canonicalName.split('.').slice(0, -1);
  if (modulePath.length === 0 || modulePath[0] === 'transformers') return false;
  const file = path.join(baseDir, ...modulePath) + '.py';
  if (!existsSync(file)) return false;
  const text = readFileSync(file, 'utf8');
  return /\b(?:nn\.GELU|F\.gelu|functional\.gelu)\(/.test(text) && !/\btanh\(/.test(text);
}

function readDeepSpeed(idx: PythonIndex, ref: Node, facts: TrainingFacts, options: FactOptions): void {
  const value = idx.evaluate(ref);
  if (typeof value === 'string') {
    const file = path.resolve(options.baseDir, value);
    const cfg = readJson(file);
    if (cfg) facts.deepspeed = located(deepSpeedFromConfig(cfg, file), ref);
  } else if (value && typeof value === 'object' && !Array.isArray(value)) {
    facts.deepspeed = located(deepSpeedFromConfig(value), ref);
  }
}

function lightningTrainer(idx: PythonIndex, node: Node, facts: TrainingFacts): void {
  const precision = idx.evaluate(idx.kwarg(node, 'precision'));
  const p = typeof precision === 'number' ? String(precision) : precision;
  if (p === 'bf16-mixed' || p === 'bf16') facts.autocast = located('bf16', node);
  if (p === '16-mixed' || p === '16') facts.autocast = located('fp16', node);
  if (p === 'bf16-true') facts.weightDtype = located('bf16', node);
  if (p === '16-true') facts.weightDtype = located('fp16', node);
  const strategyNode = idx.kwarg(node, 'strategy');
  const strategy = idx.evalString(strategyNode) ?? strategyNode?.text ?? '';
  if (strategy.startsWith('deepspeed_stage_')) {
    const stage = Number(strategy.split('_')[2]);
    facts.sharding = located(stage === 1 ? 'zero1' : stage === 2 ? 'zero2' : 'zero3', node);
    if (strategy.includes('offload')) facts.offloadOptimizer = located(true, node);
    facts.masterWeights = located(true, node);
  } else if (strategy.startsWith('fsdp') || strategy.includes('FSDPStrategy')) {
    facts.sharding = located(strategy.includes('SHARD_GRAD_OP') ? 'fsdp-grad-op' : 'fsdp-full', node);
    if (strategy.includes('activation_checkpointing')) facts.checkpointing = located(true, node);
  } else if (strategy.startsWith('ddp')) {
    facts.sharding = located('ddp', node);
  }
  const devices = idx.evalNumber(idx.kwarg(node, 'devices'));
  const nodes = idx.evalNumber(idx.kwarg(node, 'num_nodes')) ?? 1;
  if (devices !== undefined) facts.worldSize = located(devices * nodes, node);
  const accum = idx.evalNumber(idx.kwarg(node, 'accumulate_grad_batches'));
  if (accum !== undefined) facts.gradAccum = located(accum, node);
}

/** Assignments `os.environ["PYTORCH_CUDA_ALLOC_CONF"] = "..."`, dict entries and keyword arguments with that key. */
export function allocConfAssignments(idx: PythonIndex): Array<Located<string>> {
  const out: Array<Located<string>> = [];
  const add = (valueNode: Node): void => {
    const value = idx.evalString(valueNode);
    if (value !== undefined) out.push(located(value, valueNode));
  };
  for (const { left, right } of idx.subscriptAssignments) {
    const key = idx.evalString(left.childForFieldName('subscript'));
    if (key && ALLOC_CONF_VARS.has(key)) add(right);
  }
  for (const { key, value } of idx.pairs) {
    // Most dictionaries in a training script are not environments: look at the key text first.
    if (!key.text.includes('ALLOC_CONF')) continue;
    const k = idx.evalString(key);
    if (k && ALLOC_CONF_VARS.has(k)) add(value);
  }
  for (const name of ALLOC_CONF_VARS) for (const value of idx.kwargValues.get(name) ?? []) add(value);
  return out.sort((a, b) => a.loc.line - b.loc.line || a.loc.character - b.loc.character);
}
