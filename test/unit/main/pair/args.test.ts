import { describe, expect, it } from 'vitest';
import { SIDE_LABEL, splitPairArgs } from '../../../../src/main/pair/args.js';

describe('tern-pair argument splitting', () => {
  it('splits at the first bare --: tern-node before, tern-exec after', () => {
    expect(splitPairArgs(['--l1=http://a', '--rollup.config', 'r.json', '--', '--datadir=d', '--http'])).toEqual({
      node: ['--l1=http://a', '--rollup.config', 'r.json'],
      exec: ['--datadir=d', '--http'],
    });
  });

  it('gives everything to tern-node without a --, and nothing to it with a leading --', () => {
    expect(splitPairArgs(['--l1=x'])).toEqual({ node: ['--l1=x'], exec: [] });
    expect(splitPairArgs(['--', '--datadir=d'])).toEqual({ node: [], exec: ['--datadir=d'] });
    expect(splitPairArgs([])).toEqual({ node: [], exec: [] });
    expect(splitPairArgs(['--l1=x', '--'])).toEqual({ node: ['--l1=x'], exec: [] });
  });

  it('splits only once: a later -- belongs to tern-exec, and a --flag=-- value is not a split', () => {
    expect(splitPairArgs(['--a', '--', '--b', '--', 'c'])).toEqual({ node: ['--a'], exec: ['--b', '--', 'c'] });
    expect(splitPairArgs(['--x=--', '--', '--y'])).toEqual({ node: ['--x=--'], exec: ['--y'] });
  });

  it('names each side with where its flags go', () => {
    expect(SIDE_LABEL.node).toMatch(/tern-node.*before --/);
    expect(SIDE_LABEL.exec).toMatch(/tern-exec.*after --/);
  });
});
