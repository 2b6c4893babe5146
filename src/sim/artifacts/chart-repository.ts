import { createHash } from 'node:crypto';
import { stringify } from 'yaml';
import type { SimDialect as Dialect } from '../world/dialect.js';
import { CHART_NAME, chartFiles } from './chart.js';

// Fixed so index.yaml does not change between starts (helm caches it by content).
const CREATED = '2024-01-01T00:00:00Z';

export function chartArchiveName(version: string): string {
  return `${CHART_NAME}-${version}.tgz`;
}

/**
 * Archives and indexes made in this process, by what they are made from. Both are byte for byte
 * the same on every start (fixed times, tgz.ts), so every repository of a process shares them: a
 * test file starts a simulator per test, and each built every archive again for its index's
 * digests (about 0.3 s of CPU per helm-installed simulator on a 2-core runner).
 */
const archiveCache = new Map<string, Promise<Buffer>>();
const indexCache = new Map<string, Promise<string>>();

/**
 * A helm chart repository of one chart in many versions. Archives are built on first request
 * and kept: a scale test may ask for the same archive many times, and the digest in index.yaml
 * needs every archive anyway.
 */
export class ChartRepository {
  readonly #dialect: Dialect;
  readonly #versions: readonly string[];

  constructor(versions: readonly string[], dialect: Dialect) {
    this.#versions = versions;
    this.#dialect = dialect;
  }

  has(version: string): boolean {
    return this.#versions.includes(version);
  }

  archive(version: string): Promise<Buffer> {
    const key = `${this.#dialect}\0${version}`;
    let archive = archiveCache.get(key);
    if (!archive) {
      const files = chartFiles(version, this.#dialect).map((file) => ({
        path: `${CHART_NAME}/${file.path}`,
        content: file.content,
      }));
      // tgz.ts (and tar-stream with it) is loaded when helm first asks for a chart: every
      // simulator start, and every test file that starts one, paid ~30 ms of CPU to load it.
      archive = import('./tgz.js').then(({ packTgz }) => packTgz(files));
      archiveCache.set(key, archive);
    }
    return archive;
  }

  /** `index.yaml`: relative URLs, so the index stays valid whatever port the server listens on. */
  index(): Promise<string> {
    const key = `${this.#dialect}\0${this.#versions.join(' ')}`;
    let index = indexCache.get(key);
    if (!index) {
      index = this.#buildIndex();
      indexCache.set(key, index);
    }
    return index;
  }

  async #buildIndex(): Promise<string> {
    const newestFirst = [...this.#versions].reverse();
    const entries = await Promise.all(
      newestFirst.map(async (version) => ({
        apiVersion: 'v2',
        name: CHART_NAME,
        description: 'Redis Enterprise operator (ctl simulator chart)',
        type: 'application',
        version,
        appVersion: version,
        kubeVersion: '>=1.23.0-0',
        created: CREATED,
        digest: createHash('sha256')
          .update(await this.archive(version))
          .digest('hex'),
        urls: [chartArchiveName(version)],
      })),
    );
    return stringify(
      { apiVersion: 'v1', entries: { [CHART_NAME]: entries }, generated: CREATED },
      { lineWidth: 0 },
    );
  }
}
