/**
 * DirectML (Microsoft's DirectX 12 machine-learning layer, on any Windows GPU: AMD, Intel, NVIDIA, integrated):
 * - torch-directml's allocator refusing a tensor ("Could not allocate tensor with 52428800 bytes. There is not enough GPU
 *   video memory available!", raised as a RuntimeError; ComfyUI's model_management.is_oom and the DirectML forks of the
 *   Stable Diffusion web UIs catch it as an OOM): catchable-oom with the request;
 * - TensorFlow-DirectML's OOM on its DML device ("OOM when allocating tensor with shape[…] and type float on
 *   /job:localhost/replica:0/task:0/device:DML:0 by allocator DmlAllocator"), read by tensorflowMessage.ts: catchable-oom
 *   with the device index.
 * DirectML names no vendor: the platform is the one the lines around name (its own "GPU", and the DML device, read as cuda,
 * the engine's reading of a GPU no vendor is named for), so an AMD card is rocm only where the log says so.
 */
import { formatBytes } from '../../format';
import { shrinkPeak } from '../fixes';
import { thrownUncaught } from './lineContext';
import { devicePlatformNear, platformNear } from './otherOom';
import { parseTensorflowOom, tensorflowFinding } from './tensorflowMessage';
import type { Signature } from './types';

const TORCH_DIRECTML_OOM = /\bCould not allocate tensor with (\d+) bytes\.?\s*There is not enough GPU video memory available\b/;

const torchDirectmlOom: Signature = {
  id: 'directml-out-of-memory',
  platform: 'cuda',
  needles: ['enough GPU video memory'],
  match(line) {
    const m = TORCH_DIRECTML_OOM.exec(line.content);
    if (!m) return undefined;
    const requested = Number(m[1]);
    const aborted = thrownUncaught(line);
    const platform = platformNear(line);
    return {
      signature: 'directml-out-of-memory',
      role: 'failure',
      kind: aborted ? 'runtime-abort' : 'catchable-oom',
      platform,
      catchable: !aborted,
      summary: `${aborted ? 'Process aborted: ' : ''}DirectML out of GPU memory: could not allocate a tensor of ${formatBytes(requested)}`,
      explanation:
        'torch-directml asked DirectX 12 for the tensor\'s video memory and the adapter had not enough left (dedicated memory first; ' +
        'shared system memory counts toward the limit on integrated GPUs). ' +
        (aborted ? 'The error was thrown where nothing caught it, so the process aborted.' : 'It is raised as a RuntimeError the program could catch.'),
      ...(line.rank !== undefined && { rank: line.rank }),
      numbers: { requestedBytes: requested },
      fixes: [shrinkPeak('what the model keeps on the DirectML device (batch, resolution, precision; the web UIs\' --medvram/--lowvram)')],
    };
  },
};

/** TensorFlow-DirectML's OOM on its DML device (tensorflow-directml's DmlAllocator). */
const tensorflowDirectml: Signature = {
  id: 'tensorflow-oom-directml',
  platform: 'cuda',
  needles: ['OM when allocating tensor'],
  match(line) {
    const msg = parseTensorflowOom(line);
    if (msg?.deviceType !== 'DML') return undefined;
    // The DML device is a GPU: with no vendor named around it, it reads as the word GPU does (cuda), as torch-directml's message does.
    return { ...tensorflowFinding(msg, devicePlatformNear(line), 'DirectML device', line, []), signature: 'tensorflow-oom-directml' };
  },
};

export const signatures: readonly Signature[] = [torchDirectmlOom, tensorflowDirectml];
