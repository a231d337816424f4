/**
 * Hosts to offer for an SSH target, read from the user's OpenSSH client configuration: every
 * concrete name on a `Host` line, following `Include` (globs, paths relative to ~/.ssh), skipping
 * patterns (`*`, `?`, negations) since they match many hosts and name none.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';

/** Splits an ssh_config line into its keyword and arguments, honouring double quotes. */
function tokens(line: string): string[] {
  const words: string[] = [];
  const re = /"([^"]*)"|(\S+)/g;
  for (let m = re.exec(line); m; m = re.exec(line)) words.push(m[1] ?? m[2] ?? '');
  return words;
}

function globToRegExp(glob: string): RegExp {
  const body = glob.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
  return new RegExp(`^${body}$`);
}

/** Expands `*` and `?` in any path component; results sorted like ssh's glob(3). */
export function expandGlob(path: string): string[] {
  const parts = path.split('/');
  let bases = [parts[0] === '' ? '/' : parts[0]!];
  for (const part of parts.slice(1)) {
    if (part === '') continue;
    const next: string[] = [];
    for (const base of bases) {
      if (!/[*?]/.test(part)) {
        next.push(join(base, part));
        continue;
      }
      const re = globToRegExp(part);
      let entries: string[] = [];
      try {
        entries = readdirSync(base);
      } catch {
        entries = [];
      }
      for (const entry of entries.sort()) if (!entry.startsWith('.') && re.test(entry)) next.push(join(base, entry));
    }
    bases = next;
  }
  return bases;
}

function isPattern(name: string): boolean {
  return /[*?!]/.test(name);
}

/**
 * Concrete host aliases from an ssh config file, in file order without duplicates. Unreadable
 * files give nothing (a missing ~/.ssh/config is normal). `home` is for tests.
 */
export function listSshHosts(configFile?: string, home: string = homedir()): string[] {
  const sshDir = join(home, '.ssh');
  const seen = new Set<string>();
  const visited = new Set<string>();

  const expandPath = (p: string): string => {
    const tilde = p.startsWith('~/') ? join(home, p.slice(2)) : p;
    return isAbsolute(tilde) ? tilde : resolve(sshDir, tilde);
  };

  const read = (file: string, depth: number): void => {
    // ssh itself stops at 16 levels of Include; a loop would otherwise never end.
    if (depth > 16 || visited.has(file)) return;
    visited.add(file);
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      return;
    }
    for (const raw of text.split(/\r?\n/)) {
      const line = raw.replace(/^\s+/, '');
      if (line === '' || line.startsWith('#')) continue;
      const [keyword = '', ...args] = tokens(line.replace(/^(\S+?)\s*=\s*/, '$1 '));
      const key = keyword.toLowerCase();
      if (key === 'host') {
        for (const name of args) if (!isPattern(name)) seen.add(name);
      } else if (key === 'include') {
        for (const arg of args) for (const path of expandGlob(expandPath(arg))) read(path, depth + 1);
      }
    }
  };

  read(configFile ?? join(sshDir, 'config'), 0);
  return [...seen];
}
