import type { IssuedToken } from './authorize.js';
import { type Clock, systemClock } from './clock.js';
import type { ApiLog } from './http.js';

/**
 * Hands out a valid token to every API call (reliability.md §2.3):
 * - renews ahead of expiry, at the latest when max(30 s, 20% of the lifetime) remains, so a long
 *   wait (a rolling upgrade outlives a 300 s token) never presents a dead token;
 * - renews once after a 401 (an upgrade to 8.0.22+ invalidates every token);
 * - concurrent callers share one renewal (single flight), like client-go's exec plugin.
 */

export interface TokenSourceOptions {
  /** Full authorization with the credentials. */
  obtain(): Promise<IssuedToken>;
  /** A cheaper renewal of a still-valid token (refresh_jwt); on failure `obtain` is used. */
  refresh?(current: IssuedToken): Promise<IssuedToken>;
  clock?: Clock;
  log?: ApiLog;
}

export const MIN_RENEW_MARGIN_MS = 30_000;
export const RENEW_MARGIN_FRACTION = 0.2;

export function renewAt(token: IssuedToken): number {
  const lifetime = token.expiresAt - token.obtainedAt;
  return token.expiresAt - Math.max(MIN_RENEW_MARGIN_MS, RENEW_MARGIN_FRACTION * lifetime);
}

export class TokenSource {
  readonly #options: TokenSourceOptions;
  readonly #clock: Clock;
  #current: IssuedToken | undefined;
  #inflight: Promise<IssuedToken> | undefined;

  constructor(options: TokenSourceOptions) {
    this.#options = options;
    this.#clock = options.clock ?? systemClock;
  }

  /** The token last obtained, if any. */
  get current(): IssuedToken | undefined {
    return this.#current;
  }

  /** A token fit for the next call: the cached one, or a renewed one when it is due. */
  async token(): Promise<IssuedToken> {
    const current = this.#current;
    if (current && this.#clock.now() < renewAt(current)) return current;
    return this.#renew(current, 'due');
  }

  /**
   * The server refused `rejected` (401): get a new token, unless another caller already did.
   * Always a full authorization: a refused token cannot be refreshed.
   */
  async renewAfterRejection(rejected: IssuedToken): Promise<IssuedToken> {
    if (this.#inflight) {
      const renewed = await this.#inflight;
      if (renewed.accessToken !== rejected.accessToken) return renewed;
    }
    if (this.#current && this.#current.accessToken !== rejected.accessToken) return this.#current;
    return this.#renew(rejected, 'rejected');
  }

  #renew(stale: IssuedToken | undefined, reason: 'due' | 'rejected'): Promise<IssuedToken> {
    if (!this.#inflight) {
      this.#inflight = this.#fetch(stale, reason)
        .then((token) => {
          this.#current = token;
          return token;
        })
        .finally(() => {
          this.#inflight = undefined;
        });
    }
    return this.#inflight;
  }

  async #fetch(stale: IssuedToken | undefined, reason: 'due' | 'rejected'): Promise<IssuedToken> {
    const { refresh, obtain, log } = this.#options;
    if (stale && reason === 'due' && refresh && this.#clock.now() < stale.expiresAt) {
      try {
        log?.debug(1, 'token: renewing before it expires');
        return await refresh(stale);
      } catch (error) {
        log?.debug(
          1,
          `token: refresh failed (${error instanceof Error ? error.message : String(error)}); signing in again`,
        );
      }
    } else if (reason === 'rejected') {
      log?.debug(1, 'token: the server refused the token; signing in again');
    }
    return obtain();
  }
}
