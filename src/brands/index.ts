/** The brands domain's front door: the brand a record belongs to, checked in its workspace. */
export { assertBrandInWorkspace, brandFilter, brandForWrite, createBrand } from './brands.service.ts';
