import type { ConnectDependencies, ConnectionFlags } from '../api/connect.js';
import type { Io } from '../io/io.js';
import { checkFilePath, INPUT_FILE_LIMITS } from '../io/paths.js';
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
 * Which participants' certificates ctl trusts, and how: a choice of its own, never the local
 * API's (issue 35). `CTL_PARTICIPANT_CA_FILE` is a PEM bundle for the participants' API
 * certificates (default: the system's CAs); `CTL_PARTICIPANT_INSECURE` names, comma-separated,
 * the RERCs whose certificate is not verified (with a warning every time). The local
 * `--ca-file` and `--insecure` (`CTL_CA_FILE`, `CTL_INSECURE`) concern the local API only.
 */
export interface ParticipantTrust {
  caFile: string | undefined;
  insecure: ReadonlySet<string>;
}

export function participantTrust(env: NodeJS.ProcessEnv): ParticipantTrust {
  const caFile = env.CTL_PARTICIPANT_CA_FILE || undefined;
  checkFilePath('CTL_PARTICIPANT_CA_FILE', caFile, 'input', INPUT_FILE_LIMITS.caFile);
  const insecure = new Set(
    (env.CTL_PARTICIPANT_INSECURE ?? '')
      .split(',')
      .map((name) => name.trim())
      .filter((name) => name !== ''),
  );
  return { caFile, insecure };
}

/**
 * Reads a remote participant's Redis Software version through its own management API, with the
 * same client, authorize form and redaction as the local API (src/api/connect.ts), but only
 * with the credentials of the participant's RERC Secret (src/planning/participants.ts decides
 * which Secret and which host): the local cluster's --username, CTL_USERNAME and CTL_PASSWORD
 * are never sent to another cluster, and its --ca-file and --insecure never apply there
 * (participantTrust). The password is registered with the redactor the moment it is used.
 */
export function remoteClusterReader(input: {
  connection: ConnectionFlags;
  io: Io;
  env: NodeJS.ProcessEnv;
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  deadlineMs?: number;
  /** What carries the participant's requests (src/api/http.ts); default undici. */
  transport?: ConnectDependencies['transport'];
}): RemoteClusterReader {
  const deadlineMs = input.deadlineMs ?? PARTICIPANT_DEADLINE_MS;
  const trust = participantTrust(input.env);
  return async (participant) => {
    try {
      return await readParticipant(participant);
    } catch (error) {
      // The error's words may quote what the participant was sent (its API echoing the request
      // in a 401): they become the REAADB's held-back reason, in the plan, the state (a ConfigMap
      // in the cluster, maybe) and `ctl upgrade status`, whose process never reads that Secret and
      // so cannot redact them. Redacted here, where the password is known.
      if (error instanceof Error) error.message = input.io.redactor.redact(error.message);
      throw error;
    }
  };

  async function readParticipant({
    name,
    apiUrl,
    credentials,
  }: Parameters<RemoteClusterReader>[0]): Promise<{ rsVersion: string }> {
    input.io.redactor.add(credentials.password, 'password');
    input.io.redactor.addUsername(credentials.username);
    const { connectApi } = await import('../api/connect.js');
    const { valueSource } = await import('../api/credentials.js');
    const connection = await connectApi(
      {
        apiUrl,
        username: undefined,
        passwordStdin: false,
        passwordFile: undefined,
        caFile: trust.caFile,
        caFileFrom: 'CTL_PARTICIPANT_CA_FILE',
        insecure: trust.insecure.has(name),
        trustSource: { insecure: `CTL_PARTICIPANT_INSECURE=${name}`, caFile: 'CTL_PARTICIPANT_CA_FILE=' },
        authForm: input.connection.authForm,
        servername: undefined,
      },
      {
        io: input.io,
        env: withoutLocalCredentials(input.env),
        stdin: input.stdin,
        fallbackSources: [valueSource(`the Secret of RERC ${name}`, credentials)],
        timeouts: { connectMs: deadlineMs, headersMs: deadlineMs, bodyMs: deadlineMs, totalMs: deadlineMs },
        transport: input.transport,
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
  }
}

/** The environment without the local cluster's API credentials. */
function withoutLocalCredentials(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const {
    CTL_USERNAME: _user,
    CTL_PASSWORD: _password,
    CTL_CA_FILE: _ca,
    CTL_INSECURE: _insecure,
    ...rest
  } = env;
  return rest;
}

/** The oldest first: `7.22.2-179` before `8.0.18-36` (malformed versions last). */
function compareSoftwareVersions(a: string, b: string): number {
  const [x, y] = [parseImageTag(a), parseImageTag(b)];
  if (!x || !y) return x ? -1 : y ? 1 : 0;
  return compareImageTags(x, y);
}
