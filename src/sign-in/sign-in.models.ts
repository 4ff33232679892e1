import mongoose, { Schema, type InferRawDocTypeFromSchema } from 'mongoose';

/** A user's sign-in password (for the OAuth consent flow), keyed by the lower-cased email it signs in with. */
const userPasswordSchema = new Schema(
  {
    _id: { type: String, required: true },
    userId: { type: String, required: true },
    /** `scrypt$<N>$<r>$<p>$<salt>$<hash>`, salt and hash base64url. */
    hash: { type: String, required: true },
  },
  { timestamps: true, versionKey: false },
);

/** Recent failed sign-ins of one account (`email:…`) or one client address (`address:…`); pruned once quiet. */
const signInFailuresSchema = new Schema(
  {
    _id: { type: String, required: true },
    failures: { type: Number, required: true },
    lastAt: { type: Date, required: true, index: true },
  },
  { versionKey: false },
);

export type UserPasswordDoc = InferRawDocTypeFromSchema<typeof userPasswordSchema>;
export type SignInFailuresDoc = InferRawDocTypeFromSchema<typeof signInFailuresSchema>;

export const UserPassword = mongoose.model('UserPassword', userPasswordSchema, 'user_passwords');
export const SignInFailures = mongoose.model('SignInFailures', signInFailuresSchema, 'sign_in_failures');
