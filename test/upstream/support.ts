import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { repoRoot } from '../helpers/tools.js';

/**
 * The upstream suite (`npm run test:upstream`): ctl's simulator and CRDs compared with the
 * operator's published manifests (github.com/RedisLabs/redis-enterprise-k8s-docs, its deploy
 * folder). They carry no licence, so the repository holds none of them: the folder comes from
 * CTL_UPSTREAM_DIR (default ../shared/reference/redis-enterprise-k8s beside the checkout).
 * A missing folder or file fails the test; the suite is never skipped.
 */
export function upstreamDir(): string {
  const dir = resolve(repoRoot, process.env.CTL_UPSTREAM_DIR ?? '../shared/reference/redis-enterprise-k8s');
  if (!existsSync(dir)) {
    throw new Error(
      `the upstream manifests are not at ${dir}: set CTL_UPSTREAM_DIR to the operator's deploy folder ` +
        '(redis-enterprise-k8s-docs), or run the default suite (npm test), which needs none of them',
    );
  }
  return dir;
}

/** One upstream file (bundle.yaml, crd-rec.yaml, example-rec-v1.yaml, ...); it must exist. */
export function upstreamFile(name: string): string {
  const file = join(upstreamDir(), name);
  if (!existsSync(file)) throw new Error(`upstream file ${name} is missing from ${upstreamDir()}`);
  return file;
}
