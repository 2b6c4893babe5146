import type { ConnectionFlags } from '../api/connect.js';
import type { Io } from '../io/io.js';
import { compareImageTags, parseImageTag } from '../release/versions.js';
import { ParticipantUnreachableError, type RemoteClusterReader } from '../planning/participants.js';

/**
 * How long ctl waits for a remote participant of an Active-Active database: the whole read
 * (connect, TLS, authorize, GET /v1/nodes) within this, or the participant counts as
 * unreachable and its databases are held back. Short, because the plan waits for it and a
 * participant that does not answer in 10 s will not answer a run either.
 */
export const PARTICIPANT_DEADLINE_MS = 10_000;

/**
 * Reads a remote participant's Redis Software version through its own management API, with the
 * same client, TLS settings (--ca-file, --insecure), authorize form and redaction as the local
 * API (src/api/connect.ts), but only with the credentials of the participant's RERC Secret:
 * the local cluster's --username, CTL_USERNAME and CTL_PASSWORD are never sent to another
 * cluster. The password is registered with the redactor the moment it is used.
 */
export function remoteClusterReader(input: {
  connection: ConnectionFlags;
  io: Io;
  env: NodeJS.ProcessEnv;
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  deadlineMs?: number;
}): RemoteClusterReader {
  const deadlineMs = input.deadlineMs ?? PARTICIPANT_DEADLINE_MS;
  return async ({ name, apiUrl, credentials }) => {
    input.io.redactor.add(credentials.password);
    const { connectApi } = await import('../api/connect.js');
    const { valueSource } = await import('../api/credentials.js');
    const connection = await connectApi(
      {
        apiUrl,
        username: undefined,
        passwordStdin: false,
        passwordFile: undefined,
        caFile: input.connection.caFile,
        insecure: input.connection.insecure,
        authForm: input.connection.authForm,
        servername: undefined,
      },
      {
        io: input.io,
        env: withoutLocalCredentials(input.env),
        stdin: input.stdin,
        fallbackSources: [valueSource(`the Secret of RERC ${name}`, credentials)],
        timeouts: { connectMs: deadlineMs, headersMs: deadlineMs, bodyMs: deadlineMs, totalMs: deadlineMs },
      },
    );
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new ParticipantUnreachableError(
              `its management API (${apiUrl}) gave no answer within ${deadlineMs / 1000} s`,
            ),
          ),
        deadlineMs,
      );
    });
    let timedOut = false;
    try {
      const nodes = await Promise.race([connection.client(300).listNodes(), deadline]);
      const versions = nodes.map((node) => node.software_version).sort(compareSoftwareVersions);
      const oldest = versions[0];
      if (!oldest) throw new Error(`its management API (${apiUrl}) lists no node`);
      return { rsVersion: oldest };
    } catch (error) {
      timedOut = error instanceof ParticipantUnreachableError;
      throw error;
    } finally {
      clearTimeout(timer);
      // After a timeout the request still runs until its own deadline: do not wait for it.
      if (timedOut) void connection.close().catch(() => undefined);
      else await connection.close();
    }
  };
}

/** The environment without the local cluster's API credentials. */
function withoutLocalCredentials(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const { CTL_USERNAME: _user, CTL_PASSWORD: _password, ...rest } = env;
  return rest;
}

/** The oldest first: `7.22.2-179` before `8.0.18-36` (malformed versions last). */
function compareSoftwareVersions(a: string, b: string): number {
  const [x, y] = [parseImageTag(a), parseImageTag(b)];
  if (!x || !y) return x ? -1 : y ? 1 : 0;
  return compareImageTags(x, y);
}
