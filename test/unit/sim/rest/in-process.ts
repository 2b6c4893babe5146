import { handleApiRequest } from '../../../../src/sim/rest/handlers.js';
import type { RestModel } from '../../../../src/sim/rest/model.js';

/**
 * The simulated management API answered in-process (no server, no TLS): for tests of what it
 * answers, not of how it serves.
 */

export interface Credentials {
  username: string;
  password: string;
}

/** The HTTP Basic `authorization` value of a user. */
export function basicAuth(user: Credentials): string {
  return `Basic ${Buffer.from(`${user.username}:${user.password}`).toString('base64')}`;
}

/** `GET path` as `user`: the answer's status and body. */
export async function getAs(
  model: RestModel,
  path: string,
  user: Credentials,
): Promise<{ status: number; body: unknown }> {
  const answer = await handleApiRequest(model, {
    method: 'GET',
    path,
    headers: { authorization: basicAuth(user) },
    body: Buffer.alloc(0),
  });
  return { status: answer.status, body: answer.body };
}
