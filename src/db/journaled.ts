import type { WriteConcernSettings } from 'mongodb';

/**
 * The write concern of a write that guards an effect outside the store — a message's claim before its SMTP
 * call, a credit debit, a webhook attempt's record, an Idempotency-Key's answer: acknowledged only once it is
 * in the store's on-disk journal, so that a power loss cannot undo it after the effect went out (MongoDB's
 * `j: true`; the embedded FerretDB syncs its SQLite log for it, tools/ferretdb/README.md). The journal is
 * written in order, so such a write also makes every write before it durable. Other writes are acknowledged
 * before they reach the disk (docs/operations.md says how long they may wait).
 */
export const journaled = { journal: true } as const satisfies WriteConcernSettings;
