/**
 * A kubeconfig's `server` (and `proxy-url`) may carry credentials: `https://user:password@host`
 * is sent as Basic auth by Node (http.request takes a URL's user info as `auth`) and by kubectl
 * (Go's net/http does the same), so a kubeconfig may hold its password there rather than under
 * `users:`. ctl names the server in its messages (-v, deadlines, hints): it names it as every
 * location it shows (src/kube/download.ts displayLocation, `***@`), and gives the parts to the
 * redactor, with the Basic header they make, so a server or proxy that echoes them back is
 * redacted too.
 */

import { displayLocation, locationSecrets } from './download.js';

/**
 * The server URL as ctl prints it: as the kubeconfig writes it, or, when it carries credentials
 * (a user and password, a query), as displayLocation shows a location: `https://***@host:6443/`.
 */
export function serverForMessages(server: string): string {
  if (!/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*@/i.test(server) && !server.includes('?')) return server;
  return displayLocation(server);
}

/** The secret parts of a server or proxy URL, and the Basic credential they are sent as. */
export function serverSecrets(server: string | undefined): string[] {
  if (!server) return [];
  let url: URL;
  try {
    url = new URL(server);
  } catch {
    return []; // not a URL: nothing was sent from it either
  }
  // The user name is no secret (a message may well say `admin`, which it would blank): its
  // password, the query's values, and the Basic credential of both are.
  const secrets = locationSecrets(server).filter((part) => part !== url.username);
  if (url.password !== '') {
    const basic = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
    secrets.push(Buffer.from(basic, 'utf8').toString('base64'));
  }
  return secrets;
}
