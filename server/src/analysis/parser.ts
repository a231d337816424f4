/**
 * Tree-sitter parsing for training scripts (Python) and native sources (C++/CUDA), with
 * incremental reparsing: an edit is reduced to the one changed span between the old and the new
 * text, applied to the old tree, and only that region is parsed again.
 *
 * The grammars are WebAssembly files. In the bundle they sit next to dist/server.js (esbuild.mjs
 * copies them there); from source (tests, benchmarks) they are found in node_modules.
 */
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import type { Point, Tree } from 'web-tree-sitter';
// A require-style import makes esbuild pick the package's CommonJS build (the ESM build reads
// import.meta.url, which a CommonJS bundle does not have).
import TreeSitter = require('web-tree-sitter');

const { Language, Parser } = TreeSitter;
type Language = InstanceType<typeof TreeSitter.Language>;
type Parser = InstanceType<typeof TreeSitter.Parser>;

export type SourceLanguage = 'python' | 'cpp' | 'bash';

const CPP_EXTENSIONS = new Set(['.cpp', '.cc', '.cxx', '.cu', '.cuh', '.h', '.hpp', '.hh']);

/** The grammar for a file name, or undefined when Headroom does not analyze that kind of file. */
export function languageForPath(filePath: string): SourceLanguage | undefined {
  const ext = path.extname(filePath).toLowerCase();
  if (ext === '.py' || ext === '.pyi') return 'python';
  if (ext === '.sh' || ext === '.bash') return 'bash';
  if (CPP_EXTENSIONS.has(ext)) return 'cpp';
  return undefined;
}

/** The first existing candidate path for a runtime file, searched beside the bundle, then in node_modules. */
function locate(fileName: string, packageName: string): string {
  const candidates = [
    path.join(__dirname, fileName),
    path.join(__dirname, '..', '..', '..', 'node_modules', packageName, fileName),
    path.join(process.cwd(), 'node_modules', packageName, fileName),
  ];
  const found = candidates.find((c) => existsSync(c));
  if (!found) {
    const err = new Error(`Cannot find ${fileName}; looked in ${candidates.join(', ')}.`) as Error & { code: string };
    err.code = 'HEADROOM_GRAMMAR_MISSING';
    throw err;
  }
  return found;
}

const GRAMMARS: Record<SourceLanguage, { file: string; pkg: string }> = {
  python: { file: 'tree-sitter-python.wasm', pkg: 'tree-sitter-python' },
  cpp: { file: 'tree-sitter-cpp.wasm', pkg: 'tree-sitter-cpp' },
  bash: { file: 'tree-sitter-bash.wasm', pkg: 'tree-sitter-bash' },
};

let languages: Promise<Record<SourceLanguage, Language>> | undefined;
let loaded: Record<SourceLanguage, Language> | undefined;

/** Loads the runtime and the grammars once per process. */
export function loadLanguages(): Promise<Record<SourceLanguage, Language>> {
  languages ??= (async () => {
    const runtime = locate('tree-sitter.wasm', 'web-tree-sitter');
    await Parser.init({ locateFile: () => runtime });
    const [python, cpp, bash] = await Promise.all(
      (['python', 'cpp', 'bash'] as const).map((l) => Language.load(locate(GRAMMARS[l].file, GRAMMARS[l].pkg))),
    );
    loaded = { python: python!, cpp: cpp!, bash: bash! };
    return loaded;
  })();
  return languages;
}

const syncParsers = new Map<SourceLanguage, Parser>();

/**
 * Parses a side file (a launch script next to the training script) synchronously. Only valid once
 * `loadLanguages()` has resolved, which every ParsedDocument guarantees; the caller deletes the tree.
 */
export function parseSideFile(language: SourceLanguage, text: string): Tree {
  if (!loaded) throw Object.assign(new Error('grammars not loaded yet'), { code: 'HEADROOM_PARSER_NOT_READY' });
  let parser = syncParsers.get(language);
  if (!parser) {
    parser = new Parser();
    parser.setLanguage(loaded[language]);
    syncParsers.set(language, parser);
  }
  const tree = parser.parse(text);
  if (!tree) throw Object.assign(new Error('tree-sitter returned no tree'), { code: 'HEADROOM_PARSE_FAILED' });
  return tree;
}

function pointAt(text: string, index: number): Point {
  let row = 0;
  let lineStart = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < index; i = text.indexOf('\n', i + 1)) {
    row++;
    lineStart = i + 1;
  }
  return { row, column: index - lineStart };
}

/**
 * A source file and its syntax tree. `update()` reparses incrementally; indices and columns are
 * UTF-16 code units, as in web-tree-sitter and LSP.
 */
export class ParsedDocument {
  private constructor(
    readonly language: SourceLanguage,
    private readonly parser: Parser,
    private currentText: string,
    private currentTree: Tree,
  ) {}

  static async create(language: SourceLanguage, text: string): Promise<ParsedDocument> {
    const langs = await loadLanguages();
    const parser = new Parser();
    parser.setLanguage(langs[language]);
    const tree = parser.parse(text);
    if (!tree) throw Object.assign(new Error('tree-sitter returned no tree'), { code: 'HEADROOM_PARSE_FAILED' });
    return new ParsedDocument(language, parser, text, tree);
  }

  get text(): string {
    return this.currentText;
  }

  get tree(): Tree {
    return this.currentTree;
  }

  /** Replaces the text, reusing the old tree for everything outside the changed span. */
  update(newText: string): void {
    const oldText = this.currentText;
    if (newText === oldText) return;
    let start = 0;
    const minLength = Math.min(oldText.length, newText.length);
    while (start < minLength && oldText.charCodeAt(start) === newText.charCodeAt(start)) start++;
    let oldEnd = oldText.length;
    let newEnd = newText.length;
    while (oldEnd > start && newEnd > start && oldText.charCodeAt(oldEnd - 1) === newText.charCodeAt(newEnd - 1)) {
      oldEnd--;
      newEnd--;
    }
    const startPosition = pointAt(oldText, start);
    this.currentTree.edit({
      startIndex: start,
      oldEndIndex: oldEnd,
      newEndIndex: newEnd,
      startPosition,
      oldEndPosition: pointAt(oldText, oldEnd),
      newEndPosition: pointAt(newText, newEnd),
    });
    const tree = this.parser.parse(newText, this.currentTree);
    if (!tree) throw Object.assign(new Error('tree-sitter returned no tree'), { code: 'HEADROOM_PARSE_FAILED' });
    this.currentTree.delete();
    this.currentTree = tree;
    this.currentText = newText;
  }

  dispose(): void {
    this.currentTree.delete();
    this.parser.delete();
  }
}
