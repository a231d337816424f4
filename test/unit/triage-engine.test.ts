import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { TriageInputError, triageFile, triageStream, triageText } from '../../server/src/triage/index';
import { triageFailures } from '../support/triageFailures';
import { ANCHORS, NON_ASCII_ANCHORS } from '../../server/src/triage/engine';
import { ALL_SIGNATURES } from '../../server/src/triage/signatures';
import { allocatorOptionEdit, firstCodeLine, triageCodeActions } from '../../server/src/triage/codeActions';
import { parseSizeText } from '../../server/src/triage/sizes';
import { CORPUS_DIR, loadCorpus } from './triage-corpus-score';
import { tempDir } from '../support/tempDir';

const OOM_22 =
  'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 3 has a total capacity of 79.19 GiB of which 1.05 GiB is free. ' +
  'Including non-PyTorch memory, this process has 78.13 GiB memory in use. Of the allocated memory 60.00 GiB is allocated by PyTorch, ' +
  'and 16.20 GiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting ' +
  'PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  ' +
  '(https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)';

const TRACEBACK = [
  'Traceback (most recent call last):',
  '  File "/home/me/proj/train.py", line 88, in <module>',
  '    main()',
  '  File "/home/me/proj/train.py", line 61, in main',
  '    loss = step(batch)',
  '  File "/opt/venv/lib/python3.12/site-packages/torch/nn/modules/module.py", line 1775, in _wrapped_call_impl',
  '    return self._call_impl(*args, **kwargs)',
];

const GiB = 1024 ** 3;

async function* chunksOf(text: string, size: number): AsyncGenerator<string> {
  for (let i = 0; i < text.length; i += size) yield text.slice(i, i + size);
}

function tempFile(name: string, data: string | Uint8Array): string {
  const file = path.join(tempDir('headroom-triage-'), name);
  writeFileSync(file, data);
  return file;
}

describe('sizes', () => {
  it('reads every printed unit as binary multiples', () => {
    expect(parseSizeText('2.26 GiB')).toBe(Math.round(2.26 * GiB));
    expect(parseSizeText('0 bytes')).toBe(0);
    expect(parseSizeText('1024.00 KiB')).toBe(1024 * 1024);
    expect(parseSizeText('15.48G')).toBe(Math.round(15.48 * GiB));
    expect(parseSizeText('768.00 MB')).toBe(768 * 1024 ** 2);
    expect(parseSizeText('4 MB')).toBe(4 * 1024 ** 2);
    expect(parseSizeText('3206250496B')).toBe(3206250496);
    expect(parseSizeText('many')).toBeUndefined();
  });
});

describe('triage verdicts', () => {
  it('reads the 2.2+ CUDA message with every number in bytes, the user frame and the evidence line', () => {
    const report = triageFailures([...TRACEBACK, OOM_22].join('\n'), 'log');
    expect(report.verdicts).toHaveLength(1);
    const v = report.verdicts[0]!;
    expect(v).toMatchObject({
      kind: 'fragmentation',
      platform: 'cuda',
      catchable: true,
      device: 3,
      requestedBytes: 2 * GiB,
      deviceTotalBytes: Math.round(79.19 * GiB),
      freeBytes: Math.round(1.05 * GiB),
      processInUseBytes: Math.round(78.13 * GiB),
      allocatedBytes: 60 * GiB,
      reservedUnallocatedBytes: Math.round(16.2 * GiB),
    });
    expect(v.userFrames[0]).toMatchObject({ file: '/home/me/proj/train.py', line: 61, function: 'main' });
    expect(v.userFrames).toHaveLength(2);
    expect(v.fixes[0]!.id).toBe('expandable-segments');
    expect(v.evidence[0]).toEqual({ line: 8, text: OOM_22 });
  });

  it('calls it capacity, not fragmentation, when the stranded cache is smaller than the request', () => {
    const v = triageFailures(OOM_22.replace('16.20 GiB is reserved', '100.00 MiB is reserved'), 'log').verdicts[0]!;
    expect(v.kind).toBe('catchable-oom');
    expect(v.fixes[0]!.id).toBe('shrink-peak');
  });

  it('gives the same report whether the text comes whole, line by line or byte by byte', async () => {
    const text = [...TRACEBACK, OOM_22, 'after'].join('\n');
    const whole = triageFailures(text, 'x');
    for (const size of [1, 7, 4096]) expect(await triageStream(chunksOf(text, size), 'x')).toEqual(whole);
  });

  it('ignores ANSI colours and CRLF line ends', () => {
    const coloured = [...TRACEBACK, `\x1b[31m${OOM_22}\x1b[0m`].join('\r\n') + '\r\n';
    const v = triageFailures(coloured, 'x').verdicts[0]!;
    expect(v.requestedBytes).toBe(2 * GiB);
    expect(v.evidence[0]!.text).toBe(OOM_22);
    expect(v.userFrames[0]!.line).toBe(61);
  });

  it('follows rank prefixes in interleaved logs: frames come from the failing rank only', () => {
    const lines = [
      '[rank1]: Traceback (most recent call last):',
      '[rank0]:   File "/home/me/proj/other.py", line 5, in other',
      '[rank1]:   File "/home/me/proj/train.py", line 61, in main',
      '[rank0]:     other()',
      '[rank1]:     loss = step(batch)',
      `[rank1]: ${OOM_22}`,
    ];
    const v = triageFailures(lines.join('\n'), 'x').verdicts[0]!;
    expect(v.rank).toBe(1);
    expect(v.userFrames.map((f) => f.file)).toEqual(['/home/me/proj/train.py']);
  });

  it('puts the root OOM first and links the watchdog timeouts of the other ranks to it', () => {
    const lines = [
      `[rank2]: ${OOM_22}`,
      '[rank0]:[E1206 18:44:12.715 ProcessGroupNCCL.cpp:607] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=77, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600061 milliseconds before timing out.',
      '[rank1]:[E1206 18:44:12.755 ProcessGroupNCCL.cpp:607] [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=77, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600099 milliseconds before timing out.',
      "[rank0]:[E ProcessGroupNCCL.cpp:1169] [PG 0 Rank 0] ProcessGroupNCCL's watchdog got stuck for 480 seconds without making progress in monitoring enqueued collectives.",
    ];
    const [root, hang, stuck, ...rest] = triageFailures(lines.join('\n'), 'x').verdicts;
    expect(rest).toEqual([]);
    expect(root).toMatchObject({ kind: 'fragmentation', rank: 2 });
    expect(root!.causedBy).toBeUndefined();
    expect(hang).toMatchObject({ kind: 'hang', rank: 0, causedBy: 0 });
    expect(hang!.summary).toContain('2 ranks');
    expect(hang!.fixes[0]!.id).toBe('agree-on-failure');
    expect(stuck).toMatchObject({ kind: 'hang', causedBy: 1 });
  });

  it('treats the "more than 1EB" OOM after a timeout as a consequence of it', () => {
    const lines = [
      '[E ProcessGroupNCCL.cpp:475] [Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=9, OpType=BROADCAST, Timeout(ms)=1800000) ran for 1800453 milliseconds before timing out.',
      'torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate more than 1EB memory.',
    ];
    const [timeout, absurd] = triageFailures(lines.join('\n'), 'x').verdicts;
    expect(timeout).toMatchObject({ kind: 'hang', rank: 3 });
    expect(absurd).toMatchObject({ kind: 'catchable-oom', causedBy: 0 });
  });

  it('merges NCCL warnings and the Python error into one collective OOM with the user frame', () => {
    const lines = [
      "node1:100:200 [5] include/alloc.h:178 NCCL WARN Cuda failure 'out of memory'",
      'node1:100:200 [5] include/alloc.h:185 NCCL WARN Failed to CUDA calloc 6291456 bytes',
      'Traceback (most recent call last):',
      '  File "/work/job/train.py", line 40, in <module>',
      '    dist.all_to_all_single(out, inp)',
      'torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:275, unhandled cuda error',
    ];
    const verdicts = triageFailures(lines.join('\n'), 'x').verdicts;
    expect(verdicts).toHaveLength(1);
    expect(verdicts[0]).toMatchObject({ kind: 'collective-oom', device: 5, requestedBytes: 6291456, catchable: false });
    expect(verdicts[0]!.userFrames[0]).toMatchObject({ file: '/work/job/train.py', line: 40 });
    expect(verdicts[0]!.evidence.map((e) => e.line)).toEqual([1, 2, 6]);
  });

  it('recommends emptying the cache before collectives for the ROCm HSA abort', () => {
    const v = triageFailures(
      ':0:rocdevice.cpp :3671: Callback: Queue 0x7f00 Aborting with error :\n  HSA_STATUS_ERROR_OUT_OF_RESOURCES: The runtime failed to allocate the necessary resources.\n  Code: 0x1008  Available Free mem : 4 MB\n',
      'x',
    ).verdicts;
    expect(v).toHaveLength(1);
    expect(v[0]).toMatchObject({ kind: 'runtime-abort', platform: 'rocm', catchable: false, freeBytes: 4 * 1024 ** 2 });
    expect(v[0]!.fixes[0]!.id).toBe('empty-cache-before-collectives');
  });

  it('recommends a lock for the RNGD DRAM_SHARED race', () => {
    const v = triageFailures('torch.OutOfMemoryError: failed to allocate 8388608 bytes on DRAM_SHARED', 'x').verdicts[0]!;
    expect(v).toMatchObject({ kind: 'catchable-oom', platform: 'npu', requestedBytes: 8388608 });
    expect(v.fixes[0]!.id).toBe('process-wide-lock');
  });

  it('reports look-alikes as not-oom and ordinary output as no failure found', () => {
    expect(triageText('RuntimeError: CUDA error: an illegal memory access was encountered', 'x').verdicts[0]!.kind).toBe('not-oom');
    for (const text of ['epoch 3 loss 0.12\nKilled process count: 0 in this epoch\nsaved checkpoint', '']) {
      expect(triageText(text, 'x').verdicts).toEqual([
        { kind: 'not-oom', platform: 'cpu', catchable: false, summary: 'No out-of-memory failure or crash recognized', explanation: expect.any(String), userFrames: [], fixes: [], evidence: [], noFailureFound: true },
      ]);
    }
  });

  it('names the platform the text names when it finds no failure, unless the text says the run had none', () => {
    const kind = (text: string) => triageText(text, 'x').verdicts.map((v) => [v.kind, v.platform, v.noFailureFound]);
    expect(kind('Using device: cuda:0 (NVIDIA A100-SXM4-80GB)\nepoch 1 loss 0.3')).toEqual([['not-oom', 'cuda', true]]);
    expect(kind('rocm-smi: card0 MI250X\nHIP_VISIBLE_DEVICES=0\nstep 10 loss 2.1')).toEqual([['not-oom', 'rocm', true]]);
    expect(kind('CUDA is not available, training on CPU\nepoch 1 loss 0.3')).toEqual([['not-oom', 'cpu', true]]);
    // A failure found is never joined by the no-failure verdict.
    expect(kind('torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB')).toEqual([['catchable-oom', 'cuda', undefined]]);
  });

  it('keeps line numbers exact far into a long log', () => {
    const filler = 'step 123 loss 1.2345 lr 3e-4 tokens/s 48213\n'.repeat(40_000);
    const report = triageFailures(filler + OOM_22 + '\n' + filler, 'x');
    expect(report.verdicts[0]!.evidence[0]!.line).toBe(40_001);
  });
});

describe('triage input handling', () => {
  it('streams files and decodes UTF-16 with a BOM (PowerShell redirects)', async () => {
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(`${OOM_22}\r\n`, 'utf16le')]);
    const report = await triageFile(tempFile('ps.log', utf16));
    expect(report.verdicts[0]!.requestedBytes).toBe(2 * GiB);
  });

  it('survives invalid UTF-8 around the failure', async () => {
    const bytes = Buffer.concat([Buffer.from([0xc3, 0x28, 0xff, 0x0a]), Buffer.from(OOM_22), Buffer.from([0x0a, 0xe2, 0x82])]);
    expect((await triageFile(tempFile('latin.log', bytes))).verdicts[0]!.kind).toBe('fragmentation');
  });

  it('refuses binary input with a clear error and a code', async () => {
    const gz = Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03]);
    await expect(triageFile(tempFile('snap.pickle.gz', gz))).rejects.toMatchObject({ code: 'BINARY_INPUT', message: expect.stringContaining('headroom snapshot') });
    const noise = Buffer.alloc(4096, 0);
    await expect(triageFile(tempFile('zeros.bin', noise))).rejects.toBeInstanceOf(TriageInputError);
  });

  it('reports a missing file with its errno code', async () => {
    await expect(triageFile('/nonexistent/headroom.log')).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('reports the same from a multi-MiB file (recycled read buffers) as from memory', async () => {
    const filler = (n: number): string => Array.from({ length: n }, (_, i) => `[rank${i % 4}]: step ${i} loss 2.${i % 97} tokens/s 48213\n`).join('');
    const failure = (rank: number): string =>
      [...TRACEBACK.map((l) => `[rank${rank}]: ${l}`), `[rank${rank}]: ${OOM_22.replace('GPU 3', `GPU ${rank}`)}`].join('\n') + '\n';
    // Failures land before, across and after the 1 MiB read boundaries.
    const text = filler(20_000) + failure(1) + filler(8_300) + failure(2) + filler(60_000) + failure(3) + filler(5);
    expect(text.length).toBeGreaterThan(3 * 1024 * 1024);
    const fromFile = await triageFile(tempFile('big.log', text), 'x');
    expect(fromFile).toEqual(triageFailures(text, 'x'));
    expect(fromFile.verdicts.map((v) => [v.device, v.rank, v.userFrames[0]?.line])).toEqual([[1, 1, 61], [2, 2, 61], [3, 3, 61]]);
  });

  it('handles a 12 MB line without a break', async () => {
    const report = await triageStream(chunksOf('x'.repeat(12 * 1024 * 1024) + OOM_22, 1024 * 1024), 'x');
    expect(report.verdicts[0]!.requestedBytes).toBe(2 * GiB);
  });
});

describe('triage quick fix', () => {
  it('inserts the allocator option after the docstring and __future__ imports, once', () => {
    const script = ['#!/usr/bin/env python3', '"""Train.', '', 'Long docstring."""', 'from __future__ import annotations', 'import torch', ''].join('\n');
    expect(firstCodeLine(script)).toBe(5);
    const edit = allocatorOptionEdit(script, 'PYTORCH_CUDA_ALLOC_CONF', 'expandable_segments:True')!;
    expect(edit.range.start).toEqual({ line: 5, character: 0 });
    expect(edit.newText).toContain('os.environ.setdefault("PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:True")');
    const fixed = script.split('\n').slice(0, 5).join('\n') + '\n' + edit.newText + 'import torch\n';
    expect(allocatorOptionEdit(fixed, 'PYTORCH_CUDA_ALLOC_CONF', 'expandable_segments:True')).toBeUndefined();
  });

  it('turns a fragmentation diagnostic into a code action on the entry script', () => {
    const data = { fix: 'allocator-option', envVar: 'PYTORCH_HIP_ALLOC_CONF', value: 'expandable_segments:True', targetUri: 'file:///w/train.py' };
    const diagnostic = { source: 'Headroom', code: 'fragmentation', message: 'm', range: { start: { line: 4, character: 0 }, end: { line: 4, character: 9 } }, data };
    const [action, ...rest] = triageCodeActions([diagnostic], (uri) => (uri === 'file:///w/train.py' ? 'import torch\n' : undefined));
    expect(rest).toEqual([]);
    expect(action!.title).toBe('Set PYTORCH_HIP_ALLOC_CONF=expandable_segments:True in train.py');
    expect(action!.edit!.changes!['file:///w/train.py']![0]!.range.start.line).toBe(0);
    expect(triageCodeActions([{ ...diagnostic, source: 'other' }], () => '')).toEqual([]);
  });
});

describe('triage distributed reports', () => {
  it('names the lagging ranks of a desync report', () => {
    const lines = [
      '[E ProcessGroupNCCL.cpp:737] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=12, OpType=ALLREDUCE, Timeout(ms)=600000) ran for 600011 milliseconds before timing out.',
      '[E ProcessGroupNCCL.cpp:1537] [Rank 0] To our best knowledge, ranks [3, 5] are the lagging ranks that caused this timeout. They never joined any collectives',
    ];
    const [hang, ...rest] = triageFailures(lines.join('\n'), 'x').verdicts;
    expect(rest).toEqual([]);
    expect(hang).toMatchObject({ kind: 'hang', rank: 0 });
    expect(hang!.evidence.map((e) => e.line)).toEqual([1, 2]);
  });

  it('spells the allocator variable the way the ROCm build printed it', () => {
    const hip = (variable: string): string =>
      `torch.OutOfMemoryError: HIP out of memory. Tried to allocate 2.00 GiB. GPU 1 has a total capacity of 191.69 GiB of which 1.02 GiB is free. Of the allocated memory 150.00 GiB is allocated by PyTorch, and 30.00 GiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting ${variable}=expandable_segments:True to avoid fragmentation.`;
    for (const variable of ['PYTORCH_HIP_ALLOC_CONF', 'PYTORCH_CUDA_ALLOC_CONF']) {
      const v = triageFailures(hip(variable), 'x').verdicts[0]!;
      expect(v).toMatchObject({ kind: 'fragmentation', platform: 'rocm', device: 1 });
      expect(v.fixes[0]!.snippet).toBe(`export ${variable}=expandable_segments:True`);
      expect(v.fixes[0]!.rationale).toContain('ROCm');
    }
  });
});

describe('the prefilter', () => {
  it("hits every line a signature's needle is on: each needle contains an anchor", () => {
    const anchor = new RegExp([...ANCHORS, ...NON_ASCII_ANCHORS].join('|'));
    // A needle may end inside a status constant ("MODULE:PT_"), which the line continues in capitals.
    const unanchored = ALL_SIGNATURES.flatMap((s) => s.needles.filter((n) => !anchor.test(n) && !anchor.test(`${n}A`)).map((n) => `${s.id}: ${n}`));
    expect(unanchored).toEqual([]);
  });
});

describe('non-ASCII anchors', () => {
  it('find a localized shell "Killed" through the ASCII view', () => {
    for (const killed of ['已杀死', 'Getötet']) {
      expect(triageFailures(`step 10 loss 1.0\n${killed}\n`, 'x').verdicts[0]).toMatchObject({ kind: 'host-oom', evidence: [{ line: 2, text: killed }] });
    }
  });
});

describe('more message variants', () => {
  it('reads CUDA-graph private pools and a per-process limit in the 2.2+ message', () => {
    const line =
      'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.00 GiB. GPU 0 has a total capacity of 79.19 GiB of which 500.00 MiB is free. ' +
      'Process 4242 has 70.00 GiB memory in use. 40.00 GiB allowed; Of the allocated memory 39.00 GiB is allocated by PyTorch, with 12.00 GiB allocated in private pools (e.g., CUDA Graphs), ' +
      'and 200.00 MiB is reserved by PyTorch but unallocated.';
    const v = triageFailures(line, 'x').verdicts[0]!;
    expect(v).toMatchObject({ kind: 'catchable-oom', allowedBytes: 40 * GiB, allocatedBytes: 39 * GiB, reservedUnallocatedBytes: 200 * 1024 ** 2 });
    expect(v.processInUseBytes).toBeUndefined();
    expect(v.explanation).toContain('private pools');
    expect(v.fixes.map((f) => f.id)).toEqual(expect.arrayContaining(['memory-fraction', 'other-processes']));
  });

  it('names the platform of HCCL and XCCL watchdog timeouts', () => {
    const hccl = '[rank2]:[E ProcessGroupHCCL.cpp:585] [Rank 2] Watchdog caught collective operation timeout: WorkHCCL(SeqNum=51, OpType=ALLREDUCE, Timeout(ms)=1800000) ran for 1800023 milliseconds before timing out.';
    expect(triageFailures(hccl, 'x').verdicts[0]).toMatchObject({ kind: 'hang', platform: 'npu', rank: 2 });
    expect(triageFailures(hccl.replace(/HCCL/g, 'XCCL'), 'x').verdicts[0]!.platform).toBe('xpu');
  });
});

describe('precision on ordinary output', () => {
  it('gives no verdict for lines that only mention memory, allocation, kills or status constants', () => {
    const benign = [
      '[2023-04-07 13:08:55,469] [INFO] [utils.py:830:see_memory_usage] MA 11.76 GB         Max_MA 11.76 GB         CA 11.77 GB         Max_CA 12 GB',
      '[2023-04-07 13:08:55,469] [INFO] [utils.py:838:see_memory_usage] CPU Virtual Memory:  used = 28.43 GB, percent = 22.6%',
      'step 100 | max memory allocated 71.2 GiB | reserved 75.0 GiB | PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True',
      'node17:3000:4000 [0] NCCL INFO NCCL_SOCKET_IFNAME set by environment to eth0',
      'Killed 3 stale dataloader workers after timeout',
      'INFO: watchdog heartbeat ok (rank 0)',
      'To avoid out of memory errors, lower --batch-size.',
      'torch.cuda.memory_allocated() = 123456',
      'assert triggered nothing, all checks passed',
    ].join('\n');
    expect(triageFailures(benign, 'x').verdicts).toEqual([]);
  });
});

describe('robustness on random input', () => {
  /** A small deterministic generator, so a failure can be replayed. */
  function rng(seed: number): () => number {
    let s = seed;
    return () => ((s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  }

  it('never throws, and chunked input gives the same report as whole input', async () => {
    const corpusLines = loadCorpus()
      .slice(0, 60)
      .flatMap((e) => readFileSync(path.join(CORPUS_DIR, e.file), 'utf8').split('\n'));
    const noise = ['', '\r', '\x1b[31m', '\x1b[0m', 'é', '已', '\u0000', '\t', '[rank3]: ', 'x'.repeat(300)];
    const next = rng(7);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!;
    for (let round = 0; round < 40; round++) {
      const lines: string[] = [];
      for (let i = 0; i < 60; i++) lines.push(pick(noise) + pick(corpusLines) + pick(noise));
      const text = lines.join(next() < 0.5 ? '\n' : '\r\n');
      const whole = triageFailures(text, 'r');
      const size = 1 + Math.floor(next() * 5000);
      expect(await triageStream(chunksOf(text, size), 'r')).toEqual(whole);
    }
  });

  it('random bytes give a report or a BINARY_INPUT error, nothing else', async () => {
    const next = rng(11);
    for (let round = 0; round < 20; round++) {
      const bytes = Buffer.alloc(20_000 + Math.floor(next() * 50_000));
      const textish = next() < 0.5;
      for (let i = 0; i < bytes.length; i++) bytes[i] = textish ? 32 + Math.floor(next() * 224) : Math.floor(next() * 256);
      const result = await triageFile(tempFile(`r${round}.bin`, bytes)).then(
        (report) => report.verdicts.length >= 0,
        (err: { code?: string }) => err.code,
      );
      expect([true, 'BINARY_INPUT']).toContain(result);
    }
  });
});

describe('uncaught exceptions and NCCL failures', () => {
  it('reads the numbers of an OOM that reached std::terminate from its what() line, as one abort', () => {
    const log = [
      "terminate called after throwing an instance of 'c10::OutOfMemoryError'",
      '  what():  HIP out of memory. Tried to allocate 212.00 MiB (GPU 1; 23.56 GiB total capacity; 23.02 GiB already allocated; 187.44 MiB free; 23.02 GiB reserved in total by PyTorch)',
      'Exception raised from malloc at ../c10/hip/HIPCachingAllocator.cpp:936 (most recent call first):',
    ].join('\n');
    const verdicts = triageFailures(log, 'x').verdicts;
    expect(verdicts).toHaveLength(1);
    expect(verdicts[0]).toMatchObject({ kind: 'runtime-abort', platform: 'rocm', catchable: false, device: 1, requestedBytes: 212 * 1024 ** 2 });
    expect(verdicts[0]!.evidence.map((e) => e.line)).toEqual([1, 2, 3]);
  });

  it('names the device of a "more than 1EB" request from the allocator that printed it', () => {
    expect(triageFailures('RuntimeError: NPU out of memory. Tried to allocate more than 1EB memory.', 'x').verdicts[0]).toMatchObject({ kind: 'catchable-oom', platform: 'npu' });
    expect(triageFailures('torch.OutOfMemoryError: CUDA out of memory. Tried to allocate more than 1EB memory.', 'x').verdicts[0]!.platform).toBe('cuda');
  });

  it("reads every NCCL allocation helper's failure as a collective OOM with its size", () => {
    for (const helper of ['calloc', 'calloc async', 'host alloc']) {
      const log = `host1:41:41 [2] include/alloc.h:124 NCCL WARN Failed to CUDA ${helper} 1920 bytes`;
      expect(triageFailures(log, 'x').verdicts[0]).toMatchObject({ kind: 'collective-oom', requestedBytes: 1920, device: 2 });
    }
  });

  it('says a peer or the network failed for NCCL remote/system errors, and takes the process-down notice with them', () => {
    const log = [
      '[E ProcessGroupNCCL.cpp:455] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.',
      '[E ProcessGroupNCCL.cpp:460] To avoid data inconsistency, we are taking the entire process down.',
      "terminate called after throwing an instance of 'std::runtime_error'",
      '  what():  NCCL error: remote process exited or there was a network error, NCCL version 2.14.3',
      'ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.',
    ].join('\n');
    const verdicts = triageFailures(log, 'x').verdicts;
    expect(verdicts).toHaveLength(1);
    expect(verdicts[0]).toMatchObject({ kind: 'not-oom', platform: 'cuda', catchable: false });
    expect(verdicts[0]!.summary).toContain('peer process exited or the network failed');
    expect(verdicts[0]!.fixes[0]!.id).toBe('find-root-rank');
  });
});

describe('CUDA library statuses and driver-API out-of-memory', () => {
  it('reports cuDNN/cuBLAS statuses other than an allocation failure as not-oom, with fixes for the status', () => {
    const internal = triageFailures('RuntimeError: CUDNN_STATUS_INTERNAL_ERROR', 'x').verdicts[0]!;
    expect(internal).toMatchObject({ kind: 'not-oom', platform: 'cuda', catchable: true });
    expect(internal.fixes.map((f) => f.id)).toContain('library-versions');
    const gemm = triageFailures('RuntimeError: CUDA error: CUBLAS_STATUS_EXECUTION_FAILED when calling `cublasGemmEx( handle, opa, opb, m, n, k)`', 'x').verdicts[0]!;
    expect(gemm).toMatchObject({ kind: 'not-oom', summary: 'Not an OOM: cuBLAS failed with CUBLAS_STATUS_EXECUTION_FAILED' });
    expect(triageFailures('RuntimeError: cuDNN error: CUDNN_STATUS_NOT_SUPPORTED. This error may appear if you passed in a non-contiguous input.', 'x').verdicts[0]!.fixes[0]!.id).toBe('contiguous-input');
  });

  it("keeps allocation failures, cuDNN 9's included, as out-of-memory", () => {
    for (const status of ['CUBLAS_STATUS_ALLOC_FAILED', 'CUDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED']) {
      expect(triageFailures(`RuntimeError: cuDNN error: ${status}`, 'x').verdicts[0]).toMatchObject({ kind: 'catchable-oom', platform: 'cuda' });
    }
  });

  it("reads the driver API's CUDA_ERROR_OUT_OF_MEMORY as a CUDA OOM, not as Slurm's OUT_OF_MEMORY state", () => {
    const xla = 'E0312 cuda_driver.cc:1234] failed to alloc 2147483648 bytes on host: CUDA_ERROR_OUT_OF_MEMORY: out of memory';
    expect(triageFailures(xla, 'x').verdicts[0]).toMatchObject({ kind: 'catchable-oom', platform: 'cuda', requestedBytes: 2147483648 });
    expect(triageFailures('JobState=OUT_OF_MEMORY Reason=OutOfMemory', 'x').verdicts[0]).toMatchObject({ kind: 'host-oom', platform: 'cpu' });
  });
});

describe('host kills reported by a parent or after a progress bar', () => {
  it('reads a DataLoader worker, a spawned process and a gdb inferior killed by SIGKILL as host OOM', () => {
    const worker = [...TRACEBACK, 'RuntimeError: DataLoader worker (pid 19597) is killed by signal: Killed.'].join('\n');
    const v = triageFailures(worker, 'x').verdicts[0]!;
    expect(v).toMatchObject({ kind: 'host-oom', platform: 'cpu', catchable: false, userFrames: [{ file: '/home/me/proj/train.py', line: 61 }, { file: '/home/me/proj/train.py', line: 88 }] });
    expect(v.fixes[0]!.id).toBe('dataloader-workers');
    expect(triageFailures('torch.multiprocessing.spawn.ProcessExitedException: process 3 terminated with signal SIGKILL', 'x').verdicts[0]).toMatchObject({ kind: 'host-oom', rank: 3 });
    expect(triageFailures('Program terminated with signal SIGKILL, Killed.', 'x').verdicts[0]!.kind).toBe('host-oom');
    // Other signals are crashes, not kills for memory (see blind8's class below).
    expect(triageFailures('RuntimeError: DataLoader worker (pid 19597) is killed by signal: Segmentation fault.', 'x').verdicts[0]).toMatchObject({ kind: 'not-oom', platform: 'cpu' });
  });

  it('finds the shell\'s "Killed" after a tqdm bar, with or without the carriage returns of its redraws', () => {
    const bar = ' 31%|███       | 331/1063 [01:06<03:59,  3.06it/s]';
    for (const line of [`${bar}Killed`, `${bar}\r${bar}\rKilled`, ' 331it [01:06, 3.06it/s]Killed']) {
      expect(triageFailures(`Training with a single process on 1 GPUs.\n${line}\n`, 'x').verdicts[0]).toMatchObject({ kind: 'host-oom', evidence: [{ line: 2 }] });
    }
    expect(triageFailures('epoch 3: SkippedKilled', 'x').verdicts).toEqual([]);
  });
});

describe('XLA HBM messages', () => {
  it('reads the requested and free sizes of the TPU allocator, and a fatal check as an abort', () => {
    const raised = 'RuntimeError: Bad StatusOr access: RESOURCE_EXHAUSTED: Error allocating device buffer: Attempting to allocate 129.50M. That was not possible. There are 78.17M free.; (0x0x0_HBM0)';
    expect(triageFailures(raised, 'x').verdicts[0]).toMatchObject({ kind: 'catchable-oom', platform: 'xla-tpu', catchable: true, requestedBytes: Math.round(129.5 * 1024 ** 2), freeBytes: Math.round(78.17 * 1024 ** 2) });
    const fatal =
      "2023-04-08 11:22:09.148143: F tensorflow/tsl/platform/statusor.cc:33] Attempting to fetch value instead of handling error RESOURCE_EXHAUSTED: Error loading program: Attempting to reserve 7.04G at the bottom of memory. That was not possible. There are 6.90G free, 0B reserved, and 6.90G reservable.";
    expect(triageFailures(fatal, 'x').verdicts[0]).toMatchObject({ kind: 'runtime-abort', catchable: false, requestedBytes: Math.round(7.04 * GiB), freeBytes: Math.round(6.9 * GiB) });
    const twoLines = "RESOURCE_EXHAUSTED: Error loading program 'jit_train_step':\nAttempting to allocate 1.82G. That was not possible. There are 1.54G free.";
    expect(triageFailures(twoLines, 'x').verdicts[0]).toMatchObject({ kind: 'catchable-oom', requestedBytes: Math.round(1.82 * GiB), freeBytes: Math.round(1.54 * GiB), evidence: [{ line: 1 }, { line: 2 }] });
  });
});

describe('TensorFlow OOMs on every device', () => {
  it('names the platform from the device in the message, in the node line below it, or GPU when neither says', () => {
    const itex = [
      '2023-05-13 17:10:55.926325: E itex/core/devices/bfc_allocator.cc:98] Allocator ran out of memory trying to allocate 117964800 Bytes (rounded to 117964800 Bytes)',
      'ResourceExhaustedError: {{function_node __wrapped__AddV2_device_/job:localhost/replica:0/task:0/device:XPU:0}} OOM when allocating tensor with shape[3,3,2560,1280] and type float on /job:localhost/replica:0/task:0/device:XPU:0 by allocator Simple allocator [Op:AddV2]',
    ].join('\n');
    expect(triageFailures(itex, 'x').verdicts[0]).toMatchObject({ kind: 'catchable-oom', platform: 'xpu', device: 0, requestedBytes: 117964800 });
    const tf1 = [
      'ResourceExhaustedError (see above for traceback): OOM when allocating tensor with shape[256,112,112,64]',
      '     [[Node: conv/BatchNorm/moments/SquaredDifference = SquaredDifference[T=DT_FLOAT, _device="/job:localhost/replica:0/task:0/gpu:1"](conv/Conv2D, conv/BatchNorm/Add)]]',
    ].join('\n');
    expect(triageFailures(tf1, 'x').verdicts[0]).toMatchObject({ platform: 'cuda', device: 1 });
    expect(triageFailures('tensorflow.python.framework.errors_impl.ResourceExhaustedError: OOM when allocating tensor of shape [4096] and type float', 'x').verdicts[0]).toMatchObject({ kind: 'catchable-oom', platform: 'cuda' });
    expect(triageFailures('ResourceExhaustedError: OOM when allocating tensor with shape[1,2] and type float on /job:localhost/replica:0/task:0/device:CPU:0 by allocator cpu', 'x').verdicts[0]).toMatchObject({ platform: 'cpu', device: 0 });
  });
});

describe('XPU and Gaudi look-alikes', () => {
  it('reports mem_get_info on a driver without free-memory reporting as not-oom on XPU', () => {
    const line = "RuntimeError: The device (Intel(R) Arc(TM) Graphics) doesn't support querying the available free memory. You can file an issue at https://github.com/pytorch/pytorch/issues to help us prioritize its implementation.";
    const v = triageFailures([...TRACEBACK, line].join('\n'), 'x').verdicts[0]!;
    expect(v).toMatchObject({ kind: 'not-oom', platform: 'xpu', catchable: true, userFrames: [{ line: 61 }, { line: 88 }] });
    expect(v.fixes[0]!.id).toBe('xpu-sysman');
  });

  it("reports the Gaudi bridge's other fatal errors as not-oom, not catchable when they reached terminate", () => {
    const capture = [
      "terminate called after throwing an instance of 'c10::Error'",
      '  what():  [Rank:0] FATAL ERROR :: MODULE:PT_DEVICE GRAPH:: Capture must end on the same stream it began on.',
    ].join('\n');
    expect(triageFailures(capture, 'x').verdicts[0]).toMatchObject({ kind: 'not-oom', platform: 'gaudi', catchable: false, rank: 0 });
    const lowering = 'RuntimeError: [Rank:3] FATAL ERROR :: MODULE:PT_BRIDGE Exception in Lowering thread...';
    expect(triageFailures(lowering, 'x').verdicts[0]).toMatchObject({ kind: 'not-oom', platform: 'gaudi', catchable: true, rank: 3 });
    const devmem = 'RuntimeError: [Rank:7] FATAL ERROR :: MODULE:PT_DEVMEM Allocation failed for size::469762048 (448)MB';
    expect(triageFailures(devmem, 'x').verdicts[0]).toMatchObject({ kind: 'catchable-oom', platform: 'gaudi', requestedBytes: 469762048 });
  });
});

describe('Metal assertions and Ascend stream timeouts', () => {
  it("reads Metal's failed assertions: a buffer it cannot allocate is an abort for memory, an MPS array limit is not an OOM", () => {
    const ndarray =
      "/AppleInternal/Library/BuildRoots/b11b/Library/Caches/com.apple.xbs/Sources/MetalPerformanceShaders/MPSCore/Types/MPSNDArray.mm:850: failed assertion `[MPSNDArray initWithDevice:descriptor:isTextureBacked:] Error: total bytes of NDArray > 2**32'";
    const limit = triageFailures(`${ndarray}\n[1]    13512 abort      python train.py\n`, 'x').verdicts[0]!;
    expect(limit).toMatchObject({ kind: 'not-oom', platform: 'mps', catchable: false });
    expect(limit.summary).toContain('total bytes of NDArray > 2**32');
    const buffer = "/AppleInternal/Library/BuildRoots/x/MPSCore/Utility/MPSCommandBufferImageCache.mm:1420: failed assertion `Failed to allocate private MTLBuffer for size 9964830976'";
    expect(triageFailures(buffer, 'x').verdicts[0]).toMatchObject({ kind: 'runtime-abort', platform: 'mps', catchable: false, requestedBytes: 9964830976 });
    // A C assertion is no Metal assertion; it is a failure the log states (statedFailure.ts), not an OOM.
    expect(triageFailures("test.c:12: main: Assertion `x > 0' failed.", 'x').verdicts[0]).toMatchObject({ kind: 'not-oom', catchable: false, summary: expect.stringContaining('Failure stated near the end of the log') });
    const validation = "-[MTLDebugComputeCommandEncoder setBuffer:offset:atIndex:]:1290: failed assertion `Set Buffer Validation index(0) must be < 31'";
    expect(triageFailures(validation, 'x').verdicts[0]).toMatchObject({ kind: 'not-oom', platform: 'mps', summary: expect.stringContaining('a Metal assertion failed') });
  });

  it("reads Ascend's stream synchronize timeout (507046) as a hang on the NPU, whichever line carries it", () => {
    for (const line of [
      'W NPUStream.cpp:409] Warning: NPU warning, error code is 507046[Error]: ',
      'EE1002: 2024-09-03-16:50:00.041.231 Stream synchronize timeout. rtDeviceSynchronize execute failed, reason=[stream sync timeout]',
      '[rank7]: RuntimeError: npuSynchronizeDevice:torch_npu/csrc/core/npu/NPUStream.cpp:435 NPU function error: aclrtSynchronizeDevice, error code is 507046',
    ]) {
      expect(triageFailures(line, 'x').verdicts[0]).toMatchObject({ kind: 'hang', platform: 'npu', catchable: false });
    }
    expect(triageFailures('[rank7]: RuntimeError: NPU function error: aclrtSynchronizeDevice, error code is 507046', 'x').verdicts[0]!.rank).toBe(7);
  });

  it("reads Ascend's other timeouts and HCCL's notify-wait and socket timeouts as one hang on the NPU", () => {
    const log = [
      'npuSynchronizeDevice:/w/torch_npu/csrc/core/npu/NPUStream.cpp:370 NPU error, error code is 107020.',
      'EI0002: The wait execution of the Notify register times out. Reason: The Notify register has not received the Notify record from remote rank [4294967295].',
    ].join('\n');
    const verdicts = triageFailures(log, 'x').verdicts;
    expect(verdicts).toHaveLength(1);
    expect(verdicts[0]).toMatchObject({ kind: 'hang', platform: 'npu', catchable: false, evidence: [{ line: 1 }, { line: 2 }] });
    for (const line of [
      'RuntimeError: npuSynchronizeDevice:build/CMakeFiles/torch_npu.dir/compiler_depend.ts:479 NPU function error: AclrtSynchronizeDeviceWithTimeout, error code is 507048',
      'EI0002: [PID: 198748] 2025-03-26-13:49:01.670.614 The wait execution of the Notify register times out. Reason: The Notify register has not received the Notify record from remote rank: [unknown].',
      '[rank1]: EI0006: [PID: 1292363] 2025-04-08-18:07:20.444.436 Getting socket times out. Reason: Remote Rank did not send the data in time.',
    ]) {
      expect(triageFailures(line, 'x').verdicts[0]).toMatchObject({ kind: 'hang', platform: 'npu' });
    }
    // 507033 is not a timeout: not a hang (the not-oom fallback reads it as an Ascend error since blind11).
    expect(triageFailures('aclrtMemcpy failed, error code is 507033', 'x').verdicts.map((v) => v.kind)).not.toContain('hang');
  });
});

describe('tracebacks in other shapes', () => {
  it("reads IPython's frames (Colab's folded ones too) with the cell as the user's frame", () => {
    const colab = [
      '---------------------------------------------------------------------------',
      'UnfilteredStackTrace                      Traceback (most recent call last)',
      '<ipython-input-6-63b342388236> in <module>()',
      '     69 outs, model_rank = cf_af.run_alphafold(feature_dict, opt, runner,',
      '---> 70                                        rank_by=rank_by)',
      '',
      '18 frames',
      'UnfilteredStackTrace: RuntimeError: RESOURCE_EXHAUSTED: Ran out of memory in memory space hbm. Used 9.08G of 7.48G hbm. Exceeded hbm capacity by 1.60G.',
    ].join('\n');
    expect(triageFailures(colab, 'x').verdicts[0]!.userFrames).toEqual([{ file: '<ipython-input-6-63b342388236>', line: 70, function: '<module>' }]);
    const ipython8 = [
      'OutOfMemoryError                          Traceback (most recent call last)',
      'Cell In[3], line 2',
      '      1 x = torch.ones(1, device="cuda")',
      '----> 2 y = torch.empty(10**12, device="cuda")',
      '',
      'File /usr/lib/python3/dist-packages/torch/utils/_device.py:104, in TorchFunctionMode.__torch_function__(self, func, types, args, kwargs)',
      '    103     kwargs["device"] = self.device',
      '--> 104 return func(*args, **kwargs)',
      '',
      OOM_22.replace('torch.OutOfMemoryError', 'OutOfMemoryError'),
    ].join('\n');
    expect(triageFailures(ipython8, 'x').verdicts[0]!.userFrames).toEqual([{ file: 'Cell In[3]', line: 2, function: '<module>' }]);
  });

  it('reads tracebacks behind CI timestamps', () => {
    const log = ['08:28:40 Traceback (most recent call last):', '08:28:40   File "test/run_test.py", line 1071, in main', '08:28:40     run(x)', `08:28:40 ${OOM_22}`].join('\n');
    expect(triageFailures(log, 'x').verdicts[0]!.userFrames).toEqual([{ file: 'test/run_test.py', line: 1071, function: 'main' }]);
  });

  it('takes the traceback printed right after a message that has none before it, and says so', () => {
    const log = [`!!! Exception during processing !!! ${OOM_22.replace('torch.OutOfMemoryError: ', '')}`, ...TRACEBACK].join('\n');
    const v = triageFailures(log, 'x').verdicts[0]!;
    expect(v.userFrames.map((f) => f.line)).toEqual([61, 88]);
    expect(v.explanation).toContain('traceback printed right after this message');
  });

  it("prefers the failing rank's own traceback, and names the other rank when only its traceback follows", () => {
    const other = [`[rank7]: ${OOM_22}`, '[rank6]: Traceback (most recent call last):', ...TRACEBACK.slice(1).map((l) => `[rank6]: ${l}`)].join('\n');
    const v = triageFailures(other, 'x').verdicts[0]!;
    expect(v).toMatchObject({ rank: 7, userFrames: [{ line: 61 }, { line: 88 }] });
    expect(v.explanation).toContain("rank 6's traceback");
    const own = [`[rank7]: ${OOM_22}`, '[rank6]: Traceback (most recent call last):', '[rank6]:   File "/w/other.py", line 5, in f', ...TRACEBACK.map((l) => `[rank7]: ${l}`)].join('\n');
    expect(triageFailures(own, 'x').verdicts[0]!.userFrames.map((f) => f.file)).toEqual(['/home/me/proj/train.py', '/home/me/proj/train.py']);
  });

  it('replaces a borrowed traceback with the one a repeat of the message is printed under (logging.exception)', () => {
    const log = [
      `ERROR:trainer:step failed: ${OOM_22}`,
      'Traceback (most recent call last):',
      '  File "/home/me/proj/train.py", line 88, in <module>',
      '    main()',
      ...Array.from({ length: 12 }, (_, i) => `  File "/home/me/proj/model.py", line ${i + 1}, in layer${i}\n    x = f(x)`),
      OOM_22,
    ].join('\n');
    const v = triageFailures(log, 'x').verdicts[0]!;
    expect(v.userFrames[0]).toMatchObject({ file: '/home/me/proj/model.py', line: 12 });
    expect(v.explanation).not.toContain('printed right after');
  });

  it("treats pip's console scripts in a bin folder as library code", () => {
    const log = ['Traceback (most recent call last):', '  File "/venv/bin/accelerate", line 8, in <module>', '    sys.exit(main())', '  File "/home/me/proj/train.py", line 9, in main', '    run()', OOM_22].join('\n');
    expect(triageFailures(log, 'x').verdicts[0]!.userFrames.map((f) => f.file)).toEqual(['/home/me/proj/train.py']);
  });
});

describe("zsh's and macOS's kill reports", () => {
  it('reads zsh: killed, zsh job notices and Killed: 9 as host OOM, after a progress bar too', () => {
    for (const line of ['zsh: killed     python train.py', '[1]  + 13512 killed     python train.py', 'Killed: 9', ' 33%|███▎      | 5/15 [02:32<05:36, 33.69s/it]zsh: killed     python3 commandR.py']) {
      expect(triageFailures(`step 1\n${line}\n`, 'x').verdicts[0]).toMatchObject({ kind: 'host-oom', evidence: [{ line: 2 }] });
    }
    expect(triageFailures('INFO worker killed  by the scheduler after the deadline', 'x').verdicts).toEqual([]);
  });
});

describe('ranks and tracebacks in other shapes (blind4)', () => {
  it("takes the rank from vLLM's worker prefix when it prints one, and none from process prefixes without it", () => {
    expect(triageFailures(`(VllmWorker rank=1 pid=2978) ERROR 03-19 07:27:53 [multiproc_executor.py:375] ${OOM_22}`, 'x').verdicts[0]).toMatchObject({ rank: 1, device: 3 });
    for (const prefix of ['(EngineCore_0 pid=51)', '(Worker_TP1 pid=99)', '(RayWorkerWrapper pid=4009)']) {
      expect(triageFailures(`${prefix} ERROR 03-19 07:27:53 [x.py:1] ${OOM_22}`, 'x').verdicts[0]!.rank).toBeUndefined();
    }
  });

  it("gives a message without a rank prefix the rank of the traceback printed right after it, and says so", () => {
    const log = [OOM_22, ...TRACEBACK.map((l) => `[rank0]: ${l}`)].join('\n');
    const v = triageFailures(log, 'x').verdicts[0]!;
    expect(v).toMatchObject({ rank: 0, userFrames: [{ line: 61 }, { line: 88 }] });
    expect(v.explanation).toContain("The frames and the rank are from rank 0's traceback");
  });

  it('reads frames whose code lines lost their indentation', () => {
    const log = ['File "/w/pretrain_gpt.py", line 130, in get_batch_pipe', 'mask = build_masks(', 'File "/w/megatron/utils.py", line 180, in build_masks', 'mask = torch.tril(torch.ones(', OOM_22].join('\n');
    expect(triageFailures(log, 'x').verdicts[0]!.userFrames.map((f) => `${f.file}:${f.line}`)).toEqual(['/w/megatron/utils.py:180', '/w/pretrain_gpt.py:130']);
  });

  it("names the TPU of torch_xla's \"Exception in device=TPU:6\" line and joins it to the same OOM printed without a device", () => {
    const hbm = 'RESOURCE_EXHAUSTED: Attempting to reserve 10.51G at the bottom of memory. That was not possible. There are 8.97G free, 0B reserved, and 8.97G reservable.';
    const log = [
      `2023-03-23 02:02:25.057202: E tensorflow/compiler/xla/xla_client/xla_util.cc:90]   OP_REQUIRES failed at tpu_execute_op.cc:266 : ${hbm}`,
      'Exception in device=TPU:6: RESOURCE_EXHAUSTED: From /job:localservice/replica:0/task:0:',
      '2 root error(s) found.',
      `  (0) ${hbm}`,
    ].join('\n');
    const verdicts = triageFailures(log, 'x').verdicts;
    expect(verdicts).toHaveLength(1);
    expect(verdicts[0]).toMatchObject({ kind: 'catchable-oom', platform: 'xla-tpu', device: 6, requestedBytes: Math.round(10.51 * GiB), freeBytes: Math.round(8.97 * GiB) });
  });

  it('takes the user frames of the traceback chained after the failure (direct cause, or during handling)', () => {
    for (const marker of ['The above exception was the direct cause of the following exception:', 'During handling of the above exception, another exception occurred:']) {
      const log = [
        'Traceback (most recent call last):',
        '  File "/venv/lib/python3.8/site-packages/torch/utils/data/dataloader.py", line 1133, in _try_get_data',
        '    data = self._data_queue.get(timeout=timeout)',
        'RuntimeError: DataLoader worker (pid 1817) is killed by signal: Killed. ',
        '',
        marker,
        '',
        'Traceback (most recent call last):',
        '  File "train_meta.py", line 131, in <module>',
        '    val_loader=[x for x in val_loader]',
        '  File "/venv/lib/python3.8/site-packages/torch/utils/data/dataloader.py", line 634, in __next__',
      ].join('\n');
      expect(triageFailures(log, 'x').verdicts[0]).toMatchObject({ kind: 'host-oom', userFrames: [{ file: 'train_meta.py', line: 131 }] });
    }
  });
});

describe('llama.cpp/ggml on CUDA and ROCm', () => {
  it("reads ggml's abort on a CUDA error in both formats as a runtime abort with the current device", () => {
    const old = 'CUDA error 2 at /data/llama.cpp/ggml-cuda.cu:5509: out of memory\ncurrent device: 0\n';
    expect(triageFailures(old, 'x').verdicts[0]).toMatchObject({ kind: 'runtime-abort', platform: 'cuda', catchable: false, device: 0, evidence: [{ line: 1 }, { line: 2 }] });
    const rocm = [
      'ROCm error: out of memory',
      '  current device: 1, in function ggml_cuda_pool_malloc_vmm at /w/llama.cpp/ggml/src/ggml-cuda/ggml-cuda.cu:376',
      '  cuMemCreate(&handle, reserve_size, &prop, 0)',
      '/w/llama.cpp/ggml/src/ggml-cuda/ggml-cuda.cu:110: ROCm error',
    ].join('\n');
    const verdicts = triageFailures(rocm, 'x').verdicts;
    expect(verdicts).toHaveLength(1);
    expect(verdicts[0]).toMatchObject({ kind: 'runtime-abort', platform: 'rocm', device: 1, evidence: [{ line: 1 }, { line: 2 }, { line: 3 }, { line: 4 }] });
    // PyTorch's "CUDA error: out of memory" has no "current device" line under it and stays catchable.
    expect(triageFailures('RuntimeError: CUDA error: out of memory', 'x').verdicts[0]).toMatchObject({ kind: 'catchable-oom', catchable: true });
  });

  it("reads ggml's failed buffer allocation as a catchable OOM with the exact size and the backend's platform", () => {
    const log = [
      'ggml_backend_cuda_buffer_type_alloc_buffer: allocating 14136.04 MiB on device 0: cudaMalloc failed: out of memory',
      'ggml_gallocr_reserve_n: failed to allocate ROCm0 buffer of size 14822711296',
      'graph_reserve: failed to allocate compute buffers',
    ].join('\n');
    const verdicts = triageFailures(log, 'x').verdicts;
    expect(verdicts).toHaveLength(1);
    expect(verdicts[0]).toMatchObject({ kind: 'catchable-oom', platform: 'rocm', device: 0, requestedBytes: 14822711296 });
    expect(triageFailures('alloc_tensor_range: failed to allocate CUDA1 buffer of size 151851674624', 'x').verdicts[0]).toMatchObject({ platform: 'cuda', device: 1, requestedBytes: 151851674624 });
  });
});

describe('the OutOfMemoryError type alone', () => {
  it('reads an OutOfMemoryError whose message is cut or unknown as a catchable OOM on the platform its module names', () => {
    const cases: [string, string][] = [
      ['torch.OutOfMemoryError: Allocation on device ', 'cuda'],
      ['torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB', 'cuda'],
      ['cupy.cuda.memory.OutOfMemoryError: Out of memory allocating 1,073,741,824 bytes (allocated so far: 0 bytes).', 'cuda'],
      ['torch.xpu.OutOfMemoryError: out of device memory', 'xpu'],
      ['torch.mps.OutOfMemoryError: something new', 'mps'],
      ['torch_npu.OutOfMemoryError: something new', 'npu'],
    ];
    for (const [line, platform] of cases) expect(triageFailures(`${TRACEBACK.join('\n')}\n${line}`, 'x').verdicts[0], line).toMatchObject({ kind: 'catchable-oom', platform, catchable: true, userFrames: [{ line: 61 }, { line: 88 }] });
    expect(triageFailures('torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB', 'x').verdicts[0]!.requestedBytes).toBe(20 * 1024 ** 2);
    for (const code of ['    except torch.cuda.OutOfMemoryError: return None', '    raise torch.OutOfMemoryError: x']) {
      expect(triageFailures(code, 'x').verdicts, code).toEqual([]);
    }
    // Java's is not this type; the other-out-of-memory fallback (otherOom.ts) reads it as a host OOM.
    expect(triageFailures('java.lang.OutOfMemoryError: Java heap space', 'x').verdicts).toMatchObject([{ kind: 'catchable-oom', platform: 'cpu', catchable: true }]);
  });
});

describe('message variants of blind5\'s classes that the corpus does not hold', () => {
  const root = (text: string) => triageFailures(text, 'log').verdicts[0];

  it('reads the non-PT_ Gaudi DEVMEM message and the PT_ one alike', () => {
    expect(root('FATAL ERROR :: MODULE:DEVMEM Allocation failed for size::40960000 (39.0625)MB')).toMatchObject({ kind: 'catchable-oom', platform: 'gaudi', requestedBytes: 40960000 });
  });

  it('reads every Intel DEVICE_LOST spelling as not-oom, and not other statuses', () => {
    for (const status of ['UR_RESULT_ERROR_DEVICE_LOST', 'PI_ERROR_DEVICE_LOST', 'ZE_RESULT_ERROR_DEVICE_LOST']) {
      expect(root(`RuntimeError: level_zero backend failed with error: 20 (${status})`)).toMatchObject({ kind: 'not-oom', platform: 'xpu', catchable: false });
    }
    expect(root('warning: XYZ_ERROR_DEVICE_LOST_COUNT=3')).toBeUndefined();
  });

  it('reads ROCm page faults with any reason, and an abort glued to the line', () => {
    const v = root('Memory access fault by GPU node-1 (Agent handle: 0x1f829860) on address 0x1000. Reason: Write access to a read-only page.Aborted (core dumped)');
    expect(v).toMatchObject({ kind: 'not-oom', platform: 'rocm', catchable: false });
    expect(v?.device).toBeUndefined();
    expect(v?.summary).toContain('Write access to a read-only page');
  });

  it('reads an MPS message on the shared pool broken before "Tried to allocate"', () => {
    const v = root('RuntimeError: MPS backend out of memory (MPS allocated: 16.00 GB, other allocations: 3.31 GB, max allowed: 18.13 GB).\nTried to allocate 256 bytes on shared pool. Use PYTORCH_MPS_HIGH_WATERMARK_RATIO=0.0 to disable upper limit');
    expect(v).toMatchObject({ kind: 'catchable-oom', platform: 'mps', requestedBytes: 256, allocatedBytes: 16 * GiB });
  });

  it('reads TF 1.x "Resource exhausted:" XLA statuses, and a glog FATAL one as an abort', () => {
    expect(root('tensorflow.python.framework.errors_impl.ResourceExhaustedError: Resource exhausted: Failed to allocate request for 2.00GiB (2147483648B) on device ordinal 3')).toMatchObject({ kind: 'catchable-oom', platform: 'xla-tpu', requestedBytes: 2147483648, device: 3 });
    const fatal = root('F0408 11:22:09.148143 1234 statusor.cc:33] Resource exhausted: From /job:tpu_worker/replica:0/task:0:\nAttempting to reserve 7.04G at the bottom of memory. That was not possible. There are 6.90G free, 0B reserved, and 6.90G reservable.');
    expect(fatal).toMatchObject({ kind: 'runtime-abort', catchable: false, requestedBytes: Math.round(7.04 * GiB), freeBytes: Math.round(6.9 * GiB) });
  });

  it('takes the rank from torch_npu\'s RankID suffix, and none from RankID:-1', () => {
    const timeout = 'RuntimeError: npuSynchronizeDevice:torch_npu/csrc/core/npu/NPUStream.cpp:479 NPU function error: AclrtSynchronizeDeviceWithTimeout, error code is 507048';
    expect(root(`${timeout}\n[ERROR] 2025-06-25-10:45:23 (PID:13075, Device:0, RankID:5) ERR00100 PTA call acl api failed`)?.rank).toBe(5);
    expect(root(`${timeout}\n[ERROR] 2025-06-25-10:45:23 (PID:13075, Device:0, RankID:-1) ERR00100 PTA call acl api failed`)?.rank).toBeUndefined();
  });

  it('leaves a TorchScript terminate alone when no out-of-memory message is near it', () => {
    const v = root("terminate called after throwing an instance of 'std::runtime_error'\n  what():  The following operation failed in the TorchScript interpreter.\nTraceback of TorchScript (most recent call last):");
    // Not an OOM: only the other-failure fallback reads it.
    expect(v).toMatchObject({ kind: 'not-oom', catchable: false });
  });
});

describe('message classes read in the unread-classes pass (variants from public trackers)', () => {
  const all = (text: string) => triageFailures(text, 'log').verdicts;
  const root = (text: string) => all(text)[0];

  it("reads llama.cpp's SYCL errors as an abort when the status says memory ran out, else not-oom", () => {
    // ggml-org/llama.cpp docs/backend/SYCL.md and issues (VMM pool, oneMKL host allocation, PI/UR statuses).
    const vmm = 'Failed to allocate physical memory.\nSYCL error: CHECK_TRY_ERROR(phys.emplace(dev, ctx, reserve_size)): Exception caught in this line of code.\n  in function alloc at /app/llama.cpp/ggml/src/ggml-sycl/ggml-sycl.cpp:1861';
    expect(all(vmm)).toHaveLength(1);
    expect(root(vmm)).toMatchObject({ kind: 'runtime-abort', platform: 'xpu', catchable: false });
    const ur = 'Native API failed. Native API returns: 39 (UR_RESULT_ERROR_OUT_OF_DEVICE_MEMORY)\nException caught at file:/app/ggml-sycl.cpp, line:3164, func:operator()\nSYCL error: CHECK_TRY_ERROR(op(ctx, src0, src1, dst)): Meet error in this line code!\n  in function ggml_sycl_op_mul_mat at /app/ggml-sycl.cpp:3164';
    expect(all(ur)).toHaveLength(1);
    expect(root(ur)).toMatchObject({ kind: 'runtime-abort', platform: 'xpu' });
    const mkl = 'oneapi::mkl::oneapi::mkl::blas::gemm: cannot allocate memory on host\nException caught at file:/x/ggml-sycl.cpp, line:3356, func:operator()\nSYCL error: CHECK_TRY_ERROR(dpct::gemm_batch( *main_stream, oneapi::mkl::transpose::trans)): Meet error in this line code!';
    expect(root(mkl)).toMatchObject({ kind: 'runtime-abort', platform: 'xpu' });
    const unknown = 'Native API failed. Native API returns: -999 (Unknown PI error) -999 (Unknown PI error)\nException caught at file:/app/ggml-sycl.cpp, line:14735, func:operator()\nSYCL error: CHECK_TRY_ERROR((*stream) .memcpy((char *)tensor->data + offset, data, size) .wait()): Meet error in this line code!\nGGML_ASSERT: /app/ggml-sycl.cpp:2919: !"SYCL error"';
    expect(root(unknown)).toMatchObject({ kind: 'not-oom', platform: 'xpu', catchable: false });
    const lost = 'level_zero backend failed with error: 20 (UR_RESULT_ERROR_DEVICE_LOST)\nException caught at file:/x/ggml-sycl.cpp, line:4335, func:operator()\nSYCL error: CHECK_TRY_ERROR((stream)->wait()): Exception caught in this line of code.';
    expect(all(lost)).toHaveLength(1);
    expect(root(lost)).toMatchObject({ kind: 'not-oom', platform: 'xpu' });
  });

  it("reads SYCL out-of-memory statuses alone, ggml's SYCL buffer failures and SYCL0 buffers as XPU OOMs", () => {
    expect(root('RuntimeError: level_zero backend failed with error: 39 (UR_RESULT_ERROR_OUT_OF_DEVICE_MEMORY)')).toMatchObject({ kind: 'catchable-oom', platform: 'xpu' });
    expect(root('Native API failed. Native API returns: -6 (PI_ERROR_OUT_OF_HOST_MEMORY) -6 (PI_ERROR_OUT_OF_HOST_MEMORY) -999 (UNKNOWN PI error)')).toMatchObject({ kind: 'catchable-oom', platform: 'xpu' });
    expect(root("ggml_backend_sycl_buffer_type_alloc_buffer: can't allocate 3503030272 Bytes of memory on device")).toMatchObject({ kind: 'catchable-oom', platform: 'xpu', requestedBytes: 3503030272 });
    expect(root("ggml_backend_sycl_buffer_type_alloc_buffer: can't malloc 3278637056 Bytes memory on device")).toMatchObject({ requestedBytes: 3278637056 });
    expect(root('alloc_tensor_range: failed to allocate SYCL0 buffer of size 3503030272')).toMatchObject({ kind: 'catchable-oom', platform: 'xpu', device: 0 });
    // ROCm's HSA status shares the suffix and stays ROCm's.
    expect(root('HSA_STATUS_ERROR_OUT_OF_RESOURCES: The runtime failed to allocate the necessary resources.')?.platform).toBe('rocm');
  });

  it('reads MPS "Invalid buffer size" as a refused request for one buffer over the Metal limit, with the split as the fix', () => {
    // pytorch/pytorch#141909 (GB), kijai/ComfyUI-SUPIR#151 (GiB).
    expect(root('Traceback (most recent call last):\n  File "/Users/me/test1.py", line 5, in <module>\n    res = torch.bmm(x1, x2)\nRuntimeError: Invalid buffer size: 19.45 GB')).toMatchObject({
      kind: 'catchable-oom', platform: 'mps', catchable: true, requestedBytes: Math.round(19.45 * GiB), userFrames: [{ file: '/Users/me/test1.py', line: 5 }],
    });
    const v = root('RuntimeError: Invalid buffer size: 19.38 GiB');
    expect(v).toMatchObject({ kind: 'catchable-oom', platform: 'mps', requestedBytes: Math.round(19.38 * GiB) });
    expect(v?.fixes[0]?.id).toBe('mps-split-op');
  });

  it("reads TensorFlow's cuDNN initialization failure as not-oom with memory growth as the fix, an OOM when the handle's allocation failed, and a version mismatch as its cause", () => {
    // tensorflow/tensorflow#38929, #24828, #36025 (allow_growth fixes it), Sentdex/pygta5#125; labelled not-oom by the collectors.
    const msg = 'tensorflow.python.framework.errors_impl.UnknownError: 2 root error(s) found.\n  (0) Unknown: Failed to get convolution algorithm. This is probably because cuDNN failed to initialize, so try looking to see if a warning log message was printed above.';
    expect(root(msg)).toMatchObject({ kind: 'not-oom', platform: 'cuda', catchable: true });
    expect(root(msg)!.fixes[0]!.id).toBe('tf-allow-growth');
    const withHandle = 'E tensorflow/stream_executor/cuda/cuda_dnn.cc:329] Could not create cudnn handle: CUDNN_STATUS_INTERNAL_ERROR\n' +
      'UnknownError (see above for traceback): Failed to get convolution algorithm. This is probably because cuDNN failed to initialize, so try looking to see if a warning log message was printed above.';
    expect(all(withHandle)).toHaveLength(1);
    expect(root(withHandle)).toMatchObject({ kind: 'not-oom' });
    expect(root(withHandle.replace('INTERNAL_ERROR', 'ALLOC_FAILED'))).toMatchObject({ kind: 'catchable-oom', catchable: true });
    const mismatch = 'E tensorflow/stream_executor/cuda/cuda_dnn.cc:319] Loaded runtime CuDNN library: 7.1.4 but source was compiled with: 7.4.1.  CuDNN library major and minor version needs to match.\n' +
      'UnknownError: Failed to get convolution algorithm. This is probably because cuDNN failed to initialize, so try looking to see if a warning log message was printed above.';
    expect(root(mismatch)).toMatchObject({ kind: 'not-oom', platform: 'cuda' });
  });

  it('reads "DataLoader worker exited unexpectedly" as a host kill only with the kill signal, and leaves it unread alone', () => {
    // NVIDIA/pix2pixHD#197, michuanhaohao/reid-strong-baseline#29: the message alone names no cause (a crash, shm, Windows spawn).
    // Alone it is not a kill: only the other-failure fallback reads it, as not-oom.
    expect(all('RuntimeError: DataLoader worker (pid(s) 15927) exited unexpectedly')).toMatchObject([{ kind: 'not-oom', catchable: true }]);
    const killed = [
      'Traceback (most recent call last):',
      '  File "/opt/venv/lib/python3.10/site-packages/torch/utils/data/dataloader.py", line 1133, in _try_get_data',
      '    data = self._data_queue.get(timeout=timeout)',
      'RuntimeError: DataLoader worker (pid 4743) is killed by signal: Killed. ',
      '',
      'The above exception was the direct cause of the following exception:',
      '',
      'Traceback (most recent call last):',
      '  File "/home/me/proj/train.py", line 70, in <module>',
      '    for batch in loader:',
      '  File "/opt/venv/lib/python3.10/site-packages/torch/utils/data/dataloader.py", line 1146, in _try_get_data',
      "    raise RuntimeError(f'DataLoader worker (pid(s) {pids_str}) exited unexpectedly') from e",
      'RuntimeError: DataLoader worker (pid(s) 4743) exited unexpectedly',
    ].join('\n');
    expect(all(killed)).toHaveLength(1);
    expect(root(killed)).toMatchObject({ kind: 'host-oom', platform: 'cpu', userFrames: [{ file: '/home/me/proj/train.py', line: 70 }] });
  });

  it('reads tracebacks behind pdsh/clush host prefixes', () => {
    for (const host of ['10.0.0.5: ', 'node01: ']) {
      const text = ['Traceback (most recent call last):', '  File "/home/me/proj/train.py", line 61, in main', '    loss = step(batch)', `torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.19 GiB of which 1.05 GiB is free.`]
        .map((l) => host + l).join('\n');
      expect(root(text)).toMatchObject({ kind: 'catchable-oom', userFrames: [{ file: '/home/me/proj/train.py', line: 61 }] });
    }
  });

  it("reads SynapseAI's SYNHELPER workspace allocation failure as a Gaudi OOM", () => {
    // HabanaAI/Model-References#10.
    expect(root('RuntimeError: FATAL ERROR :: MODULE:SYNHELPER workspace Allocation of size ::14493510400 failed!')).toMatchObject({ kind: 'catchable-oom', platform: 'gaudi', requestedBytes: 14493510400 });
  });
});

describe("message classes of blind8's misses (variants written from the producing projects' source)", () => {
  const all = (text: string) => triageFailures(text, 'log').verdicts;
  const root = (text: string) => all(text)[0];

  it("reads other runtimes' checks of a CUDA call that ran out of memory as a catchable CUDA OOM", () => {
    // CTranslate2 ("CUDA failed with error " + cudaGetErrorString), vLLM csrc/cumem_allocator.cpp
    // ("CUDA Error: %s at %s:%d" with cuGetErrorString), FasterTransformer's check() and its forks.
    for (const line of [
      'RuntimeError: CUDA failed with error out of memory',
      'RuntimeError: CUDA Error: out of memory at /opt/vllm/csrc/cumem_allocator.cpp:139',
      'RuntimeError: [FT][ERROR] CUDA runtime error: out of memory /workspace/FasterTransformer/src/fastertransformer/utils/allocator.h:181',
      'RuntimeError: [TM][ERROR] CUDA Runtime Error: out of memory /opt/lmdeploy/src/turbomind/utils/memory_utils.cu:77',
    ]) {
      expect(root(`${TRACEBACK.join('\n')}\n${line}`), line).toMatchObject({ kind: 'catchable-oom', platform: 'cuda', catchable: true, userFrames: [{ line: 61 }, { line: 88 }] });
    }
    expect(root('RuntimeError: CUDA failed with error CUDA driver version is insufficient for CUDA runtime version')).toMatchObject({ kind: 'not-oom', platform: 'cuda' });
  });

  it('reads an uncaught std::bad_alloc as a host allocation abort, and leaves device bad_allocs to the device', () => {
    for (const text of [
      "2024-01-02 10:11:12.000 worker.cc:31] step 400\nterminate called after throwing an instance of 'std::bad_alloc'\n  what():  std::bad_alloc\nAborted (core dumped)",
      'libc++abi: terminating due to uncaught exception of type std::bad_alloc: std::bad_alloc',
    ]) {
      expect(all(text), text).toHaveLength(1);
      expect(root(text), text).toMatchObject({ kind: 'runtime-abort', platform: 'cpu', catchable: false });
    }
    const thrust = "terminate called after throwing an instance of 'thrust::system::detail::bad_alloc'\n  what():  std::bad_alloc: cudaErrorMemoryAllocation: out of memory";
    expect(root(thrust)).toMatchObject({ kind: 'runtime-abort', platform: 'cuda' });
  });

  it("reads NumPy's MemoryError under every module path with the array's size", () => {
    // numpy/core/_exceptions.py: _ArrayMemoryError.__str__ and _size_to_string.
    for (const [type, size, bytes] of [
      ['numpy.core._exceptions._ArrayMemoryError', '3.58 GiB', Math.round(3.58 * GiB)],
      ['numpy._core._exceptions._ArrayMemoryError', '512. MiB', 512 * 1024 ** 2],
      ['MemoryError', '96 bytes', 96],
    ] as const) {
      expect(root(`${type}: Unable to allocate ${size} for an array with shape (20000, 24000) and data type float64`), type).toMatchObject({ kind: 'catchable-oom', platform: 'cpu', requestedBytes: bytes });
    }
    expect(root('torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB')?.platform).toBe('cuda');
  });

  it('reads a DataLoader worker killed by a signal other than SIGKILL as not-oom, with the chained user frame', () => {
    // torch/csrc/DataLoader.cpp: "DataLoader worker (pid N) is killed by signal: " + strsignal(sig).
    const text = [
      '[rank2]: Traceback (most recent call last):',
      '[rank2]:   File "/opt/venv/lib/python3.11/site-packages/torch/utils/data/_utils/signal_handling.py", line 73, in handler',
      '[rank2]:     _error_if_any_worker_fails()',
      '[rank2]: RuntimeError: DataLoader worker (pid 91234) is killed by signal: Bus error. It is possible that dataloader\'s workers are out of shared memory.',
      '',
      '[rank2]: The above exception was the direct cause of the following exception:',
      '',
      '[rank2]: Traceback (most recent call last):',
      '[rank2]:   File "/srv/job/fit.py", line 77, in <module>',
      '[rank2]:     for batch in loader:',
      '[rank2]: RuntimeError: DataLoader worker (pid(s) 91234) exited unexpectedly',
    ].join('\n');
    // PyTorch adds a sentence about shared memory after a bus error.
    const bus = root(text);
    expect(bus).toMatchObject({ kind: 'not-oom', platform: 'cpu', catchable: true, rank: 2, userFrames: [{ file: '/srv/job/fit.py', line: 77 }] });
    expect(bus!.fixes[0]!.id).toBe('dataloader-shm');
    const segv = text.replace("Bus error. It is possible that dataloader's workers are out of shared memory.", 'Segmentation fault. ');
    expect(root(segv)).toMatchObject({ kind: 'not-oom', platform: 'cpu', catchable: true, rank: 2, userFrames: [{ file: '/srv/job/fit.py', line: 77 }] });
    expect(root('RuntimeError: DataLoader worker (pid 4743) is killed by signal: Killed. ')?.kind).toBe('host-oom');
  });

  it('reads HIP status names other than out-of-memory as not-oom on ROCm, but not in warnings', () => {
    // HIP runtime hip_code_object.cpp; ROCm docs' troubleshooting quote the spelling with GPU in capitals.
    expect(root('"hipErrorNoBinaryForGPU: Unable to find code object for all current devices!"\nAborted (core dumped)')).toMatchObject({ kind: 'not-oom', platform: 'rocm', catchable: false });
    expect(root('RuntimeError: hipErrorInvalidDeviceFunction')).toMatchObject({ kind: 'not-oom', platform: 'rocm', catchable: true });
    expect(root('UserWarning: HIP initialization: Unexpected error from hipGetDeviceCount(). Error 101: hipErrorInvalidDevice')).toBeUndefined();
    expect(root('RuntimeError: hipErrorOutOfMemory')).toMatchObject({ kind: 'catchable-oom', platform: 'rocm' });
    // AMD_LOG_LEVEL traces and polled states are not failures; its error level is.
    expect(root(':3:hip_event.cpp            :310 : 1520917404 us: [pid:41 tid:0x7f] hipEventQuery: Returned hipErrorNotReady :')).toBeUndefined();
    expect(root('hipDeviceEnablePeerAccess returned hipErrorPeerAccessAlreadyEnabled')).toBeUndefined();
    expect(root(':1:hip_code_object.cpp      :505 : 99442499995 us: [pid:3504 tid:0x7f02] hipErrorNoBinaryForGpu: Unable to find code object for all current devices!')?.kind).toBe('not-oom');
    // HCC's STATUS_CHECK aborts after printing the HSA status (mcwamp_hsa.cpp); a RuntimeError carrying one does not.
    expect(root('### HCC STATUS_CHECK Error: HSA_STATUS_ERROR_INVALID_ARGUMENT (0x1001) at file:mcwamp_hsa.cpp line:2930')).toMatchObject({ kind: 'not-oom', platform: 'rocm', catchable: false });
    expect(root('RuntimeError: HSA_STATUS_ERROR: A generic error has occurred.')).toMatchObject({ kind: 'not-oom', catchable: true });
  });

  it("reads Metal's out-of-memory command buffer error: returned by ggml, an abort when MLX's exception is uncaught", () => {
    const ggml = 'ggml_metal_graph_compute: command buffer 0 failed with status 5\nerror: Insufficient Memory (00000008:kIOGPUCommandBufferCallbackErrorOutOfMemory)';
    expect(root(ggml)).toMatchObject({ kind: 'catchable-oom', platform: 'mps', catchable: true });
    const mlx = 'libc++abi: terminating due to uncaught exception of type std::runtime_error: [METAL] Command buffer execution failed: Insufficient Memory (00000008:kIOGPUCommandBufferCallbackErrorOutOfMemory)';
    expect(root(mlx)).toMatchObject({ kind: 'runtime-abort', platform: 'mps', catchable: false });
  });

  it("reads NCCL's network transport warnings as a peer or network failure, and not NET/Plugin's", () => {
    const ib = 'gpu-node-07:4411:4529 [5] transport/net_ib.cc:1696 NCCL WARN NET/IB : Got completion from peer 10.1.2.3<48213> with status=IBV_WC_RETRY_EXC_ERR(12) opcode=0 len=0 vendor err 129 (Recv)';
    expect(root(ib)).toMatchObject({ kind: 'not-oom', platform: 'cuda', catchable: false });
    expect(root('gpu-node-07:4411:4529 [5] misc/socket.cc:49 NCCL WARN NET/Socket : Connection closed by remote peer gpu-node-03<33050>')?.kind).toBe('not-oom');
    expect(root('gpu-node-07:4411:4411 [0] NCCL WARN NET/Plugin: Could not find: libnccl-net.so.')).toBeUndefined();
  });

  it('reads allocator numbers from wrapped and embedded messages: a prefixed hard wrap, a soft wrap, escaped line breaks, the old "allowed" field', () => {
    // A terminal 90 columns wide cuts the line as printed, rank prefix included.
    const printed = '[rank3]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.50 GiB. GPU  has a total capacity of 39.39 GiB of which 812.00 MiB is free. ' +
      'Including non-PyTorch memory, this process has 38.59 GiB memory in use. Of the allocated memory 35.10 GiB is allocated by PyTorch, and 2.01 GiB is reserved by PyTorch but unallocated.';
    const hard = printed.match(/.{1,90}/g)!;
    expect(root(hard.join('\n'))).toMatchObject({ rank: 3, deviceTotalBytes: Math.round(39.39 * GiB), freeBytes: 812 * 1024 ** 2 });
    const soft = 'OutOfMemoryError: CUDA out of memory. Tried to allocate 40.00 MiB (GPU 1; 7.79 GiB total capacity; 6.62 GiB already allocated; 28.50 MiB free;\n6.71 GiB reserved in total by PyTorch) If reserved memory is >> allocated memory try setting max_split_size_mb';
    expect(root(soft)).toMatchObject({ device: 1, freeBytes: Math.round(28.5 * 1024 ** 2), reservedBytes: Math.round(6.71 * GiB) });
    // The other PyTorch allocators print the same message, wrapped the same way.
    const hip = 'torch.OutOfMemoryError: HIP out of memory. Tried to allocate 1.00 GiB. GPU 0 has a total capacity of 15.98 GiB of which 0 bytes is free. Of the allocated memory 13.50 GiB is allocated by\nPyTorch, and 2.25 GiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting\nPYTORCH_HIP_ALLOC_CONF=expandable_segments:True to avoid fragmentation.';
    expect(root(hip)).toMatchObject({ kind: 'fragmentation', platform: 'rocm', allocatedBytes: Math.round(13.5 * GiB), reservedUnallocatedBytes: Math.round(2.25 * GiB) });
    expect(root(hip)!.fixes[0]!.snippet).toContain('PYTORCH_HIP_ALLOC_CONF');
    const escaped = 'Error: ShardCannotStart("Allocation on device 1 would exceed allowed memory. (out of memory)\\nCurrently allocated     : 30.02 GiB\\nRequested               : 2.00 GiB\\nDevice limit            : 39.39 GiB\\nFree (according to CUDA): 5.06 MiB\\nPyTorch limit (set by user-supplied memory fraction)\\n                        : 35.00 GiB")';
    expect(root(escaped)).toMatchObject({ device: 1, requestedBytes: 2 * GiB, allowedBytes: 35 * GiB });
    expect(root('RuntimeError: CUDA out of memory. Tried to allocate 64.00 MiB (GPU 2; 31.75 GiB total capacity; 20.10 GiB already allocated; 9.44 MiB free; 24.00 GiB allowed; 20.33 GiB reserved in total by PyTorch)')).toMatchObject({ allowedBytes: 24 * GiB, reservedBytes: Math.round(20.33 * GiB) });
  });

  it("reads the TPU runtime's reservation cut after \"That was not possible.\", and TensorFlow's request logged after the message", () => {
    expect(root("jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Error loading program 'jit_step': Attempting to reserve 10.25G at the bottom of memory. That was not possible.")).toMatchObject({ kind: 'catchable-oom', platform: 'xla-tpu', requestedBytes: Math.round(10.25 * GiB) });
    const tf = 'W tensorflow/core/framework/op_kernel.cc:1158] Resource exhausted: OOM when allocating tensor with shape[32,512,28,28] and type float on /job:localhost/replica:0/task:0/device:GPU:1 by allocator GPU_1_bfc\nW tensorflow/core/common_runtime/bfc_allocator.cc:267] Allocator (GPU_1_bfc) ran out of memory trying to allocate 49.00MiB.  Current allocation summary follows.';
    expect(root(tf)).toMatchObject({ kind: 'catchable-oom', device: 1, requestedBytes: 49 * 1024 ** 2 });
  });

  it('takes the rank a message names about itself, and the rank of a line a terminal wrapped the message from', () => {
    const what = "  what():  [PG ID 0 PG GUID 0(default_pg) Rank 6] Process group watchdog thread terminated with exception: CUDA error: an illegal memory access was encountered";
    expect(root(what)).toMatchObject({ kind: 'not-oom', rank: 6 });
    expect(root('[2024-03-01 08:00:00,001] [ERROR] [axolotl.train:120] [PID:77] [RANK:5] CUDA out of memory. Tried to allocate 1.00 GiB (GPU 5; 79.15 GiB total capacity; 77.00 GiB already allocated; 512.00 MiB free; 78.00 GiB reserved in total by PyTorch)')).toMatchObject({ rank: 5, device: 5 });
    // A watchdog line cut by a 100-column terminal inside "[Rank 3]", after a progress bar.
    const printed = 'Epoch 2:  41%|####      | 410/1000 [10:01<14:25,  1.47s/it][rank3]:[E ProcessGroupNCCL.cpp:563] [Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=88, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600012 milliseconds before timing out.';
    const cut = printed.indexOf('[Rank 3]') + 6;
    const width = cut;
    const lines = [printed.slice(0, width), ...printed.slice(width).match(new RegExp(`.{1,${width}}`, 'g'))!];
    expect(lines[1]!.startsWith('3] Watchdog')).toBe(true);
    expect(root(lines.join('\n'))).toMatchObject({ kind: 'hang', rank: 3 });
  });

  it("reads torch_npu's HCCL error as not-oom with CANN's reason and the suffix's rank, joined to a hang when there is one", () => {
    // torch_npu ProcessGroupHCCL.cpp HCCL_CHECK_ERROR ("[ERROR] HCCL error in: " + file:line + the CANN message).
    const text = [
      'torch.distributed.DistBackendError: [ERROR] HCCL error in: torch_npu/csrc/distributed/ProcessGroupHCCL.cpp:1894',
      '[ERROR] 2025-02-11-09:30:01 (PID:5150, Device:6, RankID:14) ERR02200 DIST call hccl api failed.',
      'EJ0003: [PID: 5150] 2025-02-11-09:30:01.212.118 Failed to bind the IP port. Reason: The IP address and port have been bound already.',
    ].join('\n');
    expect(root(text)).toMatchObject({ kind: 'not-oom', platform: 'npu', catchable: true, rank: 14 });
    expect(root(text)!.summary).toContain('EJ0003');
    const withHang = `${text}\nEI0006: [PID: 5150] 2025-02-11-09:40:01.000.000 Getting socket times out. Reason: Remote Rank did not send the data in time.`;
    expect(all(withHang)).toHaveLength(1);
    expect(root(withHang)).toMatchObject({ kind: 'hang', platform: 'npu' });
  });

  it('gives an Ascend timeout raised as an exception the traceback above it, also above its error block, and none to a watchdog timeout', () => {
    const frames = ['Traceback (most recent call last):', '  File "/srv/rl/rollout.py", line 212, in sync_weights', '    dist.broadcast(t, src=0)', '  File "/opt/py/lib/python3.11/site-packages/torch/distributed/distributed_c10d.py", line 2650, in broadcast', '    work.wait()'];
    const raised = [...frames, 'RuntimeError: npuSynchronizeDevice:torch_npu/csrc/core/npu/NPUStream.cpp:380 NPU error, error code is 507048', '[ERROR] 2025-01-01-00:00:00 (PID:1, Device:3, RankID:11) ERR00100 PTA call acl api failed.'].join('\n');
    expect(root(raised)).toMatchObject({ kind: 'hang', rank: 11, userFrames: [{ file: '/srv/rl/rollout.py', line: 212 }] });
    const below = [...frames, 'RuntimeError: InnerRunOpApi:torch_npu/csrc/framework/OpParamMaker.cpp:281 OPS function error: HcclBroadcast, error code is 6', '[ERROR] 2025-01-01-00:00:00 (PID:1, Device:3, RankID:11) ERR01100 OPS call acl api failed.', 'EI0006: [PID: 1] 2025-01-01-00:00:00.000.000 Getting socket times out. Reason: Remote Rank did not send the data in time.'].join('\n');
    expect(root(below)).toMatchObject({ kind: 'hang', rank: 11, userFrames: [{ file: '/srv/rl/rollout.py', line: 212 }] });
    const watchdog = [...frames, '[rank0]:[E ProcessGroupNCCL.cpp:563] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=5, OpType=BROADCAST, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600001 milliseconds before timing out.'].join('\n');
    expect(root(watchdog)?.userFrames).toEqual([]);
  });

  it("reads the device of an Ascend memory error from torch_npu's suffix or CANN's trace under it", () => {
    expect(root('EL0004: [PID: 88] 2025-03-01-10:00:00.000.000 Failed to allocate memory.\n[ERROR] 2025-03-01-10:00:00 (PID:88, Device:5, RankID:-1) ERR00100 PTA call acl api failed.')).toMatchObject({ kind: 'catchable-oom', platform: 'npu', device: 5 });
    const trace = ['[ERROR] RecentErrMsg: Memory_Allocation_Failure(EL0004): Failed to allocate memory.', '        Possible Cause: Available memory is insufficient.', '        TraceBack (most recent call last):', '        rtSetDevice execution failed, reason=device retain error', '        open device 7 failed, runtime result = 507033.'].join('\n');
    expect(root(trace)).toMatchObject({ kind: 'catchable-oom', device: 7 });
  });

  it("reads ggml's abort behind journald's prefix, on the ROCm backend its load log names", () => {
    const log = [
      'Mar 02 11:00:01 box ollama[2001]: llm_load_tensors:      ROCm0 buffer size =  7000.00 MiB',
      'Mar 02 11:00:09 box ollama[2001]: CUDA error: out of memory',
      'Mar 02 11:00:09 box ollama[2001]:   current device: 1, in function ggml_cuda_pool_malloc at /src/ggml-cuda.cu:301',
      'Mar 02 11:00:09 box ollama[2001]:   ggml_cuda_device_malloc(&ptr, look_ahead_size, device)',
      'Mar 02 11:00:09 box ollama[2001]: GGML_ASSERT: /src/ggml-cuda.cu:102: !"CUDA error"',
    ];
    expect(root(log.join('\n'))).toMatchObject({ kind: 'runtime-abort', platform: 'rocm', device: 1, catchable: false });
    expect(root(log.slice(1).join('\n'))).toMatchObject({ kind: 'runtime-abort', platform: 'cuda', device: 1 });
  });

  it("takes the user frame from pybind11's At: list under the message, innermost first", () => {
    // pybind11 error_string(): "\n\nAt:\n" then "  file(line): function" from the deepest frame outwards.
    const text = [
      'Traceback (most recent call last):',
      '  File "/opt/py/lib/python3.10/site-packages/torch/autograd/__init__.py", line 200, in backward',
      '    Variable._execution_engine.run_backward(',
      'RuntimeError: RuntimeError: CUDA out of memory. Tried to allocate 64.00 MiB (GPU 0; 23.65 GiB total capacity; 22.10 GiB already allocated; 41.00 MiB free; 22.12 GiB reserved in total by PyTorch)',
      '',
      'At:',
      '  /opt/py/lib/python3.10/site-packages/torch/nn/functional.py(2515): layer_norm',
      '  /opt/py/lib/python3.10/site-packages/torch/nn/modules/normalization.py(190): forward',
      '  /home/me/lm/blocks.py(57): forward',
      '  /home/me/lm/model.py(301): forward',
    ].join('\n');
    expect(root(text)).toMatchObject({ kind: 'catchable-oom', device: 0, userFrames: [{ file: '/home/me/lm/blocks.py', line: 57 }, { file: '/home/me/lm/model.py', line: 301 }] });
  });

  it('reads frames listed under a message without a Traceback header (ComfyUI), blank lines between them, past the 12-line look-ahead', () => {
    const frames = (n: number) => Array.from({ length: n }, (_, i) => [`  File "/srv/app/stage${i}.py", line ${10 + i}, in step${i}`, `    out = next_stage${i}(x)`, '']).flat();
    const plain = ['Error occurred when executing VAEDecode:', '', 'CUDA out of memory. Tried to allocate 3.00 GiB. GPU 0 has a total capacity of 11.72 GiB of which 1.20 GiB is free. Of the allocated memory 9.80 GiB is allocated by PyTorch, and 256.00 MiB is reserved by PyTorch but unallocated.', '', ...frames(3)].join('\n');
    expect(root(plain)).toMatchObject({ kind: 'catchable-oom' });
    expect(root(plain)!.userFrames.map((f) => f.line)).toEqual([12, 11, 10]);
    const report = ['# ComfyUI Error Report', '## Error Details', '- **Node Type:** WanVideoSampler', '- **Exception Type:** torch.OutOfMemoryError', '- **Exception Message:** Allocation on device ', '## Stack Trace', '```', ...frames(9), '```'].join('\n');
    expect(all(report)).toHaveLength(1);
    expect(root(report)).toMatchObject({ kind: 'catchable-oom', platform: 'cuda', catchable: true });
    expect(root(report)!.userFrames[0]).toMatchObject({ file: '/srv/app/stage8.py', line: 18 });
    // With the message in the report, its own signature reads it (numbers) and the type line stands aside.
    const withMessage = report.replace('Allocation on device ', 'HIP out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 15.98 GiB of which 0 bytes is free. Of the allocated memory 14.10 GiB is allocated by PyTorch, and 1.20 GiB is reserved by PyTorch but unallocated.');
    expect(all(withMessage)).toHaveLength(1);
    expect(root(withMessage)).toMatchObject({ platform: 'rocm', requestedBytes: 2 * GiB });
    expect(root(withMessage)!.userFrames[0]).toMatchObject({ file: '/srv/app/stage8.py', line: 18 });
    // Prose between a message and later frames is not a frame list.
    expect(root(['RuntimeError: CUDA error: out of memory', 'retrying with a smaller batch', '  File "/srv/app/x.py", line 1, in f'].join('\n'))?.userFrames).toEqual([]);
  });
});
