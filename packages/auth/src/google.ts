/**
 * Google sign-in through arctic's OAuth2 client with PKCE and state. The endpoints are settings so
 * that tests can point the flow at a fake token endpoint on loopback. The ID token comes straight
 * from the token endpoint over TLS, so its claims are read without a signature check (OIDC 3.1.3.7).
 */
import { CodeChallengeMethod, OAuth2Client, decodeIdToken, generateCodeVerifier, generateState } from 'arctic';

export interface GoogleConfig {
  clientId: string;
  clientSecret: string;
  redirectUri: string;
  authorizationEndpoint?: string;
  tokenEndpoint?: string;
}

export interface GoogleProfile {
  sub: string;
  email: string | null;
  emailVerified: boolean;
  name: string | null;
}

export const GOOGLE_AUTHORIZATION_ENDPOINT = 'https://accounts.google.com/o/oauth2/v2/auth';
export const GOOGLE_TOKEN_ENDPOINT = 'https://oauth2.googleapis.com/token';

export function createGoogleSignIn(cfg: GoogleConfig) {
  const client = new OAuth2Client(cfg.clientId, cfg.clientSecret, cfg.redirectUri);
  return {
    start() {
      const state = generateState();
      const codeVerifier = generateCodeVerifier();
      const url = client.createAuthorizationURLWithPKCE(
        cfg.authorizationEndpoint ?? GOOGLE_AUTHORIZATION_ENDPOINT,
        state,
        CodeChallengeMethod.S256,
        codeVerifier,
        ['openid', 'email', 'profile'],
      );
      return { url: url.toString(), state, codeVerifier };
    },
    async finish(code: string, codeVerifier: string): Promise<GoogleProfile> {
      const tokens = await client.validateAuthorizationCode(cfg.tokenEndpoint ?? GOOGLE_TOKEN_ENDPOINT, code, codeVerifier);
      const claims = decodeIdToken(tokens.idToken()) as Record<string, unknown>;
      if (typeof claims.sub !== 'string' || !claims.sub) throw new Error('Google did not return a subject');
      return {
        sub: claims.sub,
        email: typeof claims.email === 'string' ? claims.email.toLowerCase() : null,
        emailVerified: claims.email_verified === true || claims.email_verified === 'true',
        name: typeof claims.name === 'string' ? claims.name : null,
      };
    },
  };
}
export type GoogleSignIn = ReturnType<typeof createGoogleSignIn>;
