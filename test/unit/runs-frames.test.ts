import { describe, expect, it } from 'vitest';
import { stackFrames } from '../../server/src/runs/frames';

describe('stack frames of a cell', () => {
  it('takes the main thread of a faulthandler dump, innermost first, whatever thread got the signal', () => {
    const dump = [
      'Current thread 0x00007f0b404c66c0 (most recent call first):',
      '  File "/h/headroom_harness.py", line 264 in _sampler',
      '  File "/usr/lib/python3.11/threading.py", line 975 in run',
      '',
      'Thread 0x00007f0b408be040 (most recent call first):',
      '  File "/usr/lib/python3/dist-packages/torch/distributed/distributed_c10d.py", line 1541 in all_reduce',
      '  File "/w/probe.py", line 46 in all_reduce_min',
      '  File "/w/probe.py", line 153 in <module>',
      '',
      '--- py-spy dump ---',
      'Thread 1 (idle): "MainThread"',
    ].join('\n');
    expect(stackFrames(dump).map((f) => `${f.file}:${f.line}:${f.function}`)).toEqual([
      '/usr/lib/python3/dist-packages/torch/distributed/distributed_c10d.py:1541:all_reduce',
      '/w/probe.py:46:all_reduce_min',
      '/w/probe.py:153:<module>',
    ]);
  });

  it('reverses a traceback so the raising frame comes first', () => {
    const tb = ['Traceback (most recent call last):', '  File "/w/train.py", line 6, in <module>', '    step()',
      '  File "/w/train.py", line 4, in step', '    raise X', 'X: boom'].join('\n');
    expect(stackFrames(tb)).toEqual([
      { file: '/w/train.py', line: 4, function: 'step' },
      { file: '/w/train.py', line: 6, function: '<module>' },
    ]);
  });
});
