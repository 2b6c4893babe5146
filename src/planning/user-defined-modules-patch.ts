/**
 * What the cluster step does with the `--user-defined-modules` list (src/planning/user-defined-modules.ts
 * reads it): merge it into the cluster resource's `spec.userDefinedModules`. Apart from the file's
 * reader so that a plan, which always builds the cluster step, does not load the reader's schema
 * library (zod, 0.75 MB of the 1.9 MB a plan loaded).
 */

export interface UserDefinedModule {
  name: string;
  source: { https: { url: string; credentialsSecret?: string | undefined } };
}

/**
 * The list the cluster step writes: what the cluster resource lists now, each entry the file
 * also names replaced by the file's, then the file's new ones. A merge patch replaces a list
 * whole, so the live entries are carried over, never dropped.
 */
export function mergedUserDefinedModules(live: unknown, given: readonly UserDefinedModule[]): unknown[] {
  const byName = new Map(given.map((m) => [m.name, m]));
  const kept = (Array.isArray(live) ? live : []).map((entry: unknown) => {
    const name = (entry as { name?: unknown } | null)?.name;
    const replacement = typeof name === 'string' ? byName.get(name) : undefined;
    if (replacement) byName.delete(name as string);
    return replacement ?? entry;
  });
  return [...kept, ...byName.values()];
}

/** Whether the live list already holds every given module as given (the patch would change nothing there). */
export function listsEveryModule(live: unknown, given: readonly UserDefinedModule[]): boolean {
  const entries = Array.isArray(live) ? (live as unknown[]) : [];
  return given.every((module) =>
    entries.some((entry) => JSON.stringify(normalize(entry)) === JSON.stringify(normalize(module))),
  );
}

function normalize(entry: unknown): unknown {
  const e = entry as { name?: unknown; source?: { https?: { url?: unknown; credentialsSecret?: unknown } } };
  return [e?.name, e?.source?.https?.url, e?.source?.https?.credentialsSecret ?? null];
}
