/**
 * The commands a printed plan shows (its manual steps, `$ ...`, and its checks' fixes) are pasted
 * into a shell as they are. A placeholder in the form `<digest of ...>` inside the quotes of a
 * JSON body or an argument is sent to the API server as it is, and one outside them is a
 * redirection: a value ctl cannot know is a shell variable the line sets (or the reader sets,
 * `${NAME:?}` stopping the line while unset), a capital word outside quotes otherwise. This
 * plans several simulated clusters and reads every printed command for `<` in quotes or bare,
 * and has sh parse it (`sh -n`).
 */

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { before, describe, it } from 'node:test';
import { createKubeClients, loadKubeConfig } from '../../../src/kube/client.js';
import { createClusterReads } from '../../../src/kube/reads.js';
import { renderPlan } from '../../../src/planning/render-plan.js';
import { readSnapshot } from '../../../src/planning/snapshot.js';
import { resolveTarget } from '../../../src/planning/target.js';
import { type SimulatedCluster, startSimulatedCluster } from '../../../src/sim/cluster.js';
import { loadScenario, parseScenario, type Scenario } from '../../../src/sim/scenario.js';
import { planUpgrade, REQUIRED_PERMISSIONS } from '../../../src/steps/index.js';

const DIGEST = `sha256:${'0a1b2c3d'.repeat(8)}`;

/** A bundle install whose node and rigger images are pinned by digest, auto-upgrade off. */
const BUNDLE_DIGESTS = `
name: bundle-digests
description: bundle install with the node and rigger images pinned by digest
dialect: redis
operator:
  version: 7.4.6-2
cluster:
  versionTag: 7.4.6-22
  digestHash: "${DIGEST}"
  imageSpecs:
    rigger: { versionTag: 7.4.6-2, digestHash: "${DIGEST}" }
databases:
  - { name: cache, version: "7.2" }
`;

/** Each scenario and the target planned for it. */
const SCENARIOS: { scenario: () => Scenario; to: string }[] = [
  { scenario: () => loadScenario('happy-path'), to: '7.8.6-20' },
  { scenario: () => loadScenario('olm-manual'), to: '7.8.6-20' },
  { scenario: () => loadScenario('legacy-webhook'), to: '7.8.6-20' },
  { scenario: () => loadScenario('helm-installed'), to: '7.8.6-20' },
  { scenario: () => loadScenario('openshift'), to: '7.8.6-20' },
  { scenario: () => parseScenario(BUNDLE_DIGESTS, 'bundle-digests'), to: '7.8.6-20' },
];

interface Printed {
  scenario: string;
  /** The manual steps' commands, as printed after `$ `. */
  commands: string[];
  /** The checks' fixes, as printed after `fix: `. */
  fixes: string[];
}

/** The printed plan of one simulated cluster, planned as `ctl upgrade plan --to` plans it. */
async function printedPlan(sim: SimulatedCluster, to: string): Promise<Printed> {
  const loaded = await loadKubeConfig({ kubeconfig: sim.kubeconfigPath, env: {} });
  const clients = await createKubeClients(loaded, () => {});
  const snapshot = await readSnapshot({
    kube: createClusterReads(clients),
    context: loaded.contextName,
    namespace: loaded.namespace ?? 'default',
    requiredPermissions: REQUIRED_PERMISSIONS,
  });
  const target = resolveTarget({ to, bundle: sim.env.CTL_BUNDLE, helmRepo: sim.env.CTL_HELM_REPO });
  const lines = renderPlan(planUpgrade(snapshot, target), false).split('\n');
  const following = (prefix: RegExp) =>
    lines.flatMap((line) => {
      const match = prefix.exec(line);
      return match ? [line.slice(match[0].length)] : [];
    });
  return { scenario: sim.scenario.name, commands: following(/^\s+\$ /), fixes: following(/^\s+fix: /) };
}

/**
 * What sh reads inside quotes in a command line ('...', "..."), and the `<` it reads outside
 * them (a redirection). Inside "...", `$(...)` and its own quotes count as the double quote's.
 */
function quoting(line: string): { quoted: string[]; bare: string[] } {
  const quoted: string[] = [];
  const bare: string[] = [];
  let quote: "'" | '"' | undefined;
  let text = '';
  for (let i = 0; i < line.length; i += 1) {
    const char = line[i] as string;
    if (quote === "'") {
      if (char === "'") [quoted[quoted.length], text, quote] = [text, '', undefined];
      else text += char;
    } else if (quote === '"') {
      if (char === '\\') text += line[++i] ?? '';
      else if (char === '"') [quoted[quoted.length], text, quote] = [text, '', undefined];
      else text += char;
    } else if (char === '\\') i += 1;
    else if (char === "'" || char === '"') quote = char;
    else if (char === '<') bare.push(line.slice(i, i + 20));
  }
  assert.equal(quote, undefined, `a quote left open: ${line}`);
  return { quoted, bare };
}

describe('the commands a printed plan shows can be pasted', () => {
  const printed: Printed[] = [];

  before(async () => {
    for (const { scenario, to } of SCENARIOS) {
      const sim = await startSimulatedCluster({ scenario: scenario(), fast: true });
      try {
        printed.push(await printedPlan(sim, to));
      } finally {
        await sim.stop();
      }
    }
  });

  it('plans every scenario, with commands', () => {
    assert.deepEqual(
      printed.map((p) => p.scenario),
      ['happy-path', 'olm-manual', 'legacy-webhook', 'helm-installed', 'openshift', 'bundle-digests'],
    );
    for (const plan of printed)
      assert.ok(plan.commands.length > 2, `${plan.scenario}: ${plan.commands.join('\n')}`);
  });

  it('no manual step has a <placeholder>, in quotes or outside them, and sh parses each', () => {
    for (const { scenario, commands } of printed) {
      for (const command of commands) {
        const { quoted, bare } = quoting(command);
        assert.deepEqual(
          quoted.filter((text) => text.includes('<')),
          [],
          `${scenario}: a < inside quotes: ${command}`,
        );
        assert.deepEqual(bare, [], `${scenario}: a redirection from <: ${command}`);
        execFileSync('sh', ['-n', '-c', command]);
      }
    }
  });

  it('no fix has a <placeholder>', () => {
    for (const { scenario, fixes } of printed) {
      for (const fix of fixes) assert.doesNotMatch(fix, /<[A-Za-z]/, `${scenario}: ${fix}`);
    }
  });

  it('what ctl cannot know is a shell variable: the OLM target CSV digest, the digest the reader looks up', () => {
    const olm = printed.find((p) => p.scenario === 'olm-manual');
    const patch = olm?.commands.find((c) => c.includes(' patch rec '));
    assert.ok(patch, olm?.commands.join('\n'));
    assert.match(
      patch,
      /^REDIS_ENTERPRISE_DIGEST=\$\(kubectl get csv redis-enterprise-operator\.v7\.8\.6-20 -n redis -o 'jsonpath=\{range \.spec\.relatedImages\[\*\]\}\{\.name\}\{"\\t"\}\{\.image\}\{"\\n"\}\{end\}' \| RELATED_NAME=redis-enterprise-node RELATED_REPOSITORY=\S+ awk '[^']+'\) && kubectl /,
    );
    assert.ok(patch.includes(`"digestHash":"'"\${REDIS_ENTERPRISE_DIGEST:?}"'"`), patch);

    const bundle = printed.find((p) => p.scenario === 'bundle-digests');
    const fix = bundle?.fixes.find((f) => f.includes('digestHash'));
    assert.ok(fix, bundle?.fixes.join('\n'));
    assert.match(
      fix,
      /with the shell variable REDIS_ENTERPRISE_DIGEST set to the digest \(sha256:\.\.\.\) of redislabs\/redis:\S+, and /,
    );
    assert.match(
      fix,
      /, and REDIS_ENTERPRISE_SERVICES_RIGGER_DIGEST set to the digest \(sha256:\.\.\.\) of \S+:7\.8\.6-20, run kubectl /,
    );
    assert.ok(fix.includes(`"'"\${REDIS_ENTERPRISE_DIGEST:?}"'"`), fix);
    assert.ok(fix.includes(`"'"\${REDIS_ENTERPRISE_SERVICES_RIGGER_DIGEST:?}"'"`), fix);
  });
});
