// The class blind batch 41 showed the engine did not read: ComfyUI's frames listed under cudaMallocAsync's message without
// a traceback header, after the message's detail lines. A variant written for the class (other numbers, names and paths),
// not a corpus log.
import { describe, expect, it } from 'vitest';
import { triageFailures } from '../support/triageFailures';

describe("ComfyUI's frames under cudaMallocAsync's message", () => {
  it("takes the frames listed after the message's detail lines as its traceback", () => {
    const log = [
      'Error occurred when executing KSamplerAdvanced:',
      '',
      'Allocation on device 0 would exceed allowed memory. (out of memory)',
      'Currently allocated     : 10.20 GiB',
      'Requested               : 512.00 MiB',
      'Device limit            : 11.99 GiB',
      'Free (according to CUDA): 0 bytes',
      'PyTorch limit (set by user-supplied memory fraction)',
      '                        : 17179869184.00 GiB',
      '',
      '  File "D:\\ComfyUI\\execution.py", line 152, in recursive_execute',
      '    output_data, output_ui = get_output_data(obj, input_data_all)',
      '  File "D:\\ComfyUI\\custom_nodes\\MyNodes\\sampler.py", line 88, in sample',
      '    latent = model(x)',
      '  File "D:\\ComfyUI\\python_embeded\\Lib\\site-packages\\torch\\nn\\modules\\module.py", line 1518, in _wrapped_call_impl',
      '    return self._call_impl(*args, **kwargs)',
    ];
    const v = triageFailures(log.join('\n'), 'log').verdicts[0]!;
    expect(v).toMatchObject({ kind: 'catchable-oom', device: 0, requestedBytes: 512 * 2 ** 20 });
    expect(v.userFrames[0]).toMatchObject({ file: 'D:\\ComfyUI\\custom_nodes\\MyNodes\\sampler.py', line: 88 });
  });
});
