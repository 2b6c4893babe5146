/**
 * `--catalog <file|url>` (env CTL_CATALOG) on `plan` and `run`: a release catalog in the format
 * of docs/catalog.schema.json, added to the built-in one (src/release/catalog-data.ts
 * useCatalog). A URL is read with the project's HTTP client and its deadline
 * (src/kube/bundle.ts readLocation). Anything wrong with it (unreadable, not JSON or YAML, not
 * the schema's shape, a version that does not parse) is a usage error, exit 2, naming the
 * problem, before any cluster is read.
 */

import { OperationError, UsageError } from '../errors.js';
import { displayLocation, download, isUrl, locationSecrets, MIB } from '../kube/download.js';
import type { Io } from '../io/io.js';
import { parseYaml, yamlProblem } from '../io/yaml-from-outside.js';
import {
  type ActiveCatalog,
  type CatalogDocument,
  useCatalog,
  validateCatalogDocument,
} from '../release/catalog-data.js';
import { knownOperatorVersions } from '../release/catalog.js';

const HINT =
  'Fix the catalog (its format: docs/catalog.schema.json; docs/catalog.md "The release catalog"), or drop --catalog / CTL_CATALOG to use the built-in one.';

/**
 * A catalog is at most 4 MiB (the built-in one is a few KiB), read within 10 s from a file and
 * 60 s from a URL.
 */
export const CATALOG_LIMITS = { what: '--catalog', maxBytes: 4 * MIB } as const;
const FILE_DEADLINE_MS = 10_000;
const URL_DEADLINE_MS = 60_000;

export async function loadCatalogOption(
  given: string | undefined,
  io?: Io,
): Promise<ActiveCatalog | undefined> {
  if (given === undefined || given.trim() === '') return undefined;
  const raw = given.trim();
  // Credentials in the URL are redacted everywhere ctl prints (and, through the origin, saves).
  for (const secret of locationSecrets(raw)) io?.redactor.add(secret);
  const location = displayLocation(raw);
  let text: string;
  let origin: string;
  try {
    const read = await download(
      raw,
      { ...CATALOG_LIMITS, deadlineMs: isUrl(raw) ? URL_DEADLINE_MS : FILE_DEADLINE_MS },
      { io },
    );
    text = read.text;
    origin = displayLocation(read.origin);
  } catch (error) {
    if (!(error instanceof OperationError)) throw error;
    throw new UsageError(`--catalog ${location}: ${error.message}`, {
      hint: error.hint ?? HINT,
      cause: error,
    });
  }
  if (origin.startsWith('http:')) {
    io?.warn(
      `--catalog ${origin} came over plain http (allowed by --allow-http or CTL_ALLOW_HTTP): anyone on the way could have changed it`,
    );
  }
  let document: unknown;
  try {
    // YAML is a superset of JSON: one parser reads both.
    document = parseYaml(text);
  } catch (error) {
    // Where and what, never the catalog's lines (yaml-from-outside.ts).
    throw new UsageError(`--catalog ${location}: neither JSON nor YAML (${yamlProblem(error)})`, {
      hint: HINT,
    });
  }
  const problems = await validateCatalogDocument(document);
  if (problems.length > 0) {
    const shown = problems.slice(0, 5).join('; ');
    throw new UsageError(
      `--catalog ${location} does not follow docs/catalog.schema.json: ${shown}${problems.length > 5 ? ` (and ${problems.length - 5} more)` : ''}`,
      { hint: HINT },
    );
  }
  // The origin it ended at, after redirects, without credentials.
  const active = useCatalog(document as CatalogDocument, origin);
  try {
    // Parses every release's versions and tags now, so a bad one is refused here.
    knownOperatorVersions();
  } catch (error) {
    throw new UsageError(`--catalog ${location}: ${(error as Error).message}`, { hint: HINT });
  }
  return active;
}
