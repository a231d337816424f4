import { mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyzeFile, resolveDevice } from '../../server/src/analysis/analyze';
import { applyEdits, SCRIPTS } from './analysis-helpers';
import { tempDir } from '../support/tempDir';

const device = resolveDevice('H100-80GB');

describe('launch scripts', () => {
  it('applies the launcher world size and the script arguments to the plan', async () => {
    const { facts, plan } = await analyzeFile(path.join(SCRIPTS, 'launch', 'train_fsdp.py'), device);
    expect(facts?.worldSize?.value).toBe(16);
    expect(facts?.batchSize?.value).toBe(4);
    expect(facts?.seqLen?.value).toBe(4096);
    expect(facts?.checkpointing?.value).toBe(true);
    expect(plan?.assumptions.some((a) => a.includes('run.sh:6'))).toBe(true);
    // expandable_segments exported by run.sh lowers the fragmentation margin to 2%.
    const margin = plan!.breakdown.find((b) => b.key === 'fragmentationMargin')!;
    expect(margin.bytes).toBe(Math.round(plan!.allocatedPeakBytes * 0.02));
  });

  it(".vscode/launch.json's args for the script, then the CLI's `-- ARGS`, set the script's arguments", async () => {
    const root = tempDir('headroom-vscode-');
    mkdirSync(path.join(root, '.vscode'));
    mkdirSync(path.join(root, 'scripts'));
    const script = path.join(root, 'scripts', 'sft.py');
    // An HfArgumentParser-style script: the model id reaches a TRL trainer through a dataclass field.
    writeFileSync(script, [
      'from trl import ModelConfig, SFTConfig, SFTTrainer, TrlParser',
      'script_args, training_args, model_args = TrlParser((ScriptArguments, SFTConfig, ModelConfig)).parse_args_and_config()',
      'trainer = SFTTrainer(model=model_args.model_name_or_path, args=training_args)',
      'trainer.train()',
    ].join('\n'));
    writeFileSync(path.join(root, '.vscode', 'launch.json'), `{
      // Comments and trailing commas, as VS Code writes them.
      "version": "0.2.0",
      "configurations": [
        { "name": "other", "type": "debugpy", "request": "launch", "program": "\${workspaceFolder}/scripts/other.py", "args": ["--per_device_train_batch_size", "64"] },
        { "name": "SFT Qwen", "type": "debugpy", "request": "launch", "program": "\${workspaceFolder}/scripts/sft.py",
          "args": ["--model_name_or_path", "Qwen/Qwen2.5-0.5B", "--per_device_train_batch_size=8", "--gradient_checkpointing"], },
      ],
    }`);
    const fromConfig = await analyzeFile(script, device);
    expect(fromConfig.facts?.model?.value.ref).toBe('Qwen/Qwen2.5-0.5B');
    expect(fromConfig.facts?.batchSize?.value).toBe(8);
    expect(fromConfig.facts?.checkpointing?.value).toBe(true);
    expect(fromConfig.plan?.assumptions).toContain('arguments from .vscode/launch.json "SFT Qwen"');
    // The command line wins over launch.json for the same flag.
    const fromCli = await analyzeFile(script, device, ['--per_device_train_batch_size', '2']);
    expect(fromCli.facts?.batchSize?.value).toBe(2);
    expect(fromCli.plan?.assumptions).toContain('arguments from .vscode/launch.json "SFT Qwen" and the command line');
  });

  it('takes "Python: Current File" (${file}) configurations, and survives a launch.json that is not an object', async () => {
    const root = tempDir('headroom-vscode-');
    mkdirSync(path.join(root, '.vscode'));
    const script = path.join(root, 'train.py');
    writeFileSync(script, 'batch_size = 16\n');
    writeFileSync(path.join(root, '.vscode', 'launch.json'), '{ "configurations": [ 7, null, { "program": "${file}", "args": ["--batch_size", "2", 3] } ] }');
    expect((await analyzeFile(script, device)).facts?.batchSize?.value).toBe(2);
    writeFileSync(path.join(root, '.vscode', 'launch.json'), '[1, 2');
    expect((await analyzeFile(script, device)).facts?.batchSize?.value).toBe(16);
  });

  it('HR010 on a launch script whose training script sets no memory fraction', async () => {
    const { findings } = await analyzeFile(path.join(SCRIPTS, 'launch', 'run.sh'), device);
    expect(findings.map((f) => f.rule)).toEqual(['HR010']);
    expect(findings[0]!.loc.line).toBe(4);
  });

  it('HR009 fixes a misspelled key inside a quoted shell value', async () => {
    const dir = tempDir('headroom-launch-');
    const file = path.join(dir, 'go.sh');
    const text = 'export PYTORCH_CUDA_ALLOC_CONF="expandable_segmnts:True"\npython train.py\n';
    writeFileSync(file, text);
    const { findings } = await analyzeFile(file, device);
    const f = findings.find((x) => x.rule === 'HR009')!;
    expect(applyEdits(text, f.codeFix!.edits)).toBe('export PYTORCH_CUDA_ALLOC_CONF="expandable_segments:True"\npython train.py\n');
  });
});
