/**
 * The targets of `ctl upgrade plan` without `--to`, for people: one line per target (the
 * recommended one first, marked `*`), its hops, and under a blocked one each failing check.
 * Values from the cluster go through oneLine, as in render-plan.ts.
 */

import { capList, moreLine } from '../io/cap-list.js';
import { oneLine } from '../io/safe-text.js';
import type { Paint } from '../io/style.js';
import { paintOf } from './render-plan.js';
import type { AvailableRelease } from './catalog-notes.js';
import type { UpgradeTarget, UpgradeTargets } from './targets.js';

/**
 * `nextPlan`: the plan command of a target, with the user's flags, quoted
 * (src/commands/next-command.ts nextPlanCommand). Required: a bare `ctl upgrade plan --to <v>`
 * names no cluster, and pasted acts on whatever namespace the kubeconfig's context has.
 */
export function renderTargets(
  list: UpgradeTargets,
  color: boolean | Paint,
  nextPlan: (to: string) => string,
): string {
  const p = paintOf(color);
  const s = oneLine;
  const { cluster, current } = list;
  const out = [
    p.bold(`Upgrade targets for ${s(cluster.name || '(no cluster)')}`) +
      p.dim(
        `  namespace ${s(cluster.namespace)}, context ${s(cluster.context || '-')}, ${s(cluster.platform)}`,
      ),
    `  now: operator ${s(current.operator ?? '?')}, cluster ${s(current.clusterVersion ?? '?')}`,
    '',
  ];
  if (list.targets.length === 0) {
    out.push(
      `  No newer release in ctl's catalog than operator ${s(current.operator ?? '?')}: nothing to upgrade to.`,
    );
    pushAvailable(out, list.available, p, (release) => release.operator.length, nextPlan);
    return `${out.join('\n')}\n`;
  }
  // A column as wide as its widest cell when that is wider than usual: a tag such as
  // 7.4.6-293.rhel8-openshift is wider than any fixed width, and pushed PATH out of its column.
  const width = Math.max(6, ...list.targets.map((t) => s(t.operator).length));
  const lineWidth = Math.max(5, ...list.targets.map((t) => s(t.line).length));
  const clusterWidth = Math.max(16, ...list.targets.map((t) => s(t.clusterVersion ?? '?').length));
  out.push(
    p.dim(
      `    ${'TARGET'.padEnd(width)}  ${'LINE'.padEnd(lineWidth)}  ${'CLUSTER'.padEnd(clusterWidth)}  PATH`,
    ),
  );
  for (const target of list.targets) {
    const mark = target.recommended ? p.green('*') : ' ';
    const status = target.blocked
      ? p.red(`blocked: ${target.blocking.map((b) => s(b.id)).join(', ')}`)
      : target.advisories.length > 0
        ? p.yellow(`ready, but affected by ${target.advisories.map(s).join(', ')}`)
        : p.green('ready');
    out.push(
      `  ${mark} ${s(target.operator).padEnd(width)}  ${s(target.line).padEnd(lineWidth)}  ${s(target.clusterVersion ?? '?').padEnd(clusterWidth)}  ${describePath(target)}  ${status}`,
    );
    for (const check of target.blocking) {
      out.push(`        ${p.red('FAIL')} ${s(check.id)}: ${s(check.message)}`);
      if (check.fix) out.push(`          ${p.dim('fix:')} ${s(check.fix)}`);
    }
  }
  pushAvailable(out, list.available, p, () => width, nextPlan);
  out.push('');
  out.push(
    list.recommended
      ? // Two lines: together they passed 100 columns, and the command broke across the wrap.
        `${p.green('*')} recommended (the newest no check blocks and no known advisory affects).\nNext: ${s(nextPlan(list.recommended))}`
      : p.yellow(
          'Every target is blocked or affected by a known advisory: fix the checks above, then plan again.',
        ),
  );
  out.push(p.dim(`Paths of at most ${list.maxHops} hop(s) (--max-hops).`));
  return `${out.join('\n')}\n`;
}

/** A release the install method offers that the catalog lacks, and how to use it. */
/** The releases available outside the catalog, capped (a PackageManifest may list thousands). */
function pushAvailable(
  out: string[],
  available: readonly AvailableRelease[],
  p: Paint,
  width: (release: AvailableRelease) => number,
  nextPlan: (to: string) => string,
): void {
  const { shown, more } = capList(available);
  for (const release of shown) out.push(availableLine(release, p, width(release), nextPlan));
  if (more > 0) out.push(`    ${p.dim(moreLine(more, 'available releases'))}`);
}

function availableLine(
  release: AvailableRelease,
  p: Paint,
  width: number,
  nextPlan: (to: string) => string,
): string {
  const s = oneLine;
  // The plan command names the cluster as the list was asked for (--kubeconfig, --context, -n ...).
  // Its placeholders are plain words (IMAGE_TAG), inert when pasted: `<tag>` is a redirection.
  return `  ${p.yellow('+')} ${s(release.operator).padEnd(width)}  available, not in ctl's catalog (${s(release.foundIn)}): ${s(nextPlan(release.operator))} --cluster-version IMAGE_TAG (its cluster image tag), or --catalog FILE_OR_URL that lists it`;
}

function describePath(target: UpgradeTarget): string {
  if (target.oneHop) return 'one hop';
  return `${target.hops.length} hops: ${target.hops.map((hop) => oneLine(hop.operator)).join(' -> ')}`;
}
