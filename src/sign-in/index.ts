/** The sign-in domain's front door: passwords, signing in, and the pruning of failed attempts. */
export { setPassword, signIn, signInFailureRetention } from './sign-in.service.ts';
