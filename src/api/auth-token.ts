import type { Io } from '../io/io.js';
import { type ConnectDependencies, type ConnectionSettings, connectApi } from './connect.js';

export interface AuthTokenOptions {
  ttl: number;
  connection: ConnectionSettings;
}

/** `ctl auth token`: text = the token alone on stdout; json = access_token, token_type, ttl, expires_at. */
export async function runAuthToken(
  options: AuthTokenOptions,
  deps: ConnectDependencies & { io: Io },
): Promise<void> {
  const connection = await connectApi(options.connection, deps);
  try {
    const token = await connection.authorize(options.ttl);
    const expiresAt = token.exp !== undefined ? token.exp * 1000 : token.expiresAt;
    if (deps.io.output === 'json') {
      deps.io.json({
        access_token: token.accessToken,
        token_type: 'JWT',
        ttl: options.ttl,
        expires_at: new Date(expiresAt).toISOString(),
      });
    } else {
      deps.io.data(token.accessToken);
    }
  } finally {
    await connection.close();
  }
}
