import { appendHint, OperationError } from '../errors.js';

/** Node's certificate verification codes, grouped by what the user should do about them. */
const UNTRUSTED = new Set([
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_SIGNATURE_FAILURE',
  'CERT_UNTRUSTED',
  'CERT_CHAIN_TOO_LONG',
  'INVALID_CA',
]);
const EXPIRED = new Set(['CERT_HAS_EXPIRED', 'CERT_NOT_YET_VALID']);
const WRONG_NAME = new Set(['ERR_TLS_CERT_ALTNAME_INVALID', 'HOSTNAME_MISMATCH']);

/** Walks an error's cause chain for a TLS verification failure. */
export function findTlsFailure(error: unknown): { code: string; message: string } | undefined {
  let current: unknown = error;
  for (let depth = 0; current && depth < 6; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && (UNTRUSTED.has(code) || EXPIRED.has(code) || WRONG_NAME.has(code))) {
      return { code, message: (current as Error).message ?? code };
    }
    if (typeof code === 'string' && code.startsWith('ERR_SSL_'))
      return { code, message: (current as Error).message };
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** True when the error (or one of its causes) is a certificate that no trusted CA signed. */
export function isUntrustedCertificate(error: unknown): boolean {
  const failure = findTlsFailure(error);
  return failure !== undefined && UNTRUSTED.has(failure.code);
}

/** A TLS failure as exit 1, naming the cause and the two ways out. */
export function tlsError(
  failure: { code: string; message: string },
  url: string,
  cause: unknown,
): OperationError {
  const fix =
    'Pass --ca-file CA_FILE (or set CTL_CA_FILE) with the CA that signed the API certificate, or, knowingly, --insecure.';
  if (EXPIRED.has(failure.code)) {
    return new OperationError(
      `TLS: the certificate of ${url} is expired or not yet valid (${failure.code})`,
      {
        hint: "Renew the API certificate or check this machine's clock; --insecure skips the check, knowingly.",
        cause,
      },
    );
  }
  if (WRONG_NAME.has(failure.code)) {
    return new OperationError(`TLS: the certificate of ${url} does not name that host (${failure.message})`, {
      hint: 'Use --api-url with a host name the certificate lists, or, knowingly, --insecure.',
      cause,
    });
  }
  if (UNTRUSTED.has(failure.code)) {
    return new OperationError(
      `TLS: the certificate of ${url} is not trusted (${failure.code}: ${failure.message})`,
      {
        // Redis Enterprise signs its own API certificate unless the REC names a Secret
        // (spec.certificates.apiCertificateSecretName): ctl auth trust reads either through
        // the Kubernetes API (src/kube/api-certificate.ts).
        hint: `Redis Enterprise signs the API certificate itself (or it is in the Secret spec.certificates.apiCertificateSecretName names): ctl auth trust reads it through the Kubernetes API, prints its fingerprint and pins it for this cluster. Or ${fix.charAt(0).toLowerCase()}${fix.slice(1)}`,
        cause,
      },
    );
  }
  return new OperationError(`TLS: could not set up a secure connection to ${url} (${failure.message})`, {
    hint: `Check that ${url} speaks HTTPS. ${fix}`,
    cause,
  });
}

/**
 * The certificate `ctl auth trust` pinned is not the one the API presents now: replaced on
 * purpose, rotated, or a simulated cluster started anew with a new CA. Without a word about the
 * pin, "not trusted" reads as if nothing had ever been trusted.
 */
export function withPinChangedHint(error: OperationError, pinned: string): OperationError {
  return appendHint(
    error,
    `The certificate ctl auth trust pinned for this cluster (${pinned}) is not the one the API presents now: if it was replaced on purpose (or the simulated cluster started anew), check the new one's fingerprint with ctl auth trust, which pins it.`,
  );
}
