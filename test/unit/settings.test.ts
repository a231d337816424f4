import { describe, expect, it } from 'vitest';
import { defaultSettings, normalizeSettings } from '../../server/src/settings';

describe('settings', () => {
  it('falls back to defaults for missing or malformed values and never throws', () => {
    expect(normalizeSettings(undefined)).toEqual(defaultSettings);
    expect(normalizeSettings(42)).toEqual(defaultSettings);
    expect(normalizeSettings({ device: 7, python: '   ' })).toEqual(defaultSettings);
  });

  it('keeps valid values, trimmed', () => {
    expect(normalizeSettings({ device: ' H200 ', python: '/opt/venv/bin/python' })).toMatchObject({ device: 'H200', python: '/opt/venv/bin/python' });
  });

  it('bounds the hang window and falls back to 10 s', () => {
    expect(normalizeSettings({ hangWindowSeconds: 30 }).hangWindowSeconds).toBe(30);
    expect(normalizeSettings({ hangWindowSeconds: 0 }).hangWindowSeconds).toBe(10);
    expect(normalizeSettings({ hangWindowSeconds: '30' }).hangWindowSeconds).toBe(10);
  });
});
