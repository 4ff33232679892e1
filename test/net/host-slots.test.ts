import { describe, expect, it } from 'vitest';
import { createHostSlots } from '../../src/net/host-slots.ts';

describe('host slots', () => {
  it('lets at most the limit through per host, in arrival order, hosts independent', async () => {
    const acquire = createHostSlots(() => 2);
    const order: string[] = [];
    const first = await acquire('shop.test');
    const second = await acquire('SHOP.test');
    const other = await acquire('other.test');
    const third = acquire('shop.test').then((release) => (order.push('third'), release));
    const fourth = acquire('shop.test').then((release) => (order.push('fourth'), release));
    await new Promise((r) => setTimeout(r, 20));
    expect(order).toEqual([]);
    first();
    first(); // releasing twice frees one slot only
    expect(await third).toBeTypeOf('function');
    await new Promise((r) => setTimeout(r, 20));
    expect(order).toEqual(['third']);
    second();
    await fourth;
    expect(order).toEqual(['third', 'fourth']);
    other();
  });
});
