import mongoose, { Schema, type InferRawDocTypeFromSchema } from 'mongoose';

/**
 * What the authorization server keeps (clients, grants, sessions, codes,
 * tokens, interactions), one document each. `_id` is `<Model>:<hash>` of the
 * library's id, never the id itself (for tokens and codes the id is the
 * credential); the payload is sealed, as it holds client secrets and keys
 * with dots (resource URLs). Expiry is checked on every read; the retention
 * rule (oauth-adapter.ts) deletes what has expired.
 */
const oauthRecordSchema = new Schema(
  {
    _id: { type: String, required: true },
    /** The library's model name (Client, Grant, Session, AccessToken, …). */
    model: { type: String, required: true },
    payload: { type: String, required: true },
    grantId: { type: String, index: true },
    /** The user a grant, token, code or session is for: all of theirs go when they leave the workspace. */
    accountId: { type: String, index: true },
    uid: { type: String, index: true },
    userCode: { type: String, index: true },
    expiresAt: { type: Date, index: true },
  },
  { versionKey: false },
);

/**
 * A code or refresh token used once: inserted under the record's `_id`, so
 * the unique primary key lets exactly one exchange take it, across processes.
 */
const oauthConsumptionSchema = new Schema(
  {
    _id: { type: String, required: true },
    consumedAt: { type: Date, required: true },
    expiresAt: { type: Date, index: true },
  },
  { versionKey: false },
);

export type OAuthRecordDoc = InferRawDocTypeFromSchema<typeof oauthRecordSchema>;

export const OAuthRecord = mongoose.model('OAuthRecord', oauthRecordSchema, 'oauth_records');
export const OAuthConsumption = mongoose.model('OAuthConsumption', oauthConsumptionSchema, 'oauth_consumptions');
