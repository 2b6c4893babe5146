/**
 * undici dispatchers for a request that may follow redirects across hosts: each URL goes through
 * the proxy for its own scheme and host (proxySettingsFor: HTTPS_PROXY for https, HTTP_PROXY for
 * http, never for this machine), or direct, so a redirect may lead from a host behind a proxy to
 * one that is not. One dispatcher per proxy, made on first use. Loads undici: import it lazily.
 */

import type { Dispatcher } from 'undici';
import { proxySettingsFor } from './http.js';
import { proxyAgent } from './proxy-agent.js';
import { Agent } from './undici.js';

export class HopDispatchers {
  readonly #made = new Map<string, Dispatcher>();

  constructor(private readonly env: NodeJS.ProcessEnv) {}

  /** The dispatcher for `url`: its proxy's, or a direct one. */
  for(url: string): Dispatcher {
    const proxy = proxySettingsFor(url, this.env);
    const key = JSON.stringify(proxy ?? null);
    let dispatcher = this.#made.get(key);
    if (!dispatcher) {
      dispatcher = proxy ? proxyAgent(proxy) : new Agent();
      this.#made.set(key, dispatcher);
    }
    return dispatcher;
  }

  /** Closes every dispatcher made; never rejects. */
  async close(): Promise<void> {
    await Promise.all([...this.#made.values()].map((d) => d.close().catch(() => undefined)));
  }
}
