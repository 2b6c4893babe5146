/**
 * undici's EnvHttpProxyAgent (HTTPS_PROXY, HTTP_PROXY, NO_PROXY), ending the requests a proxy
 * will not carry. A proxy that hangs up on the CONNECT it is asked for (it cannot or will not
 * reach the place) fails that CONNECT as a socket closed (UND_ERR_SOCKET), which undici takes for
 * a connection lost by chance: it keeps the request queued and connects again at once, for ever,
 * at full CPU, until the call's deadline (120 s) gives up. kubectl and helm (Go's net/http:
 * "proxyconnect tcp: EOF") and curl ("Proxy CONNECT aborted") end the request there. So does ctl:
 * the client to the proxy answers such a CONNECT with a ProxyHungUpError, which undici hands to
 * the request; the request was never sent, so the caller's retry policy may ask again
 * (src/api/retry.ts), a bounded number of times. Loads undici: import it lazily.
 */

import type { Dispatcher } from 'undici';
import { ProxyHungUpError } from './proxy-hung-up.js';
import { EnvHttpProxyAgent, Pool } from './undici.js';

export type ProxyAgentOptions = ConstructorParameters<typeof EnvHttpProxyAgent>[0];

/** An EnvHttpProxyAgent whose requests end when their proxy hangs up instead of tunnelling. */
export function proxyAgent(options: ProxyAgentOptions): Dispatcher {
  return new EnvHttpProxyAgent({
    ...options,
    clientFactory: (proxy: URL, proxyOptions: object) => new ProxyPool(proxy, proxyOptions),
  });
}

type ConnectOptions = Dispatcher.ConnectOptions;

/** The connections to one proxy: undici's Pool, whose CONNECT says when the proxy hung up. */
class ProxyPool extends Pool {
  readonly #proxy: string;

  constructor(proxy: URL, options: object) {
    super(proxy, options);
    // Without the user and password a proxy URL may carry (`http://user:secret@proxy:3128`).
    this.#proxy = `${proxy.protocol}//${proxy.host}`;
  }

  // ProxyAgent asks for each tunnel with the promise form; the callback form is passed on as is.
  override connect(options: ConnectOptions): Promise<Dispatcher.ConnectData>;
  override connect(
    options: ConnectOptions,
    callback: (error: Error | null, data: Dispatcher.ConnectData) => void,
  ): void;
  override connect(
    options: ConnectOptions,
    callback?: (error: Error | null, data: Dispatcher.ConnectData) => void,
  ): Promise<Dispatcher.ConnectData> | void {
    if (callback) return super.connect(options, callback);
    return super.connect(options).catch((error: unknown) => {
      if ((error as { code?: unknown }).code !== 'UND_ERR_SOCKET') throw error;
      throw new ProxyHungUpError(String(options.path), this.#proxy, error);
    });
  }
}
