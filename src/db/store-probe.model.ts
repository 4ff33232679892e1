import mongoose, { Schema } from 'mongoose';

/**
 * The one document /healthz writes while the disk is reported full (src/db/store-health.ts). A model, so that its
 * collection is made when the service starts: FerretDB can leave a collection first made on a full disk half made
 * (its table created, its catalogue not knowing it), every later write to it failing with "table … already exists".
 */
export const StoreProbe = mongoose.model(
  'StoreProbe',
  new Schema({ _id: { type: String, required: true }, at: { type: Date, required: true } }, { versionKey: false }),
  'store_probes',
);
