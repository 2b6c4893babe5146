/**
 * `platform-supported`: the target supports this Kubernetes or OpenShift version: reads the
 * platform and its version against the catalog's support table. The decision lives with the
 * platform reading (../platform.ts).
 */

import { checkPlatformSupported } from '../platform.js';
import type { Check } from './check.js';

export const platformSupportedCheck = {
  id: 'platform-supported',
  run: ({ snapshot, target }) => checkPlatformSupported(snapshot, target),
} as const satisfies Check;
