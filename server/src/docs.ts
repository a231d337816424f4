import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * The docs folder ships inside the VSIX beside dist/, so links in diagnostics open offline and on
 * the remote host. From source (tests), it is two levels up instead of one.
 */
const docsRoot = [path.join(__dirname, '..', 'docs'), path.join(__dirname, '..', '..', 'docs')].find((p) => existsSync(p)) ??
  path.join(__dirname, '..', 'docs');

/** A file URI of a docs page, with an optional anchor, for `Diagnostic.codeDescription.href`. */
export function docsUri(page: string, anchor?: string): string {
  return pathToFileURL(path.join(docsRoot, page)).href + (anchor ? `#${anchor}` : '');
}
