/**
 * A generated world (issue 36 item 3): a simulated cluster, as a scenario file the simulator
 * loads (SIMULATOR.md's keys), and what the user's side brings to it: whether helm is on the
 * PATH, the state store, the target (from the targets ctl would list), and whether the run
 * repeats `--to` or runs the saved plan. Printed as YAML, it is the regression file of a world
 * (test/worlds/found/*.yaml) and what a failing seed prints.
 */

import { Document, isScalar, isSeq, parse, stringify, visit } from 'yaml';

export interface UserSide {
  /** helm on the PATH (CTL_HELM); false: no helm anywhere ctl looks. */
  helm: boolean;
  stateStore: 'file' | 'configmap';
  /** `to`: `ctl upgrade run --to <target>`; `plan`: `ctl upgrade run --plan <saved plan>`. */
  runWith: 'to' | 'plan';
  /** `listed`: a target `ctl upgrade plan` lists; `catalog`: any newer release (targets.ts). */
  targetFrom: 'listed' | 'catalog';
  /** Which of those targets, counted modulo their number. */
  targetPick: number;
  /**
   * Where ctl's management API credentials come from: `env` (CTL_USERNAME and CTL_PASSWORD, an
   * admin) or `secret` (none given: ctl reads the cluster's credentials Secret, whose user the
   * scenario's first `cluster.users` entry is). Absent: env.
   */
  credentials?: 'env' | 'secret';
  /**
   * The plan and the run are given `--remediate` and a `--module-file`: at a freeze the run would
   * upload it through the management API (POST /v2/modules), which only an admin may; the plan's
   * api-permissions check judges the API user's role. Absent: false.
   */
  remediate?: boolean;
  /**
   * How the user points ctl at the cluster: `context` (the kubeconfig context's namespace, the
   * only cluster resource there) or `flags` (`-n <namespace> --cluster <name>`, from a context
   * whose namespace is another one, `default`, as a shared kubeconfig's is). Absent: context.
   */
  address?: 'context' | 'flags';
  /** A found world's file names its target outright: the catalog may grow. */
  target?: string;
}

export interface World {
  ctl: UserSide;
  /**
   * A world made blocked on purpose: the check ids of which at least one must fail (the plan
   * exits 3, nothing changed). Absent: the plan may say either; a Ready plan must finish.
   */
  blockedBy?: string[];
  /**
   * A world whose trouble no read can show before the run meets it (an OLM install that fails
   * for good, OLM update edges unlike the certified catalog's: test/worlds/situations.ts). Its
   * Ready plan's run may stop (exit 1 or 6, saying why); then the plan made next must fail one
   * of these checks: the failure, once on the cluster, is a plan check. Absent: a Ready plan's
   * run must finish.
   */
  stopsThenBlocks?: string[];
  /** A scenario file's keys, as `ctl sim up --scenario` reads them. */
  scenario: Record<string, unknown>;
}

/** Compact: each list entry on one line, so a failure's world fits the failure summary. */
export function worldYaml(world: World): string {
  const doc = new Document(world);
  visit(doc, {
    Seq(_key, node) {
      if (node.items.every((item) => isScalar(item))) node.flow = true;
    },
    Map(_key, node, path) {
      if (isSeq(path.at(-1))) node.flow = true;
    },
  });
  return doc.toString({ lineWidth: 0 });
}

export function parseWorld(text: string): World {
  const raw = parse(text) as Partial<World> | null;
  if (!raw?.ctl || !raw.scenario) throw new Error('a world file has two keys: ctl and scenario');
  return raw as World;
}

/** The scenario part alone, as a scenario YAML file. */
export function scenarioYaml(world: World): string {
  return stringify(world.scenario, { lineWidth: 0 });
}
