/**
 * The service's way to its FerretDB binary. Building it (the pinned module, the fork's series of patches, the
 * wrapper) is the fork's own business, in tools/ferretdb (its README says how).
 */
export { ensureFerretDbBinary, type FerretDbBuild } from '../../tools/ferretdb/build.ts';
