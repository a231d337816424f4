#!/usr/bin/env node
/**
 * `headroom`: the command-line twin of the extension, over the same core as the server.
 * Each subcommand lives with its feature (`<feature>/cli.ts`); this file only dispatches.
 */
import * as analysis from './analysis/cli';
import * as replay from './replay/cli';
import * as runs from './runs/cli';
import * as remote from './runs/remote/cli';
import * as triage from './triage/cli';

/** A subcommand: returns the process exit code. Writes results to stdout, problems to stderr. */
export type Subcommand = (args: string[]) => Promise<number>;

interface CommandEntry {
  usage: string;
  run: Subcommand;
}

const commands: Record<string, CommandEntry> = {
  triage: { usage: 'headroom triage FILE... [--json]', run: triage.triageCommand },
  analyze: { usage: 'headroom analyze FILE... [--device NAME] [--json]', run: analysis.analyzeCommand },
  snapshot: { usage: 'headroom snapshot FILE [--json] | FILE --export-memory-viz OUT [--last N]', run: replay.snapshotCommand },
  replay: {
    usage: 'headroom replay SNAPSHOT [--settings "<PYTORCH_CUDA_ALLOC_CONF>"]... [--capacity BYTES] [--json] | --fit SNAPSHOT [--settings S]... [--json]',
    run: replay.replayCommand,
  },
  repro: {
    usage: 'headroom repro list [--json] | run PROBE --target local|ssh:HOST|slurm:PARTITION [--variant V]... [--repeat N] [--ranks N] [--json] | runs | show RUN-ID',
    run: runs.reproCommand,
  },
  remote: {
    usage: 'headroom remote targets | hosts [--ssh-config FILE] | test ssh:HOST|slurm:PARTITION [--python PY] | attach RUN-ID | cancel RUN-ID | job RUN-ID [--json]',
    run: remote.remoteCommand,
  },
};

function usage(): string {
  return ['Usage:', ...Object.values(commands).map((c) => `  ${c.usage}`)].join('\n');
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(usage() + '\n');
    return name === undefined ? 2 : 0;
  }
  const command = commands[name];
  if (!command) {
    process.stderr.write(`headroom: unknown command "${name}".\n${usage()}\n`);
    return 2;
  }
  return command.run(rest);
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    const code = (err as { code?: string }).code;
    process.stderr.write(`headroom: ${err instanceof Error ? err.message : String(err)}${code ? ` (${code})` : ''}\n`);
    process.exitCode = 1;
  },
);
