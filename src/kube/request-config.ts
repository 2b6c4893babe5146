/**
 * The kubeconfig every request of ctl goes through: one view over client-node's KubeConfig.
 * client-node asks `applyToFetchOptions` for each request's options (kubeRequest does, and its
 * Watch does for every watch it opens, one per database being waited for), and the view's answer
 * differs from client-node's in two ways:
 * - the agent is the kept keep-alive one with the Kubernetes deadlines (agent.ts keepAliveAgent),
 *   not a new agent and TLS handshake per request;
 * - the credential of the Authorization header is reported (`onSecret`, for the redactor): a token
 *   an exec plugin, an auth provider or a rotated token file hands over later is known before
 *   any answer that could quote it is printed.
 * client-node's typed clients take their agent from `applySecurityAuthentication` instead: it
 * sets the kept agent too (ctl calls none today; src/kube/rest.ts says why).
 * Both of client-node's methods send no credential toward a plain-http server (plain-http.ts,
 * on the KubeConfig this view is made of): there is then no Authorization header to report.
 */

import type { Agent as HttpAgent } from 'node:http';
import { keepAliveAgent } from './agent.js';

interface FetchConfig {
  applyToFetchOptions(options: object): Promise<unknown>;
}

/** The part of client-node's RequestContext that carries the agent. */
interface AgentContext {
  getAgent(): HttpAgent | undefined;
  setAgent(agent: HttpAgent): void;
}

type Authenticating = { applySecurityAuthentication?: (context: AgentContext) => Promise<void> };

/** `config` with its requests on the kept agent and their credentials reported. */
export function requestConfig<C extends FetchConfig>(config: C, onSecret: (secret: string) => void): C {
  const view = Object.create(config) as C;
  const report = credentialReporter(onSecret);
  view.applyToFetchOptions = async (options: object) => {
    const answer = (await config.applyToFetchOptions(options)) as { agent?: HttpAgent; headers?: Headers };
    answer.agent = keepAliveAgent(answer.agent);
    report(answer.headers?.get('authorization') ?? undefined);
    return answer;
  };
  const original = (config as unknown as Authenticating).applySecurityAuthentication;
  if (original) {
    (view as unknown as Authenticating).applySecurityAuthentication = async (context: AgentContext) => {
      await original.call(view, context);
      context.setAgent(keepAliveAgent(context.getAgent()) as HttpAgent);
    };
  }
  return view;
}

/** Reports each new Authorization header's credential (and a Basic one's password). */
function credentialReporter(onSecret: (secret: string) => void): (authorization: string | undefined) => void {
  let last: string | undefined;
  return (authorization) => {
    if (authorization === undefined || authorization === last) return;
    last = authorization;
    // `Bearer <token>` or `Basic <base64>`: the credential is after the scheme.
    const credential = authorization.replace(/^\S+\s+/, '');
    onSecret(credential);
    if (/^basic\s/i.test(authorization)) {
      const decoded = Buffer.from(credential, 'base64').toString('utf8');
      const password = decoded.slice(decoded.indexOf(':') + 1);
      if (password) onSecret(password);
    }
  };
}
