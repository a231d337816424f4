/**
 * The per-card memory plan: weights, gradients, optimizer states and master copies under the
 * precision and sharding in use; activations per layer (with and without checkpointing, with
 * and without flash/SDPA attention); logits and their float upcast; communication buffers;
 * runtime/context overhead; and a fragmentation margin, against the target device's capacity.
 *
 * Peak memory is the larger of two phases of a training step: the end of the forward pass
 * (activations and logits alive) and the optimizer step (gradients, states and the optimizer's
 * temporaries alive). docs/PLAN.md derives every term and compares the result with GPU
 * measurements and with DeepSpeed's and accelerate's estimators.
 */
import type { DeviceSpec } from '../devices/catalog';
import { STATE_COPIES, type Precision, type Sharding, type TrainingFacts } from './facts';
import { totalParams, transformerParams, type ModelShape, type TransformerShape } from './models';

export interface PlanItem {
  key: PlanKey;
  label: string;
  bytes: number;
  /** How the number was computed, with the facts it used. */
  note: string;
}

export type PlanKey =
  | 'weights' | 'gradients' | 'optimizerStates' | 'masterWeights' | 'optimizerStepTemp' | 'autocastWeightCopies'
  | 'ddpBuckets' | 'shardGather' | 'activations' | 'logits' | 'kvCache' | 'commBuffers' | 'runtimeOverhead' | 'fragmentationMargin';

export interface MemoryPlan {
  device: DeviceSpec;
  params: number;
  trainableParams: number;
  /** Peak of tensors the framework allocates (comparable with `torch.cuda.max_memory_allocated`). */
  allocatedPeakBytes: number;
  /** Everything the card must hold: the allocated peak plus runtime, communication and fragmentation margins. */
  perCardBytes: number;
  peakPhase: 'forward' | 'optimizer-step';
  /** The terms of `perCardBytes` at the peak phase, in display order. */
  breakdown: PlanItem[];
  /** Defaults used where the script did not say (shown so the user can correct them). */
  assumptions: string[];
  /** 0-based line of the model construction. */
  line: number;
}

/**
 * Non-PyTorch memory per process on an H200: device used minus PyTorch reserved after training steps
 * (767 MiB in 6 of the 7 runs of docs/GPU-RESULTS.md, issue 4); NCCL terms from the two-rank
 * measurement in test/fixtures/flight-recorder/README.md.
 */
const MiB = 1024 ** 2;
const CUDA_CONTEXT_BYTES = 804_061_184;
const NCCL_ALLREDUCE_BYTES = (1525 - 687) * MiB;
const NCCL_ALLTOALL_BYTES = (1971 - 1525) * MiB;

/** Reserved-over-allocated seen on the H200 fixtures: 14.8% with the default allocator, 1.9% with expandable segments. */
const FRAGMENTATION_DEFAULT = 0.1;
const FRAGMENTATION_EXPANDABLE = 0.02;

function bytesOf(p: Precision): number {
  return p === 'fp32' ? 4 : 2;
}

interface Layout {
  world: number;
  tp: number;
  pp: number;
  dp: number;
  sharding: Sharding;
}

function layout(facts: TrainingFacts, assumptions: string[]): Layout {
  const sharding = facts.sharding?.value ?? 'none';
  const tp = Math.max(1, facts.tensorParallel?.value ?? 1);
  const pp = Math.max(1, facts.pipelineParallel?.value ?? 1);
  let world = facts.worldSize?.value;
  if (world === undefined) {
    world = tp * pp;
    if (sharding !== 'none') assumptions.push(`world size not found (no launcher line or world_size): assumed ${world} rank(s)`);
  }
  return { world, tp, pp, dp: Math.max(1, Math.floor(world / (tp * pp))), sharding };
}

/**
 * Bytes of activations one transformer layer saves for backward, per token (multiply by batch x
 * sequence). The counts follow the tensors autograd keeps in a Hugging Face Llama/GPT-2 layer;
 * docs/PLAN.md lists them.
 */
export function layerActivationBytesPerToken(s: TransformerShape, compute: Precision, residual: Precision, attention: 'flash' | 'sdpa' | 'eager', seq: number): number {
  const h = s.hidden;
  const hq = s.heads * s.headDim;
  const hkv = s.kvHeads * s.headDim;
  const i = s.intermediate;
  const d = bytesOf(compute);
  const r = bytesOf(residual);
  const mixed = d < r;
  let perToken: number;
  if (s.norm === 'rms') {
    // RMSNorm computes in fp32: its input (upcast), the normalized value, and the output the
    // projections read (one low-precision cast per projection under autocast).
    const normSaved = (casts: number): number => 4 * h + (mixed ? 4 * h + casts * d * h : 2 * d * h);
    const attention_ = d * hq + 2 * d * hkv + d * hq;
    const mlp = s.mlp === 'gated' ? 4 * d * i : 2 * d * i;
    perToken = normSaved(3) + attention_ + normSaved(s.mlp === 'gated' ? 2 : 1) + mlp;
    if (!mixed && d === 4) perToken -= 2 * 4 * h; // fp32 throughout: the upcast is the input itself
  } else {
    // LayerNorm (GPT-2/BERT/ViT): input and output, plus a cast under autocast; fused q/k/v.
    const norm = mixed ? 4 * h + 4 * h + d * h : r * h + d * h;
    // GPT-2's gelu_new is written out in Python (pow, tanh, adds, muls); autograd keeps five
    // intermediates of the MLP width, the pow input and the tanh terms in fp32 under autocast.
    const mlp = s.family === 'gpt2' && !s.fusedGelu ? (mixed ? 16 * i : 5 * d * i) : 2 * d * i;
    perToken = 2 * norm + d * (hq + 2 * hkv) + d * hq + mlp;
  }
  if (attention === 'eager') {
    // Scores kept as the fp32 softmax output and its low-precision copy, per head and key.
    perToken += s.heads * seq * (4 + d);
  }
  return perToken;
}

interface ActivationTerms {
  /** Samples per micro-batch and tokens per sample (0 for models sized per image). */
  batch: number;
  seq: number;
  /** Without checkpointing: everything the layers save. With it: the saved layer inputs only. */
  activations: number;
  /** With checkpointing: one layer's activations while it is recomputed in backward. */
  recomputedLayer: number;
  checkpointed: boolean;
  /** Logits at the end of the forward pass (logits, fp32 copy, log-softmax). */
  logitsForward: number;
  /** Logits when backward starts (adds the log-softmax gradients). */
  logitsBackward: number;
  /** The logits tensor the model output keeps alive. */
  logitsHeld: number;
  activationNote: string;
  logitsNote: string;
}

/** Activation bytes a whole forward pass keeps, and the logits terms, for one micro-batch on one card. */
function activationTerms(
  shape: ModelShape, facts: TrainingFacts, layersOnCard: number, lastCard: boolean, compute: Precision, residual: Precision, assumptions: string[],
): ActivationTerms {
  const batch = facts.batchSize?.value ?? 1;
  if (!facts.batchSize) assumptions.push('batch size not found: assumed 1 per device');
  if (shape.kind === 'opaque') {
    const image = facts.imageSize?.value ?? 224;
    const perSample = bytesOf(compute) === 4 ? (shape.fp32ActivationBytesPerSample ?? 2 * shape.activationBytesPerSample) : shape.activationBytesPerSample;
    const activations = Math.round(perSample * batch * (image / 224) ** 2);
    if (shape.activationBytesPerSample === 0) assumptions.push(shape.source);
    return {
      batch, seq: 0, activations, recomputedLayer: 0, checkpointed: false, logitsForward: 0, logitsBackward: 0, logitsHeld: 0,
      activationNote: `${batch} x ${image} px images (${shape.source})`,
      logitsNote: '',
    };
  }
  const tp = Math.max(1, facts.tensorParallel?.value ?? 1);
  let seq = shape.tokensPerSample ?? facts.seqLen?.value;
  if (seq === undefined) {
    seq = shape.learnedPositions > 0 ? shape.learnedPositions : 2048;
    assumptions.push(`sequence length not found: assumed ${seq}`);
  }
  const attention = facts.attention?.value ?? 'sdpa';
  const tokens = batch * seq;
  const perLayer = layerActivationBytesPerToken(shape, compute, residual, attention, seq) * tokens / tp;
  const checkpointed = facts.checkpointing?.value === true;
  const layerInput = bytesOf(residual) * shape.hidden * tokens / tp;
  const activations = checkpointed ? layersOnCard * layerInput : layersOnCard * perLayer;
  let logitsForward = 0;
  let logitsBackward = 0;
  let logitsHeld = 0;
  let logitsNote = '';
  if (shape.causalLm && lastCard && shape.vocab > 0) {
    const d = bytesOf(compute);
    const upcast = facts.logitsUpcast?.value !== false && d < 4;
    // Forward end: the logits in the compute dtype, then (with the float upcast) an fp32 copy and the
    // fp32 log-softmax saved for backward. Backward start: the log-softmax gradient and its input's
    // gradient join them.
    const elements = (tokens * shape.vocab) / tp;
    logitsForward = (upcast ? d + 8 : 2 * d) * elements;
    logitsBackward = (upcast ? d + 12 : 4 * d) * elements;
    logitsHeld = d * elements;
    logitsNote = `${batch} x ${seq} x vocab ${shape.vocab} (${facts.inference ? compute : upcast ? 'upcast to fp32 for the loss' : 'loss in ' + compute})`;
  }
  const activationNote = checkpointed
    ? `checkpointed: ${layersOnCard} layer inputs of ${batch} x ${seq} x ${shape.hidden} (${attention} attention)`
    : `${layersOnCard} layers x ${batch} x ${seq} tokens (${attention} attention${attention === 'eager' ? ', quadratic scores' : ''})`;
  return {
    batch, seq, activations: Math.round(activations), recomputedLayer: checkpointed ? Math.round(perLayer) : 0, checkpointed,
    logitsForward: Math.round(logitsForward), logitsBackward: Math.round(logitsBackward), logitsHeld: Math.round(logitsHeld),
    activationNote, logitsNote,
  };
}

export interface PlanOptions {
  device: DeviceSpec;
}

/** The memory plan of the card that needs the most, or undefined when the model's size is unknown. */
export function planMemory(facts: TrainingFacts, options: PlanOptions): MemoryPlan | undefined {
  const model = facts.model;
  const shape = model?.value.shape;
  if (!model || !shape) return undefined;
  const assumptions: string[] = [];
  if (facts.launch) assumptions.push(`arguments and world size from ${facts.launch.evidence}`);
  if (facts.argumentsFrom) assumptions.push(`arguments from ${facts.argumentsFrom}`);
  const { device } = options;
  const lay = layout(facts, assumptions);
  const params = totalParams(shape);

  const master = facts.masterWeights?.value === true;
  const weightDtype: Precision = facts.weightDtype?.value ?? 'fp32';
  if (!facts.weightDtype && model.evidence.includes('from_pretrained')) {
    assumptions.push("weights' dtype not given: assumed fp32 (transformers 4.x loads fp32; transformers 5 loads the checkpoint's dtype, pass torch_dtype to be sure)");
  }
  const autocast = facts.autocast?.value;
  const compute: Precision = autocast ?? weightDtype;
  const residual: Precision = weightDtype;
  const resident = facts.optimizer?.value.residentLayers;
  const layerOffload = resident !== undefined;

  // Parameters per card: decoder layers split over pipeline stages, embeddings on the first stage,
  // head and final norm on the last; tensor parallelism divides everything.
  const split = shape.kind === 'transformer' ? transformerParams(shape) : undefined;
  const layers = shape.kind === 'transformer' ? shape.layers : 0;
  const layersOnCard = Math.ceil(layers / lay.pp);
  const frozenEmbedding = facts.frozen?.value.includes('embedding') === true;
  const frozenHead = facts.frozen?.value.includes('head') === true;
  const cards = lay.pp === 1 ? [{ first: true, last: true }] : [{ first: true, last: false }, { first: false, last: true }];
  const tshape = shape.kind === 'transformer' ? shape : undefined;
  const planCard = (first: boolean, last: boolean): MemoryPlan => {
    const notes: string[] = [...assumptions];
    let onCard: number;
    let trainable: number;
    if (split) {
      const layerParams = split.perLayer * layersOnCard;
      const embedding = first ? split.embedding : 0;
      const head = last ? split.head + split.other : 0;
      onCard = (layerParams + embedding + head) / lay.tp;
      trainable = (layerParams + (frozenEmbedding ? 0 : embedding) + (frozenHead ? 0 : head)) / lay.tp;
    } else {
      onCard = params;
      trainable = params;
    }
    // Inference keeps no gradients, optimizer states or saved activations.
    const inference = facts.inference !== undefined;
    if (inference) {
      trainable = 0;
      notes.push(`inference: ${facts.inference!.value} and no backward, optimizer or train() call, so no gradients or optimizer states`);
    }
    const s = lay.sharding;
    const shardWeights = s === 'zero3' || s === 'fsdp-full' || s === 'fsdp-hybrid' ? lay.dp : 1;
    const shardGrads = s === 'zero2' || s === 'zero3' || s === 'fsdp-full' || s === 'fsdp-grad-op' || s === 'fsdp-hybrid' ? lay.dp : 1;
    const shardStates = s === 'none' || s === 'ddp' ? 1 : lay.dp;
    const offloadOpt = facts.offloadOptimizer?.value === true;
    const offloadParams = facts.offloadParams?.value === true;

    const items: PlanItem[] = [];
    const add = (key: PlanKey, label: string, bytes: number, note: string): void => {
      if (bytes > 0) items.push({ key, label, bytes: Math.round(bytes), note });
    };
    const wBytes = bytesOf(weightDtype);
    add('weights', 'Weights', offloadParams ? 0 : (onCard * wBytes) / shardWeights,
      `${fmtCount(onCard)} params on this card x ${wBytes} B (${weightDtype})${shardWeights > 1 ? `, sharded over ${shardWeights}` : ''}`);
    const gradBytes = wBytes;
    add('gradients', 'Gradients', (trainable * gradBytes) / shardGrads,
      `${fmtCount(trainable)} trainable x ${gradBytes} B${shardGrads > 1 ? `, sharded over ${shardGrads}` : ''}`);

    const opt = facts.optimizer?.value;
    const kind = opt?.kind ?? 'adamw';
    if (!opt && !inference) notes.push('optimizer not found: assumed AdamW');
    const stateDtypeBytes = master ? 4 : wBytes;
    const statesPerParam = kind === 'adam8bit' ? 2 : kind === 'adafactor' ? 0.05 * stateDtypeBytes : (opt?.stateCopies ?? STATE_COPIES[kind]) * stateDtypeBytes;
    const masterPerParam = master ? 4 : 0;
    let statesOnCard: number;
    let masterOnCard: number;
    let stepTemp = 0;
    let statesNote: string;
    if (layerOffload && split) {
      const residentParams = (split.perLayer * Math.min(resident, layersOnCard)) / lay.tp;
      // Resident layers keep an fp32 master and both AdamW moments on the card (12 B/param).
      statesOnCard = residentParams * 8;
      masterOnCard = residentParams * 4;
      stepTemp = (tshape ? tshape.hidden * tshape.intermediate : 0) * 4;
      statesNote = `${Math.min(resident, layersOnCard)} resident layers x ${fmtCount(split.perLayer)} params x 8 B (fp32 moments); the other layers' states live on the host`;
    } else if (offloadOpt) {
      statesOnCard = 0;
      masterOnCard = 0;
      statesNote = 'offloaded to the host';
    } else {
      statesOnCard = (trainable * statesPerParam) / shardStates;
      masterOnCard = (trainable * masterPerParam) / shardStates;
      statesNote = `${fmtCount(trainable)} trainable x ${statesPerParam} B (${kind})${shardStates > 1 ? `, sharded over ${shardStates}` : ''}`;
      const impl = opt?.impl ?? 'foreach';
      if (impl === 'foreach' && (kind === 'adamw' || kind === 'adam')) {
        stepTemp = statesOnCard / 2;
      } else if (impl === 'for-loop' && tshape) {
        stepTemp = tshape.hidden * Math.max(tshape.intermediate, tshape.vocab) * stateDtypeBytes / lay.tp;
      }
    }
    add('optimizerStates', 'Optimizer states', statesOnCard, statesNote);
    add('masterWeights', 'fp32 master weights', masterOnCard, layerOffload ? 'fp32 master of the resident layers' : `${fmtCount(trainable)} x 4 B${shardStates > 1 ? `, sharded over ${shardStates}` : ''}`);

    const ddpBuckets = s === 'ddp' && facts.gradientAsBucketView?.value !== true ? trainable * gradBytes : 0;
    const gather = shardWeights > 1 && split ? 2 * split.perLayer * bytesOf(compute) / lay.tp + split.perLayer * gradBytes / lay.tp : 0;
    const castBytes = autocast && bytesOf(autocast) < wBytes && split ? bytesOf(autocast) / lay.tp / shardWeights : 0;
    const headCast = split && last ? (split.head > 0 ? split.head : split.embedding) * castBytes : 0;
    const layerCast = split ? split.perLayer * castBytes : 0;
    const autocastCopies = layerCast * layersOnCard + headCast;

    const act = activationTerms(shape, facts, layersOnCard, last, compute, residual, notes);
    const accumulating = (facts.gradAccum?.value ?? 1) > 1;
    const steady = items.reduce((a, it) => a + (it.key === 'gradients' ? 0 : it.bytes), 0) + ddpBuckets + gather;
    const gradsBytes = items.find((it) => it.key === 'gradients')?.bytes ?? 0;
    const base = steady + (accumulating ? gradsBytes : 0);

    // The forward-side peak. Without checkpointing the layers save their activations and autocast's
    // weight casts until their backward, so backward's start is the peak. With checkpointing only the
    // layer inputs stay; autocast's casts are dropped when its context exits (but the head's, which the
    // head saves), and one layer at a time is recomputed while the model output still holds the logits.
    interface Candidate { copies: number; copiesNote: string; activations: number; activationNote: string; logits: number; logitsNote: string }
    // Without autograd, checkpointing changes nothing: inference is read first.
    const candidates: Candidate[] = inference
      ? [{ copies: autocastCopies, copiesNote: 'casts of every matmul weight, cached while autocast is on', ...inferenceActivations(shape, act, compute, lay.tp, notes), ...inferenceLogits(act, tshape, facts, compute, lay.tp) }]
      : act.checkpointed
      ? [
          { copies: autocastCopies, copiesNote: 'casts of every matmul weight, cached by autocast until the forward pass ends', activations: act.activations, activationNote: act.activationNote, logits: act.logitsForward, logitsNote: `${act.logitsNote}, at the end of the forward pass` },
          { copies: headCast, copiesNote: "the head's cast, saved for backward", activations: act.activations, activationNote: act.activationNote, logits: act.logitsBackward, logitsNote: `${act.logitsNote}, when backward starts` },
          { copies: headCast + layerCast, copiesNote: "the head's cast and the recomputed layer's", activations: act.activations + act.recomputedLayer, activationNote: `${act.activationNote}, one layer recomputed`, logits: act.logitsHeld, logitsNote: `${act.logitsNote}, the logits the model output holds` },
        ]
      : [{ copies: autocastCopies, copiesNote: 'casts of every matmul weight, cached by autocast and saved for backward', activations: act.activations, activationNote: act.activationNote, logits: act.logitsBackward, logitsNote: `${act.logitsNote}, when backward starts` }];
    const total = (c: Candidate): number => c.copies + c.activations + c.logits;
    const fwd = candidates.reduce((a, b) => (total(b) > total(a) ? b : a));
    const forward = base + total(fwd);
    // The optimizer step runs while the loop still holds the last model output (and its logits).
    const step = steady + gradsBytes + stepTemp + act.logitsHeld;
    const peakPhase = inference || forward >= step ? 'forward' : 'optimizer-step';

    const peakItems = items.filter((it) => it.key !== 'gradients' || peakPhase === 'optimizer-step' || accumulating);
    const pushPeak = (key: PlanKey, label: string, bytes: number, note: string): void => {
      if (bytes > 0) peakItems.push({ key, label, bytes: Math.round(bytes), note });
    };
    pushPeak('ddpBuckets', 'DDP gradient buckets', ddpBuckets, 'a copy of the gradients (gradient_as_bucket_view=False)');
    pushPeak('shardGather', 'Gathered shard buffers', gather, 'one layer unsharded for compute plus one prefetched, and its reduce-scatter gradient');
    if (peakPhase === 'forward') {
      pushPeak('autocastWeightCopies', 'Autocast weight copies', fwd.copies, fwd.copiesNote);
      pushPeak('activations', 'Activations', fwd.activations, fwd.activationNote);
      pushPeak('logits', inference ? 'Logits' : 'Logits and loss', fwd.logits, fwd.logitsNote);
      if (inference && tshape && facts.generate) pushPeak('kvCache', 'KV cache', ...kvCache(tshape, act, facts, layersOnCard, lay.tp, compute, notes));
    } else {
      pushPeak('optimizerStepTemp', 'Optimizer step temporaries', stepTemp, 'foreach AdamW keeps sqrt(exp_avg_sq) for every parameter during step()');
      pushPeak('logits', 'Logits held by the model output', act.logitsHeld, act.logitsNote);
    }
    const allocatedPeakBytes = peakItems.reduce((a, it) => a + it.bytes, 0);

    const communicates = facts.processGroup !== undefined || facts.launch !== undefined || lay.sharding !== 'none';
    const distributed = (lay.world > 1 && communicates) || facts.collectives.length > 0;
    const onNvidiaLike = device.platform === 'cuda' || device.platform === 'rocm';
    const runtime = onNvidiaLike ? CUDA_CONTEXT_BYTES : 0;
    if (!onNvidiaLike) notes.push(`runtime overhead on ${device.name} is not published: counted as 0`);
    const usesAllToAll = facts.collectives.some((c) => c.value.startsWith('all_to_all'));
    const comm = onNvidiaLike && distributed ? NCCL_ALLREDUCE_BYTES + (usesAllToAll ? NCCL_ALLTOALL_BYTES : 0) : 0;
    const expandable = [...facts.allocConf, ...(facts.launchAllocConf ?? [])].some((c) => c.value.includes('expandable_segments:True') || c.value.includes('expandable_segments:true'));
    const fragmentation = allocatedPeakBytes * (expandable ? FRAGMENTATION_EXPANDABLE : FRAGMENTATION_DEFAULT);
    pushPeak('commBuffers', 'NCCL/RCCL buffers', comm, `communicator buffers after the first all_reduce${usesAllToAll ? ' and all_to_all' : ''} (measured on 2x H200, NCCL 2.28)`);
    pushPeak('runtimeOverhead', 'Runtime/context', runtime, 'CUDA context, cuBLAS workspace and loaded kernels of a training process (measured on an H200)');
    pushPeak('fragmentationMargin', 'Fragmentation margin', fragmentation,
      `${expandable ? FRAGMENTATION_EXPANDABLE * 100 : FRAGMENTATION_DEFAULT * 100}% of the allocated peak (reserved/allocated on the H200 fixtures${expandable ? ' with expandable segments' : ''})`);
    return {
      device,
      params,
      trainableParams: Math.round(trainable * lay.tp),
      allocatedPeakBytes,
      perCardBytes: peakItems.reduce((a, it) => a + it.bytes, 0),
      peakPhase,
      breakdown: peakItems,
      assumptions: [...new Set(notes)],
      line: model.loc.line,
    };
  };
  let best: MemoryPlan | undefined;
  for (const card of cards) {
    const plan = planCard(card.first, card.last);
    if (!best || plan.perCardBytes > best.perCardBytes) best = plan;
  }
  return best;
}

/**
 * Without autograd a forward holds one layer's tensors at a time, and the MLP is its widest point: the
 * residual input and its normed copy, then the MLP's outputs (gate, up and their product; fc and its
 * activation). For models known only by a training measurement, nothing is estimated.
 */
function inferenceActivations(shape: ModelShape, act: ActivationTerms, compute: Precision, tp: number, notes: string[]): { activations: number; activationNote: string } {
  if (shape.kind === 'opaque') {
    notes.push('activations of a forward without autograd are not estimated for this model');
    return { activations: 0, activationNote: '' };
  }
  const d = bytesOf(compute);
  const perToken = 2 * d * shape.hidden + (shape.mlp === 'gated' ? 3 : 2) * d * shape.intermediate / tp;
  return { activations: perToken * act.batch * act.seq, activationNote: `one layer's MLP at a time (no autograd): ${act.batch} x ${act.seq} tokens` };
}

/**
 * A plain forward returns logits for every position; `generate` asks for the last position only
 * (`logits_to_keep`, transformers 4.45 and later) and keeps an fp32 copy of them.
 */
function inferenceLogits(act: ActivationTerms, s: TransformerShape | undefined, facts: TrainingFacts, compute: Precision, tp: number): { logits: number; logitsNote: string } {
  if (!facts.generate || !s?.causalLm) return { logits: act.logitsHeld, logitsNote: `${act.logitsNote}, the output of one forward` };
  return { logits: (act.batch * s.vocab * (bytesOf(compute) + 4)) / tp, logitsNote: `${act.batch} x vocab ${s.vocab}: the last position's logits and generate's fp32 copy` };
}

/**
 * K and V of every layer on the card for the prompt (the plan's sequence length) plus the generated
 * tokens, in the compute dtype.
 */
function kvCache(s: TransformerShape, act: ActivationTerms, facts: TrainingFacts, layersOnCard: number, tp: number, compute: Precision, notes: string[]): [number, string] {
  const generated = facts.generate?.value.maxNewTokens;
  if (generated === undefined) notes.push("generate's max_new_tokens not found: the KV cache counts the prompt only");
  const positions = act.seq + (generated ?? 0);
  const bytes = 2 * layersOnCard * (s.kvHeads * s.headDim / tp) * act.batch * positions * bytesOf(compute);
  return [bytes, `${layersOnCard} layers x K and V x ${act.batch} x ${positions} positions x ${s.kvHeads} KV heads x ${s.headDim} (${compute})`];
}

function fmtCount(n: number): string {
  if (n >= 1e9) return `${(n / 1e9).toFixed(2)}B`;
  if (n >= 1e6) return `${(n / 1e6).toFixed(1)}M`;
  return String(Math.round(n));
}
