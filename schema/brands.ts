import { z } from 'zod';
import { dateTime, uuid } from './common.ts';

export const brand = z
  .object({
    id: uuid.describe("The brand's id: pass it as `brand` to narrow lists, or bind a key to it."),
    name: z.string().describe('Display name.'),
    is_default: z.boolean().describe("True for the workspace's default brand, which keys not bound to a brand act on."),
    created_at: dateTime,
  })
  .meta({ id: 'Brand' });
export type BrandOut = z.infer<typeof brand>;

export const createBrandInput = z
  .strictObject({ name: z.string().trim().min(1).max(120).describe('Display name, 1 to 120 characters.') })
  .meta({ examples: [{ name: 'Acme Outbound' }] });
export const brandOutput = z.object({ brand });
export const listBrandsOutput = z.object({ brands: z.array(brand).describe("The workspace's brands, oldest (the default) first.") });
