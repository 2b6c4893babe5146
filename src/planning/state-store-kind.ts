import { UsageError } from '../errors.js';

/** `--state-store` values; kept apart from the stores so the CLI can check flags without loading them. */
export const STATE_STORE_KINDS = ['file', 'configmap'] as const;
export type StateStoreKind = (typeof STATE_STORE_KINDS)[number];

/** `--state-store`, else CTL_STATE_STORE, else `file`. */
export function parseStateStoreKind(value: string | undefined, env: NodeJS.ProcessEnv): StateStoreKind {
  const raw = value ?? (env.CTL_STATE_STORE || undefined) ?? 'file';
  if ((STATE_STORE_KINDS as readonly string[]).includes(raw)) return raw as StateStoreKind;
  const from = value === undefined ? 'CTL_STATE_STORE' : '--state-store';
  throw new UsageError(`${from} must be file or configmap, not "${raw}"`, {
    hint: 'file keeps the state on this machine; configmap keeps it in the cluster (a ConfigMap and a Lease).',
  });
}
