import type { BrandOut } from '../../schema/brands.ts';
import type { Principal } from '../auth/principal.ts';
import { findOwned } from '../db/find-owned.ts';
import { notFound } from '../errors/app-error.ts';
import { getWorkspace } from '../workspaces/index.ts';
import { Brand, type BrandDoc } from './brand.model.ts';

const toBrand = (doc: BrandDoc, defaultBrandId: string): BrandOut => ({
  id: doc._id,
  name: doc.name,
  is_default: doc._id === defaultBrandId,
  created_at: doc.createdAt.toISOString(),
});

/** Stores a brand; `id` lets a new workspace know its default brand's id before storing itself. */
export async function createBrand(workspaceId: string, name: string, id?: string): Promise<BrandDoc> {
  return (await Brand.create({ ...(id && { _id: id }), workspaceId, name })).toObject();
}

export async function createWorkspaceBrand(workspaceId: string, name: string): Promise<BrandOut> {
  const [doc, workspace] = await Promise.all([createBrand(workspaceId, name), getWorkspace(workspaceId)]);
  return toBrand(doc, workspace.defaultBrandId);
}

export async function listBrands(workspaceId: string): Promise<BrandOut[]> {
  const [docs, workspace] = await Promise.all([
    Brand.find({ workspaceId }).sort({ createdAt: 1, _id: 1 }).lean<BrandDoc[]>(),
    getWorkspace(workspaceId),
  ]);
  return docs.map((doc) => toBrand(doc, workspace.defaultBrandId));
}

/** The brand id when it belongs to the workspace; 404 naming `field` otherwise. */
export async function assertBrandInWorkspace(workspaceId: string, brandId: string, field: string): Promise<string> {
  if (!(await findOwned(Brand, brandId, workspaceId))) throw notFound('Brand', field);
  return brandId;
}

/** The brand a credential acts on: the one it is bound to, or the workspace's default. */
async function credentialBrandId(principal: Pick<Principal, 'workspaceId' | 'brandId'>): Promise<string> {
  return principal.brandId ?? (await getWorkspace(principal.workspaceId)).defaultBrandId;
}

/** The brand a new record goes to: the one asked for (checked, 404 naming `field`), else the credential's. */
export async function brandForWrite(
  principal: Pick<Principal, 'workspaceId' | 'brandId'>,
  requested: string | undefined,
  field = 'brand_id',
) {
  return requested ? assertBrandInWorkspace(principal.workspaceId, requested, field) : credentialBrandId(principal);
}

/**
 * The one reading of a list's `brand` query parameter: an id narrows to
 * that brand (404 when it is not the workspace's), `all` widens to the
 * whole workspace (null), and absent means `fallback`: the credential's
 * brand for brand-scoped records (inboxes, campaigns, sequences, agent
 * runs), the whole workspace for pooled ones (leads).
 */
export async function brandFilter(
  principal: Pick<Principal, 'workspaceId' | 'brandId'>,
  brand: string | undefined,
  fallback: 'credential' | 'workspace',
): Promise<string | null> {
  if (brand === 'all') return null;
  if (brand) return assertBrandInWorkspace(principal.workspaceId, brand, 'brand');
  return fallback === 'workspace' ? null : credentialBrandId(principal);
}
