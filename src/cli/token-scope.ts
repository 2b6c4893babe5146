import { proxySettings } from '../api/http.js';
import type { AuthTokenValues } from './auth-action.js';

/**
 * Whether `ctl auth token` with these values and this environment talks to the management API
 * alone: the URL, the username and the password come from flags or env (auth-token.ts asks
 * Kubernetes only for what they leave out), no proxy is set (HttpClient takes undici for one),
 * and the output is text or json (the writers of yaml, name and jsonpath are loaded for them). The token's own entry carries
 * nothing else (scripts/bundle.mjs); for any other run bin/ctl.js takes the whole tree.
 * Each condition mirrors the code that would otherwise load more: read-connection.ts (the URL),
 * connect.ts and credentials.ts (an empty --username is skipped, an empty password fails),
 * http.ts (proxySettings), read-globals.ts (yaml).
 */
export function talksToTheApiAlone(values: AuthTokenValues, env: NodeJS.ProcessEnv): boolean {
  const { own } = values;
  const url = (own.apiUrl as string | undefined) ?? nonEmpty(env.CTL_API_URL);
  const username = nonEmpty(own.username as string | undefined) ?? nonEmpty(env.CTL_USERNAME);
  const password =
    own.passwordStdin === true || own.passwordFile !== undefined || nonEmpty(env.CTL_PASSWORD) !== undefined;
  return (
    url !== undefined &&
    username !== undefined &&
    password &&
    proxySettings(env) === undefined &&
    (values.all.output === undefined || values.all.output === 'text' || values.all.output === 'json')
  );
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}
