/**
 * `--catalog <file|url>` (env CTL_CATALOG) on `plan` and `run`: a release catalog in the format
 * of docs/catalog.schema.json, added to the built-in one (src/release/catalog-data.ts
 * useCatalog). A URL is read with the project's HTTP client and its deadline
 * (src/kube/bundle.ts readLocation). Anything wrong with it (unreadable, not JSON or YAML, not
 * the schema's shape, a version that does not parse) is a usage error, exit 2, naming the
 * problem, before any cluster is read.
 */

import { parse as parseYaml } from 'yaml';
import { OperationError, UsageError } from '../errors.js';
import { readLocation } from '../kube/bundle.js';
import {
  type ActiveCatalog,
  type CatalogDocument,
  useCatalog,
  validateCatalogDocument,
} from '../release/catalog-data.js';
import { knownOperatorVersions } from '../release/catalog.js';

const HINT =
  'Fix the catalog (its format: docs/catalog.schema.json; docs/upgrade.md "Release catalog"), or drop --catalog / CTL_CATALOG to use the built-in one.';

export async function loadCatalogOption(location: string | undefined): Promise<ActiveCatalog | undefined> {
  if (location === undefined || location.trim() === '') return undefined;
  let text: string;
  try {
    text = await readLocation(location.trim(), {});
  } catch (error) {
    if (!(error instanceof OperationError)) throw error;
    throw new UsageError(`--catalog ${location}: ${error.message}`, { hint: HINT, cause: error });
  }
  let document: unknown;
  try {
    // YAML is a superset of JSON: one parser reads both.
    document = parseYaml(text);
  } catch (error) {
    throw new UsageError(`--catalog ${location}: neither JSON nor YAML (${(error as Error).message})`, {
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
  const active = useCatalog(document as CatalogDocument, location.trim());
  try {
    // Parses every release's versions and tags now, so a bad one is refused here.
    knownOperatorVersions();
  } catch (error) {
    throw new UsageError(`--catalog ${location}: ${(error as Error).message}`, { hint: HINT });
  }
  return active;
}
