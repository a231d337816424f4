import { describe, expect, it } from 'vitest';
import { formatBytes, parseSize } from '../../server/src/format';

describe('sizes', () => {
  it('formats in 1024-based units', () => {
    expect(formatBytes(0)).toBe('0 B');
    expect(formatBytes(1536)).toBe('1.50 KiB');
    expect(formatBytes(2 * 1024 ** 3)).toBe('2.00 GiB');
  });

  it('parses printed sizes as 1024-based, whatever the label says', () => {
    expect(parseSize('20.00', 'MiB')).toBe(20 * 1024 ** 2);
    expect(parseSize('1.5', 'GB')).toBe(1.5 * 1024 ** 3);
    expect(parseSize('1,024', 'B')).toBe(1024);
    expect(parseSize('3', 'parsecs')).toBeUndefined();
  });
});
