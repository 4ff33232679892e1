import { z } from 'zod';
import { permission } from './account.ts';
import { dateTime, nullableDateTime, uuid } from './common.ts';

export const apiKeyRecord = z
  .object({
    id: uuid.describe("The key's public id (not its secret): revoke it with DELETE /api/keys/{id}."),
    name: z.string().describe('The descriptive name given at creation.'),
    scopes: z.array(permission).describe('Permissions the key carries.'),
    status: z
      .enum(['active', 'revoked', 'expired'])
      .describe('`active` keys are accepted; `revoked` and `expired` ones are refused with 401.'),
    brand_id: uuid.nullable().describe("The brand the key acts on; null: the workspace's default brand."),
    user_id: uuid.describe('The member holding it.'),
    hint: z.string().describe("The key's prefix and last 4 characters (e.g. `lok_…a1B2`), to tell keys apart; not enough to use it."),
    created_at: dateTime,
    expires_at: nullableDateTime.describe('When the key stops being accepted; null: never.'),
    last_used_at: nullableDateTime.describe('When the key was last used (to the minute); null: never.'),
  })
  .meta({ id: 'ApiKey' });
export type ApiKeyOut = z.infer<typeof apiKeyRecord>;

export const createKeyInput = z
  .strictObject({
    name: z.string().trim().min(1).max(120).describe('A descriptive name (what integration uses it), 1 to 120 characters.'),
    scopes: z.array(permission).min(1).max(8).describe('Permissions to grant, at least one; `*` grants everything.'),
    brand_id: uuid.optional().describe("Binds the key to one of the workspace's brands; by default it acts on the default brand."),
    user_id: uuid.optional().describe('A member to make the key for; default the caller.'),
    expires_at: dateTime.optional().describe('When the key stops being accepted, in the future; by default never.'),
  })
  .meta({ examples: [{ name: 'CRM sync', scopes: ['read', 'write'] }] });

export const createKeyOutput = z.object({
  key: apiKeyRecord,
  secret: z.string().describe('The key itself (`lok_` and the secret), shown only in this answer: store it now, it cannot be read again.'),
});

export const listKeysOutput = z.object({
  keys: z.array(apiKeyRecord).describe("The workspace's keys, newest first, revoked and expired ones too; never a secret."),
});

export const keyIdInput = z.object({ id: uuid.describe("The key's public id.") });
export const revokeKeyOutput = z.object({ key: apiKeyRecord.describe('The key, now revoked.') });
