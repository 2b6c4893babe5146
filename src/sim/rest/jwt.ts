import { createHmac, timingSafeEqual } from 'node:crypto';

/** Claims the management API puts in its tokens (redis-facts.md §4: iat, uid, exp). */
export interface JwtClaims {
  iat: number;
  exp: number;
  uid: string;
  [claim: string]: unknown;
}

const HEADER = base64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));

/** A real HS256 JWT, so clients that decode tokens meet the real format. */
export function signJwt(claims: JwtClaims, secret: string): string {
  const payload = base64url(JSON.stringify(claims));
  const signature = createHmac('sha256', secret).update(`${HEADER}.${payload}`).digest('base64url');
  return `${HEADER}.${payload}.${signature}`;
}

export type JwtCheck =
  { ok: true; claims: JwtClaims } | { ok: false; reason: 'malformed' | 'signature' | 'expired' };

/** Checks signature and expiry; `nowSeconds` comes from the model's clock. */
export function verifyJwt(token: string, secret: string, nowSeconds: number): JwtCheck {
  const parts = token.split('.');
  if (parts.length !== 3) return { ok: false, reason: 'malformed' };
  const [header, payload, signature] = parts as [string, string, string];
  const expected = createHmac('sha256', secret).update(`${header}.${payload}`).digest();
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected))
    return { ok: false, reason: 'signature' };
  let claims: JwtClaims;
  try {
    claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as JwtClaims;
  } catch {
    return { ok: false, reason: 'malformed' };
  }
  if (typeof claims.exp !== 'number' || claims.exp <= nowSeconds) return { ok: false, reason: 'expired' };
  return { ok: true, claims };
}

function base64url(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64url');
}
