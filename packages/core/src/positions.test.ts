import { describe, expect, it } from 'vitest';
import { positionsBy } from './positions';

describe('positionsBy', () => {
  it('groups positions by key in order and leaves out items without a key', () => {
    const items = ['gw-a', 'gw-b', undefined, 'gw-a'];
    expect([...positionsBy(items, (k) => k)]).toEqual([
      ['gw-a', [0, 3]],
      ['gw-b', [1]],
    ]);
  });
});
