import { describe, expect, it } from 'vitest';
import { formatDuration, parseDuration } from '../../../../src/main/common/duration.js';

describe('Go duration text', () => {
  it.each([
    ['6m24s', 384_000],
    ['10m0s', 600_000],
    ['1h0m0s', 3_600_000],
    ['30s', 30_000],
    ['0s', 0],
    ['0', 0],
    ['500ms', 500],
    ['1.5h', 5_400_000],
    ['2h45m', 9_900_000],
    ['-1s', -1000],
    ['1000us', 1],
  ])('parses %s', (text, ms) => expect(parseDuration(text)).toBe(ms));

  it.each(['', '6', '6x', 'm', '1h 2m', 'abc', '--1s'])('rejects %j', (text) =>
    expect(parseDuration(text)).toBeUndefined(),
  );

  it.each([
    [384_000, '6m24s'],
    [600_000, '10m0s'],
    [3_600_000, '1h0m0s'],
    [10_800_000, '3h0m0s'],
    [30_000, '30s'],
    [0, '0s'],
    [1500, '1.5s'],
    [250, '250ms'],
  ])('formats %d ms as %s', (ms, text) => expect(formatDuration(ms)).toBe(text));
});
