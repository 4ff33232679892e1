/** The sign-in domain's front door: passwords, signing in, and the pruning of failed attempts. */
export { pruneSignInFailures, setPassword, signIn } from './sign-in.service.ts';
