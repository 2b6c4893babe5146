/**
 * kubectl's check of a cluster's `proxy-url` (kubernetes/client-go, read at its commit 32ce75a7d:
 * tools/clientcmd/helpers.go parseProxyURL, called by validation.go validateClusterInfo): Go's
 * net/url `url.Parse` must take it (`could not parse: URL`), and its scheme, lower-cased, must be
 * http, https or socks5 (`unsupported scheme "X", must be http, https, or socks5`).
 *
 * Node's URL parser accepts other texts than Go's, so the parts of url.Parse that can refuse a
 * text are followed here (Go's src/net/url/url.go: Parse, parse, getScheme, parseAuthority,
 * parseHost, validOptionalPort, validUserinfo, unescape, shouldEscape), read, not copied; the
 * answers were compared with kubectl 1.28 and 1.35 for the texts test/unit/kube/cluster-info.test.ts
 * holds; where the two differ (an IPv6 literal that is no address: Go 1.2x refuses it), as the
 * newer.
 */

import { isIPv6 } from 'node:net';

/** Whether url.Parse refuses `text`. */
export function goUrlParseFails(text: string): boolean {
  // An ASCII control character anywhere (stringContainsCTLByte).
  if (/[\x00-\x1f\x7f]/.test(text)) return true;
  const hash = text.indexOf('#');
  const [rest0, fragment] = hash === -1 ? [text, undefined] : [text.slice(0, hash), text.slice(hash + 1)];
  if (fragment !== undefined && !escapesValid(fragment)) return true;
  const schemed = scheme(rest0);
  if (schemed === 'missing') return true;
  const [schemeText, afterScheme] = schemed;
  // The query is kept raw: never refused.
  let rest = afterScheme;
  if (rest.endsWith('?') && rest.indexOf('?') === rest.length - 1) rest = rest.slice(0, -1);
  else if (rest.includes('?')) rest = rest.slice(0, rest.indexOf('?'));
  if (!rest.startsWith('/')) {
    // An opaque URL (`mailto:x`): taken as it is.
    if (schemeText !== '') return false;
    const segment = rest.split('/', 1)[0] ?? '';
    if (segment.includes(':')) return true;
  }
  if ((schemeText !== '' || !rest.startsWith('///')) && rest.startsWith('//')) {
    let authority = rest.slice(2);
    const slash = authority.indexOf('/');
    rest = slash === -1 ? '' : authority.slice(slash);
    authority = slash === -1 ? authority : authority.slice(0, slash);
    if (authorityFails(authority)) return true;
  }
  return !escapesValid(rest);
}

/** `[scheme, rest]` (scheme '' when there is none), or 'missing' for a text starting with ':'. */
function scheme(text: string): [string, string] | 'missing' {
  for (let i = 0; i < text.length; i++) {
    const c = text[i] ?? '';
    if (/[a-zA-Z]/.test(c)) continue;
    if (/[0-9+.-]/.test(c)) {
      if (i === 0) return ['', text];
      continue;
    }
    if (c === ':') return i === 0 ? 'missing' : [text.slice(0, i), text.slice(i + 1)];
    return ['', text];
  }
  return ['', text];
}

function authorityFails(authority: string): boolean {
  const at = authority.lastIndexOf('@');
  if (hostFails(at === -1 ? authority : authority.slice(at + 1))) return true;
  if (at === -1) return false;
  const userinfo = authority.slice(0, at);
  return !/^[A-Za-z0-9\-._:~!$&'()*+,;=%@]*$/.test(userinfo) || !escapesValid(userinfo);
}

function hostFails(host: string): boolean {
  if (host.startsWith('[')) {
    const close = host.lastIndexOf(']');
    if (close === -1) return true;
    if (!validOptionalPort(host.slice(close + 1))) return true;
    const zone = host.slice(0, close).indexOf('%25');
    // Newer Go (kubectl 1.35, not 1.28) takes only an IPv6 address between the brackets.
    const address = host.slice(1, zone === -1 ? close : zone);
    if (!escapesValid(address) || !isIPv6(decodeURIComponentSafe(address))) return true;
    if (zone !== -1) {
      // The zone (`%25eth0`) may hold any escape; the rest is checked as a host.
      return (
        !hostCharsValid(host.slice(0, zone)) ||
        !escapesValid(host.slice(zone, close)) ||
        !hostCharsValid(host.slice(close))
      );
    }
  } else {
    const colon = host.lastIndexOf(':');
    if (colon !== -1 && !validOptionalPort(host.slice(colon))) return true;
  }
  return !hostCharsValid(host);
}

/** `text` with its escapes decoded, or as it is when they do not decode as UTF-8. */
function decodeURIComponentSafe(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** `:` and digits only, or nothing. */
function validOptionalPort(port: string): boolean {
  return port === '' || /^:[0-9]*$/.test(port);
}

/**
 * unescape in its host mode: a `%` escape only of a byte past ASCII (or `%25`), and no ASCII
 * character that a host must escape (shouldEscape: letters, digits, `-._~` and `!$&'()*+,;=:[]<>"`
 * may stand as they are).
 */
function hostCharsValid(host: string): boolean {
  if (!escapesValid(host)) return false;
  for (let i = 0; i < host.length; i++) {
    const c = host[i] ?? '';
    if (c === '%') {
      if (parseInt(host[i + 1] ?? '0', 16) < 8 && host.slice(i, i + 3) !== '%25') return false;
      i += 2;
      continue;
    }
    if (c.charCodeAt(0) >= 0x80) continue;
    if (!/[A-Za-z0-9\-._~!$&'()*+,;=:[\]<>"]/.test(c)) return false;
  }
  return true;
}

/** Every `%` followed by two hex digits. */
function escapesValid(text: string): boolean {
  return !/%(?![0-9a-fA-F]{2})/.test(text);
}

const SCHEMES = ['http', 'https', 'socks5'];

/** parseProxyURL's error for `proxyUrl` (shown as `shown`), or undefined when kubectl takes it. */
export function proxyUrlProblem(proxyUrl: string, shown: string): string | undefined {
  if (goUrlParseFails(proxyUrl)) return `could not parse: ${shown}`;
  const found = scheme(proxyUrl.split('#', 1)[0] ?? '');
  const name = found === 'missing' ? '' : found[0].toLowerCase();
  return SCHEMES.includes(name) ? undefined : `unsupported scheme "${name}", must be http, https, or socks5`;
}

/** client-node's KubeConfig.createAgent (a private method), which builds a proxy-url's agent. */
type CreateAgent = (cluster: { proxyUrl?: string } | null, options: object) => unknown;

/**
 * Has `config` reach a `socks5://` proxy-url's API server by name through the proxy, as kubectl
 * does: Go's SOCKS5 dialer hands the proxy the host name unresolved (net/http's socks bundle,
 * the FQDN address type), so kubectl's socks5 is what socks-proxy-agent calls socks5h, and
 * client-node gave it `socks5`, resolved on this machine: a server name only the proxy's network
 * knows did not resolve. (kubectl refuses `socks5h` itself: parseProxyURL.) The cluster is seen
 * through a view: its proxy-url as the kubeconfig has it stays for every message.
 */
export function socksAsKubectl(config: object): void {
  const createAgent = (Object.getPrototypeOf(config) as { createAgent?: unknown }).createAgent;
  if (typeof createAgent !== 'function') return;
  (config as { createAgent: CreateAgent }).createAgent = (cluster, options) => {
    const url = cluster?.proxyUrl;
    const view =
      cluster && typeof url === 'string' && /^socks5:/i.test(url)
        ? (Object.create(cluster, {
            proxyUrl: { value: `socks5h:${url.slice('socks5:'.length)}` },
          }) as object)
        : cluster;
    return (createAgent as CreateAgent).call(config, view as { proxyUrl?: string } | null, options);
  };
}
