import { z } from 'zod';
import { dateTime, uuid } from './common.ts';

export const permissions = ['read', 'write', 'scraper', 'agents', 'endpoints:invoke', 'leads:validate', 'outreach:send', '*'] as const;

export const permission = z
  .enum(permissions)
  .meta({ id: 'Permission', description: 'A permission an API key can carry; `*` grants everything.' });
export type Permission = z.infer<typeof permission>;

export const currentUserOutput = z
  .object({
    success: z.boolean().describe('Always true for a valid key.'),
    data: z.object({
      userId: uuid.describe('The user the key belongs to.'),
      email: z.string().describe("The user's email address."),
      name: z.string().describe("The user's display name."),
      apiKey: z
        .object({
          id: z.string().describe("The key's id (not its secret)."),
          scopes: z.array(z.string()).describe('Permissions the key carries.'),
          status: z.enum(['active', 'revoked']).describe('Key status.'),
          rateLimit: z.int().describe('Requests per minute allowed for this key.'),
        })
        .meta({ id: 'CurrentKey', description: 'The key used for this request.' }),
      createdAt: dateTime.describe('When the user was created.'),
    }),
  })
  .meta({ id: 'CurrentUser' });
