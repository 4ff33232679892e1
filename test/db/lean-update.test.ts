import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { Enrollment, type EnrollmentDoc } from '../../src/outreach/campaigns/enrollment.model.ts';
import { groupedSetEach, setEach } from '../../src/db/lean-update.ts';
import { useApiServer } from '../support/api-server.ts';
import { useTestClock } from '../support/clock.ts';

useApiServer();
const clock = useTestClock();

describe('setEach (the sending engine’s per-message writes through the driver)', () => {
  it('sets each document’s fields and updatedAt by the service clock, where its filter matches, and counts those changed', async () => {
    const ids = [randomUUID(), randomUUID(), randomUUID()];
    const before = new Date('2026-01-01T00:00:00Z');
    await Enrollment.insertMany(
      ids.map((_id, i) => ({ _id, workspaceId: 'w', campaignId: 'c', leadId: `l${i}`, nextStep: i, nextDueAt: before })),
    );
    clock.set(new Date('2026-02-01T00:00:00Z'));
    const due = new Date('2026-02-04T00:00:00Z');
    const changed = await setEach(
      Enrollment,
      ids.map((_id) => ({ filter: { _id, nextStep: 1 }, set: { nextStep: 2, nextDueAt: due, firstMessageId: '<m@x.test>' } })),
    );
    expect(changed.modifiedCount).toBe(1);
    const docs = await Enrollment.find({ _id: { $in: ids } }).lean<EnrollmentDoc[]>();
    const byId = new Map(docs.map((doc) => [doc._id, doc]));
    expect(byId.get(ids[1]!)).toMatchObject({ nextStep: 2, nextDueAt: due, firstMessageId: '<m@x.test>', status: 'active' });
    expect(byId.get(ids[1]!)!.updatedAt.getTime()).toBeGreaterThanOrEqual(new Date('2026-02-01T00:00:00Z').getTime());
    expect(byId.get(ids[1]!)!.updatedAt.getTime()).toBeLessThan(new Date('2026-02-02T00:00:00Z').getTime());
    for (const id of [ids[0]!, ids[2]!]) expect(byId.get(id)).toMatchObject({ nextDueAt: before, firstMessageId: null });
    expect(await setEach(Enrollment, [])).toEqual({ modifiedCount: 0 });
  });

  it('grouped: writes every update given, those given while a write is under way in the next, each caller answered once its own is stored', async () => {
    const ids = Array.from({ length: 6 }, () => randomUUID());
    await Enrollment.insertMany(ids.map((_id, i) => ({ _id, workspaceId: 'w', campaignId: 'c', leadId: `l${i}`, nextDueAt: new Date() })));
    const write = groupedSetEach(Enrollment);
    const set = (_id: string) => write({ filter: { _id }, set: { nextStep: 5 } });
    const first = ids.slice(0, 3).map(set);
    // Given while the first group is under way.
    await Promise.resolve();
    const second = ids.slice(3).map(set);
    await Promise.all([...first, ...second]);
    const docs = await Enrollment.find({ _id: { $in: ids } }).lean<EnrollmentDoc[]>();
    expect(docs.map((doc) => doc.nextStep)).toEqual(ids.map(() => 5));
    await expect(write({ filter: { _id: ids[0]! }, set: { $bad: 1 } })).rejects.toThrow();
  });
});
