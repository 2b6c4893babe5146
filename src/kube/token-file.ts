/**
 * A kubeconfig user's token file, `tokenFile` (kubectl's key) or `token-file` (client-node's),
 * read as kubectl reads it, within a bound and without waiting on it (src/io/bounded-file.ts).
 *
 * client-node 1.4 reads every user's token-file itself, while it parses the kubeconfig
 * (config_types.js findToken: fs.readFileSync, the path taken from the working folder), and never
 * again: a FIFO there held ctl before any deadline could run, /dev/zero filled its memory, a
 * missing file of a user no context uses failed the whole kubeconfig, and a token rotated during a
 * long run was never seen. ctl takes the paths out before client-node sees them
 * (./kubeconfig-text.ts) and reads them here, by client-go's rules (kubernetes/kubernetes,
 * staging/src/k8s.io/client-go):
 * - the path is taken from the folder of the kubeconfig that names it (tools/clientcmd/loader.go:
 *   ResolveLocalPaths, GetAuthInfoFileReferences lists TokenFile beside the certificate and key);
 * - only the file of the user in use is read (tools/clientcmd/client_config.go,
 *   getUserIdentificationPartialConfig);
 * - the token is the file less the white space around it, read again once it is a minute old,
 *   and a read again that fails keeps the token read before (transport/token_source.go,
 *   NewCachedFileTokenSource: the kubelet rotates a projected service account token).
 * A `token` beside a `token-file` wins, as in client-node, and the file is then never read (kubectl
 * ignores `token-file`). A `token` beside a `tokenFile` is what kubectl falls back on (`besideToken`):
 * client-go keeps both (client_config.go getUserIdentificationPartialConfig: BearerToken and
 * BearerTokenFile) and its transport sends the file's token whenever the file reads, the `token`
 * only while it never has (transport/round_trippers.go NewBearerAuthWithRefreshRoundTripper and
 * bearerAuthRoundTripper.RoundTrip, over NewCachedFileTokenSource). types.go's "Token takes
 * precedence" is true only of that load; kubectl 1.28, 1.32 and 1.35, run by hand against the
 * simulator, send the file's token (held to the kubectl nearest the simulator's Kubernetes in
 * test/e2e/kubeconfig-token-file.test.ts).
 */

import { UsageError } from '../errors.js';
import { readBoundedFileSync } from '../io/bounded-file.js';
import { INPUT_FILE_LIMITS, inputFileError } from '../io/paths.js';
import { errnoText } from './kubeconfig-file-open.js';

/** How old a token read from its file may be before it is read again: client-go's period. */
export const TOKEN_FILE_PERIOD_MS = 60_000;

export class TokenFile {
  private token: string | undefined;
  private readAt = 0;

  constructor(
    /** Absolute: taken from the kubeconfig's folder. */
    readonly path: string,
    /** What named the file, for messages: `the kubeconfig's tokenFile of user u1`. */
    readonly role: string,
    private readonly now: () => number = Date.now,
    /**
     * The user's `token` beside its `tokenFile`: sent while the file has never been read, and the
     * file tried again on the next use (client-go's caching source keeps no token until one
     * reads); no refusal is then thrown, as kubectl goes on with the token.
     */
    readonly besideToken?: string,
  ) {}

  /**
   * The token: read on first use (a refusal is thrown: a usage error naming the role), and again
   * once it is a minute old (a refusal then keeps the token before, and is tried again a minute
   * later; the API server says whether that token is still good).
   */
  current(): string {
    if (this.token === undefined) {
      try {
        this.token = this.read();
      } catch (error) {
        if (this.besideToken === undefined) throw error;
        return this.besideToken;
      }
      this.readAt = this.now();
    } else if (this.now() - this.readAt >= TOKEN_FILE_PERIOD_MS) {
      this.readAt = this.now();
      try {
        this.token = this.read();
      } catch {
        // client-go logs "Unable to rotate token" and goes on with the token it has.
      }
    }
    return this.token;
  }

  private read(): string {
    let bytes: Buffer;
    try {
      bytes = readBoundedFileSync(this.path, INPUT_FILE_LIMITS.tokenFile);
    } catch (error) {
      throw tokenFileError(this.role, this.path, error);
    }
    // A file written with `echo` ends in a newline, which no header may hold.
    const token = bytes.toString('utf8').trim();
    if (token === '') {
      // client-go: "read empty token from file"; a request without it would be anonymous.
      throw new UsageError(`${this.role} ${this.path} is empty`, {
        hint: 'Write the bearer token into that file, or fix the path in the kubeconfig.',
      });
    }
    return token;
  }
}

/**
 * A file ctl needs that cannot be read (a token file, a certificate, a key), worded for what
 * named it (`role`; exit 2): missing, or Go's words for why it does not open (`permission
 * denied`, as kubectl says it), and `hint`, what to do (by default, about the kubeconfig that
 * names it). An error without an errno code is returned as it is.
 */
export function tokenFileError(
  role: string,
  path: string,
  error: unknown,
  hint = "Fix the path in the kubeconfig (a relative one is taken from the kubeconfig's folder, as kubectl takes it), or the file's permissions.",
): unknown {
  const refused = inputFileError(role, error);
  if (refused !== error) return refused;
  const code = (error as NodeJS.ErrnoException | null)?.code;
  const reason = errnoText(error);
  if (reason === undefined) return error;
  return new UsageError(
    code === 'ENOENT' ? `${role} ${path}: no such file` : `cannot read ${role} ${path}: ${reason}`,
    { hint, cause: error },
  );
}

const tokenFiles = new WeakMap<object, TokenFile>();

/**
 * Makes `user.token` the token of `file`, read when first asked for and again once a minute old:
 * client-node reads `user.token` for each request's Authorization header.
 */
export function attachTokenFile(user: object, file: TokenFile): void {
  tokenFiles.set(user, file);
  Object.defineProperty(user, 'token', { get: () => file.current(), enumerable: true, configurable: true });
}

/** The token file of a user of the kubeconfig, if it has one that ctl reads. */
export function tokenFileOf(user: object | null | undefined): TokenFile | undefined {
  return user ? tokenFiles.get(user) : undefined;
}
