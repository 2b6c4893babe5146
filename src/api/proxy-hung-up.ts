/**
 * A proxy that hung up instead of opening a tunnel (./proxy-agent.ts ends such requests). Apart
 * from proxy-agent.ts, which loads undici: the HTTP client names the code without loading it.
 */

/** The code of a ProxyHungUpError: the request never reached the origin. */
export const PROXY_HUNG_UP = 'CTL_PROXY_HUNG_UP';

export class ProxyHungUpError extends Error {
  readonly code = PROXY_HUNG_UP;

  constructor(origin: string, proxy: string | undefined, cause: unknown) {
    super(
      `the proxy${proxy ? ` ${proxy}` : ''} closed the connection before it opened a tunnel to ${origin}`,
      { cause },
    );
  }
}
