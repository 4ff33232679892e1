import { createHash } from 'node:crypto';
import { errors, type Adapter, type AdapterPayload } from 'oidc-provider';
import { now, nowMs } from '../clock.ts';
import { isDuplicateKey } from '../db/duplicate-key.ts';
import { defineRetentionRule } from '../db/retention.ts';
import { openSecret, sealSecret } from '../secrets/secret-box.ts';
import { OAuthConsumption, OAuthRecord, type OAuthRecordDoc } from './oauth-record.model.ts';

/** Models whose id is a credential handed to a client: only its hash is ever stored. */
const hashed = (id: string) => createHash('sha256').update(id).digest('base64url');

/** One-time models: a second use is refused by the consumption's unique key. */
const oneTime = new Set(['AuthorizationCode', 'RefreshToken', 'DeviceCode', 'BackchannelAuthenticationRequest']);

const live = (doc: Pick<OAuthRecordDoc, 'expiresAt'> | null) => doc !== null && (!doc.expiresAt || doc.expiresAt.getTime() > nowMs());

/**
 * oidc-provider's storage on the service's database (see the model for
 * the layout). Every read checks expiry: expired records stay until the
 * retention rule below removes them.
 */
export class OAuthAdapter implements Adapter {
  private readonly model: string;

  constructor(model: string) {
    this.model = model;
  }

  private key(id: string) {
    return `${this.model}:${hashed(id)}`;
  }

  private async read(filter: { _id: string } | { uid: string } | { userCode: string }): Promise<AdapterPayload | undefined> {
    const doc =
      '_id' in filter
        ? await OAuthRecord.findById(filter._id).lean<OAuthRecordDoc>()
        : await OAuthRecord.findOne({ ...filter, model: this.model }).lean<OAuthRecordDoc>();
    if (!doc || !live(doc)) return undefined;
    const payload = JSON.parse(openSecret(doc.payload)) as AdapterPayload;
    if (oneTime.has(this.model)) {
      const consumption = await OAuthConsumption.findById(doc._id).lean<{ consumedAt: Date }>();
      if (consumption) payload.consumed = Math.floor(consumption.consumedAt.getTime() / 1000);
    }
    return payload;
  }

  async upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
    const fields = {
      model: this.model,
      payload: sealSecret(JSON.stringify(payload)),
      grantId: payload.grantId,
      accountId: payload.accountId,
      uid: payload.uid,
      userCode: payload.userCode,
      expiresAt: expiresIn ? new Date(nowMs() + expiresIn * 1000) : undefined,
    };
    // Most saves are new codes and tokens: an insert costs the same at any size, where an update by key may read
    // the whole collection. Only a save of something stored already is an update.
    try {
      await OAuthRecord.create({ _id: this.key(id), ...fields });
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
      await OAuthRecord.replaceOne({ _id: this.key(id) }, fields);
    }
  }

  find(id: string) {
    return this.read({ _id: this.key(id) });
  }

  findByUid(uid: string) {
    return this.read({ uid });
  }

  findByUserCode(userCode: string) {
    return this.read({ userCode });
  }

  async consume(id: string): Promise<void> {
    const key = this.key(id);
    const record = await OAuthRecord.findById(key, { expiresAt: 1 }).lean<Pick<OAuthRecordDoc, 'expiresAt'>>();
    try {
      await OAuthConsumption.create({ _id: key, consumedAt: now(), expiresAt: record?.expiresAt });
    } catch (error) {
      // Two exchanges of one code (or refresh token) at once: exactly one takes it.
      if (isDuplicateKey(error))
        throw new errors.InvalidGrant(`${this.model === 'RefreshToken' ? 'refresh token' : 'authorization code'} already consumed`);
      throw error;
    }
  }

  async destroy(id: string): Promise<void> {
    await OAuthRecord.deleteOne({ _id: this.key(id) });
  }

  async revokeByGrantId(grantId: string): Promise<void> {
    await OAuthRecord.deleteMany({ grantId });
  }
}

/**
 * Revokes everything the authorization server holds for a user (grants, access and refresh tokens, codes, sessions):
 * their tokens are refused from the next request. Answers how many records went.
 */
export async function revokeUserOAuth(accountId: string): Promise<number> {
  return (await OAuthRecord.deleteMany({ accountId })).deletedCount;
}

/** Deletes what expired before `before`; returns how many records went. */
export async function pruneExpiredOAuthRecords(before: Date): Promise<number> {
  const [records] = await Promise.all([
    OAuthRecord.deleteMany({ expiresAt: { $lt: before } }),
    OAuthConsumption.deleteMany({ expiresAt: { $lt: before } }),
  ]);
  return records.deletedCount;
}

export const oauthRetention = defineRetentionRule({
  records: 'expired OAuth codes, tokens, sessions and interactions',
  everyMs: 60 * 60_000,
  prune: () => pruneExpiredOAuthRecords(now()),
});
