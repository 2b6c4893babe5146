/**
 * Reads a JWT's claims WITHOUT verifying its signature. That is safe here because the claims are
 * only used to schedule renewal; the server decides whether a token is valid, never ctl.
 */
export interface JwtTimes {
  iat?: number;
  exp?: number;
}

export function decodeJwtTimes(token: string): JwtTimes {
  const payload = token.split('.')[1];
  if (!payload) return {};
  try {
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
    const times: JwtTimes = {};
    if (typeof claims.iat === 'number' && Number.isFinite(claims.iat)) times.iat = claims.iat;
    if (typeof claims.exp === 'number' && Number.isFinite(claims.exp)) times.exp = claims.exp;
    return times;
  } catch {
    return {};
  }
}
