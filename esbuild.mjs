// Bundles the three entry points (extension host, server + CLI, webview) and copies what they
// load at run time (the native addon, grammar wasm) next to them in dist/.
import * as esbuild from 'esbuild';
import { copyFileSync, cpSync, mkdirSync, existsSync } from 'node:fs';

const watch = process.argv.includes('--watch');
const production = process.argv.includes('--production');

/** Prints errors in the `file:line:col: error: text` shape that VS Code's $esbuild-watch matcher reads. */
const problemMatcher = {
  name: 'problem-matcher',
  setup(build) {
    build.onEnd((result) => {
      for (const { text, location } of result.errors) {
        if (location) console.error(`${location.file}:${location.line}:${location.column}: error: ${text}`);
      }
    });
  },
};

const common = { bundle: true, sourcemap: !production, minify: production, logLevel: 'warning', plugins: [problemMatcher] };

const contexts = await Promise.all([
  esbuild.context({
    ...common,
    entryPoints: { extension: 'extension/src/main.ts' },
    platform: 'node', format: 'cjs', target: 'node20', outdir: 'dist', external: ['vscode'],
  }),
  esbuild.context({
    ...common,
    entryPoints: { server: 'server/src/server.ts', cli: 'server/src/cli.ts' },
    platform: 'node', format: 'cjs', target: 'node20', outdir: 'dist',
  }),
  esbuild.context({
    ...common,
    entryPoints: { webview: 'webview/src/main.ts' },
    platform: 'browser', format: 'esm', target: 'es2022', outdir: 'dist',
  }),
]);

function copyRuntimeFiles() {
  mkdirSync('dist/native', { recursive: true });
  const addon = 'native/build/Release/headroom.node';
  if (existsSync(addon)) copyFileSync(addon, 'dist/native/headroom.node');
  else console.warn(`warning: ${addon} is missing; run "npm run build:native" first.`);
  // The reproducers' Python side and the preload shim's source travel to the targets from here.
  for (const dir of ['probes', 'harness']) cpSync(`server/src/runs/${dir}`, `dist/runs/${dir}`, { recursive: true });
  cpSync('native/preload', 'dist/runs/preload', { recursive: true });
  // Tree-sitter runtime and grammars for the analysis; server/src/analysis/parser.ts finds them beside dist/server.js.
  for (const wasm of ['web-tree-sitter/tree-sitter.wasm', 'tree-sitter-python/tree-sitter-python.wasm', 'tree-sitter-cpp/tree-sitter-cpp.wasm', 'tree-sitter-bash/tree-sitter-bash.wasm']) {
    copyFileSync(`node_modules/${wasm}`, `dist/${wasm.split('/')[1]}`);
  }
}

if (watch) {
  await Promise.all(contexts.map((c) => c.watch()));
} else {
  await Promise.all(contexts.map((c) => c.rebuild()));
  await Promise.all(contexts.map((c) => c.dispose()));
  copyRuntimeFiles();
}
