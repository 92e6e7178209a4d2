/**
 * What a signed-out form needs only once it is used: the shared core schemas (with zod, their
 * resolvers and react-hook-form's control) and the tRPC client. Loaded on the first focus in a form
 * or on submit, never when the page opens, so reading /login or /forgot-password costs none of them.
 * The module loader keeps each one after the first load.
 */
export const loadSchemas = () => import('./form-schemas');
export const loadApi = () => import('../api').then((m) => m.api);

/** Starts both loads early (a failure here is retried by the submit that needs them). */
export function preloadForm(): void {
  loadSchemas().catch(() => undefined);
  loadApi().catch(() => undefined);
}
