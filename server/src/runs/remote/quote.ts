/**
 * POSIX shell quoting for every command Headroom builds for a remote host or a cluster.
 *
 * Every word is single-quoted, even when it looks harmless, so no character of a setting (`$`, a
 * backtick, `;`, a newline, a quote, unicode) is ever interpreted by a shell: inside single quotes
 * a POSIX shell treats every byte literally, and a single quote itself is written as `'\''` (close,
 * escaped quote, reopen). NUL cannot be carried by any shell word or argv entry, so a word holding
 * one is refused with a coded error instead of being silently truncated.
 */

import { RemoteError } from './errors';

/** Quotes one word for a POSIX shell (sh, dash, bash, zsh, ksh). */
export function quote(word: string): string {
  if (word.includes('\0')) {
    throw new RemoteError('HR_SHELL_NUL', `${JSON.stringify(word.slice(0, 40))} contains a NUL byte, which no shell word can carry`);
  }
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** Quotes each word and joins them with spaces: one simple command. */
export function command(words: readonly string[]): string {
  if (words.length === 0) throw new RangeError('a command needs at least one word');
  return words.map(quote).join(' ');
}

/**
 * `NAME=value` prefixes for a command. Names must be valid shell identifiers (checked: a name is
 * never quoted, since a quoted name is no longer an assignment); values are quoted.
 */
export function assignments(env: Readonly<Record<string, string>>): string {
  return Object.entries(env)
    .map(([name, value]) => {
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
        throw new RemoteError('HR_ENV_NAME', `"${name}" is not a valid environment variable name`);
      }
      return `${name}=${quote(value)}`;
    })
    .join(' ');
}
