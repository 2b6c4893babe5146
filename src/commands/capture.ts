import { writeFile } from 'node:fs/promises';
// Static: a split bundle's import() of this CommonJS package yields only `default` (scripts/bundle.mjs).
import { stringify } from 'yaml';
import { AuthError, ExitCode, OperationError, UsageError } from '../errors.js';
import { DEFAULT_KUBE_TARGET, kubectlCommand } from '../kube/kube-target.js';
import { safeJson } from '../io/safe-text.js';
import { shellQuote } from '../io/shell-words.js';
import type { SessionInput } from './session.js';

export interface CaptureCommandInput extends SessionInput {
  /** `--out <file>`; without it the YAML (with -o json: JSON, which is YAML too) goes to stdout. */
  out?: string | undefined;
  anonymize: boolean;
}

/**
 * `ctl sim capture`: reads the cluster READ-ONLY (the planner's snapshot, GET and LIST only, plus
 * src/planning/capture-reads.ts) and writes a scenario file for `ctl sim up --scenario <file>`.
 * The scenario is data (stdout or --out); what could not be captured goes to stderr.
 */
export async function runCaptureCommand(input: CaptureCommandInput): Promise<void> {
  const { openSession } = await import('./session.js');
  const { readSnapshot } = await import('../planning/snapshot.js');
  const { captureScenario, CaptureError } = await import('../planning/scenario-capture.js');
  const { readCaptureExtras } = await import('../planning/capture-reads.js');
  const session = await openSession(input);
  try {
    const snapshot = await readSnapshot({
      kube: session.reads,
      context: session.context,
      namespace: session.namespace,
      clusterName: session.clusterName,
      management: session.management,
      // A capture reviews no permissions: it plans nothing.
      requiredPermissions: [],
    });
    if (!snapshot.cluster) {
      // As findManagedCluster (src/kube/management-access.ts): none, several or not the named one is exit 2.
      const found = snapshot.clusterCandidates;
      const where = `namespace ${snapshot.namespace}`;
      throw new UsageError(
        found.length === 0
          ? `no cluster resource in ${where}: nothing to capture`
          : session.clusterName
            ? `no cluster resource ${session.clusterName} in ${where} (found: ${found.join(', ')})`
            : `${found.length} cluster resources in ${where} (${found.join(', ')})`,
        {
          hint:
            found.length === 0
              ? `Pass the namespace of the cluster resource with -n (${kubectlCommand(session.kube.selection ?? DEFAULT_KUBE_TARGET, 'get', 'rec', '-A')} lists them).`
              : 'Name the one to capture with --cluster.',
        },
      );
    }
    // Refused credentials are a mistake to fix (exit 4, as for plan); an API out of reach only
    // costs the module platforms and the API's versions, which the warnings name.
    if (snapshot.api.failure?.exitCode === ExitCode.auth) {
      throw new AuthError(`the management API refused the credentials: ${snapshot.api.error ?? ''}`, {
        hint:
          snapshot.api.failure.hint ??
          'Pass --username with --password-stdin or --password-file, or fix the cluster Secret.',
      });
    }
    const { extras, notes: readNotes } = await readCaptureExtras(
      session.kube.objects,
      snapshot,
      snapshot.statefulSet?.updateStrategy,
    );
    let captured;
    try {
      captured = captureScenario(snapshot, extras, { anonymize: input.anonymize, now: new Date() });
    } catch (error) {
      if (!(error instanceof CaptureError)) throw error;
      throw new OperationError(
        `cannot capture ${snapshot.namespace}/${snapshot.cluster.name}: ${error.message}`,
        {
          hint: 'Check the operator Deployment and the cluster resource with kubectl, or write the scenario by hand (docs/simulator.md "Rehearse your own upgrade").',
        },
      );
    }
    for (const note of [...snapshot.readErrors, ...readNotes, ...captured.notes]) input.io.warn(note);
    // Redacted as every file ctl writes (a saved plan, a report), --out too, and as data, not as
    // YAML text (`name: [REDACTED]` would read back as a list): a name the cluster or its API
    // gave (a role, a module) may be a secret ctl knows.
    const scenario = JSON.parse(input.io.redactor.redact(safeJson(captured.scenario))) as Record<
      string,
      unknown
    >;
    const yaml = `${HEADER}${stringify(scenario, { lineWidth: 0 })}`;
    if (input.out) {
      await writeFile(input.out, yaml, { mode: 0o644 });
      input.io.info(
        `captured ${input.anonymize ? 'the cluster (names anonymized)' : `${snapshot.namespace}/${snapshot.cluster.name}`} to ${input.out}; rehearse with: ctl sim up --scenario ${shellQuote(input.out)}`,
      );
    } else if (input.io.output === 'json') input.io.json(scenario);
    else input.io.data(yaml);
  } finally {
    await session.close();
  }
}

const HEADER = [
  '# Captured by `ctl sim capture` (docs/simulator.md "Capture a live cluster"). No password, token,',
  '# licence key or certificate was copied: the simulator makes a new random password for the user',
  '# below and its own placeholder licence with the captured state. Timing, faults and api.* are the',
  "# simulator's defaults (a live cluster does not show them), but api.modulesUpload: an RS 8.2 cluster",
  '# reports it (allow_modules_upload).',
  '',
].join('\n');
