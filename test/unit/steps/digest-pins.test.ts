import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { KubeObject } from '../../../src/kube/reads.js';
import { runChecks } from '../../../src/planning/checks/index.js';
import { buildClusterPatch } from '../../../src/planning/cluster-patch.js';
import {
  OLM_API_VERSION,
  type OlmSnapshot,
  relatedDigest,
  type RelatedImage,
  relatedImageName,
} from '../../../src/planning/olm.js';
import { type Snapshot, toCluster } from '../../../src/planning/snapshot.js';
import { createClusterStep } from '../../../src/steps/cluster.js';
import { imageAtTarget } from '../../../src/steps/image-at-target.js';
import { planUpgrade, REQUIRED_PERMISSIONS } from '../../../src/steps/index.js';
import { makeSnapshot, makeTarget } from '../planning/snapshot-fixture.js';
import { harness } from './fakes.js';

const REC = { apiVersion: 'app.redislabs.com/v1', kind: 'RedisEnterpriseCluster' };
const OLD = 'sha256:0ld0ld';

/** A REC as an OLM install writes it: every image spec pinned by digest. */
function pinnedRec(): KubeObject {
  return {
    ...REC,
    metadata: { name: 'rec', namespace: 'redis' },
    spec: {
      nodes: 3,
      redisEnterpriseImageSpec: { repository: 'redislabs/redis', versionTag: '7.4.6-22', digestHash: OLD },
      bootstrapperImageSpec: { repository: 'redislabs/operator', versionTag: '7.4.6-2' },
      usageMeter: {
        callHomeClient: { imageSpec: { repository: 'redislabs/re-call-home-client', versionTag: '7.4.6-2' } },
      },
      upgradeSpec: { autoUpgradeRedisEnterprise: false },
    },
    status: { state: 'Running' },
  };
}

describe('the snapshot reads all four image specs', () => {
  it('usageMeter.callHomeClient.imageSpec is one of the other images', () => {
    const cluster = toCluster(pinnedRec(), 'redis', 'redis');
    assert.deepEqual(Object.keys(cluster.otherImages).sort(), [
      'bootstrapperImageSpec',
      'usageMeter.callHomeClient.imageSpec',
    ]);
    assert.equal(cluster.otherImages['usageMeter.callHomeClient.imageSpec']?.versionTag, '7.4.6-2');
  });
});

describe('auto-upgrade-digest looks at every image spec', () => {
  for (const field of [
    'bootstrapperImageSpec',
    'redisEnterpriseServicesRiggerImageSpec',
    'usageMeter.callHomeClient.imageSpec',
  ]) {
    it(`auto-upgrade with a digestHash in ${field} fails, and the fix removes that digest`, () => {
      const snapshot = makeSnapshot((s) => {
        s.cluster!.autoUpgrade = true;
        s.cluster!.otherImages[field] = { repository: 'redislabs/x', versionTag: '7.4.6-2', digestHash: OLD };
      });
      const check = runChecks(snapshot, makeTarget(), { required: REQUIRED_PERMISSIONS }).find(
        (c) => c.id === 'auto-upgrade-digest',
      )!;
      assert.equal(check.status, 'fail');
      assert.match(check.message, new RegExp(`${field.replaceAll('.', '\\.')}\\.digestHash`));
      const nested = field
        .split('.')
        .reduceRight<unknown>((inner, key) => ({ [key]: inner }), { digestHash: null });
      assert.ok(check.fix.includes(JSON.stringify({ spec: nested })), check.fix);
    });
  }
});

describe('the cluster patch moves digests with their tags, or refuses', () => {
  it('with the target digest known, the digest moves in the same patch as the tag', () => {
    const cluster = toCluster(pinnedRec(), 'redis', 'redis');
    const patch = buildClusterPatch({}, cluster, 'redis', '7.8.2-60', '7.8.2-6', (repo, tag) =>
      repo === 'redislabs/redis' && tag === '7.8.2-60' ? 'sha256:n3w' : undefined,
    );
    assert.equal(patch.kind, 'patch');
    assert.deepEqual(patch.kind === 'patch' && patch.body, {
      spec: {
        redisEnterpriseImageSpec: { versionTag: '7.8.2-60', digestHash: 'sha256:n3w' },
        bootstrapperImageSpec: { versionTag: '7.8.2-6' },
        usageMeter: { callHomeClient: { imageSpec: { versionTag: '7.8.2-6' } } },
      },
    });
  });

  it('with the target digest unknown, the plan is blocked with both fixes and the step shows no patch', () => {
    const snapshot = makeSnapshot((s) => {
      s.cluster!.image.digestHash = OLD;
    });
    const plan = planUpgrade(snapshot, makeTarget());
    const check = plan.checks.find((c) => c.id === 'auto-upgrade-digest')!;
    assert.equal(check.status, 'fail');
    assert.match(check.message, /redisEnterpriseImageSpec\.digestHash pins the image by digest/);
    assert.match(check.fix, /'\{"spec":\{"redisEnterpriseImageSpec":\{"digestHash":null\}\}\}'/);
    // The digest the reader looks up comes from a shell variable the fix names (unset, the
    // command stops): never a placeholder inside the quoted JSON.
    assert.match(
      check.fix,
      /with the shell variable REDIS_ENTERPRISE_DIGEST set to the digest \(sha256:\.\.\.\) of redislabs\/redis:7\.8\.2-60, run kubectl /,
    );
    assert.ok(
      check.fix.includes(
        `'{"spec":{"redisEnterpriseImageSpec":{"versionTag":"7.8.2-60","digestHash":"'"\${REDIS_ENTERPRISE_DIGEST:?}"'"}}}'`,
      ),
      check.fix,
    );
    assert.equal(plan.blocked, true);
    const step = plan.steps.find((s) => s.id === 'cluster')!;
    assert.match(step.skip ?? '', /refused/);
    assert.deepEqual(step.actions, []);
  });

  it('the run refuses before any write: never a new tag with an old digest', async () => {
    const h = harness({ target: { clusterVersion: '7.8.2-60' } });
    h.cluster.put(pinnedRec());
    await assert.rejects(
      h.run(createClusterStep({ wait: h.cluster.wait() })),
      (error: Error & { hint?: string }) => {
        assert.match(error.message, /digestHash pins the image by digest/);
        assert.match(error.hint ?? '', /"digestHash":null/);
        return true;
      },
    );
    assert.deepEqual(h.cluster.writes(), []);
    assert.equal(h.log.filter((e) => e.type === 'intent').length, 0);
  });

  it('plan and run send the same patch (one builder)', async () => {
    const unpinned = pinnedRec();
    delete (unpinned.spec as { redisEnterpriseImageSpec: { digestHash?: string } }).redisEnterpriseImageSpec
      .digestHash;
    const h = harness({ target: { clusterVersion: '7.8.2-60' } });
    h.cluster.put(unpinned);
    await h.run(createClusterStep({ wait: h.cluster.wait() }));
    const sent = (h.log.find((e) => e.type === 'write')?.data as { body: { spec: unknown } }).body.spec;
    const planned = buildClusterPatch(
      {},
      toCluster(unpinned, 'redis', 'redis'),
      'redis',
      '7.8.2-60',
      '7.8.2-6',
    );
    assert.equal(planned.kind, 'patch');
    assert.deepEqual(sent, planned.kind === 'patch' ? planned.body.spec : undefined);
  });
});

/** The certified CSV's relatedImages of the target, as the run reads them: two by digest, one by tag. */
const RELATED: RelatedImage[] = [
  {
    name: 'redis-enterprise-node',
    image: 'registry.connect.redhat.com/redislabs/redis-enterprise@sha256:n0de',
  },
  { name: 'services-rigger', image: 'registry.connect.redhat.com/redislabs/services-manager@sha256:r1gger' },
  { name: 'bootstrapper', image: 'registry.connect.redhat.com/redislabs/operator:7.8.2-6' },
];

/** The jsonpath the printed line asks kubectl for: each related image as `name<TAB>image`. */
const RELATED_JSONPATH = 'jsonpath={range .spec.relatedImages[*]}{.name}{"\\t"}{.image}{"\\n"}{end}';

/**
 * Runs a printed command through sh (in a folder of its own, its working directory) with a
 * kubectl of the test's: `get` answers RELATED_JSONPATH as kubectl would from `related` (a missing
 * name printed empty, kubectl's --allow-missing-template-keys default) and fails on any other
 * jsonpath; `patch` prints its -p argument. `made` lists what the line left in its folder.
 */
function runWithFakeKubectl(
  command: string,
  related: readonly RelatedImage[] = RELATED,
): { code: number; stdout: string; stderr: string; made: string[] } {
  const dir = mkdtempSync(path.join(tmpdir(), 'fake-kubectl-'));
  const bin = path.join(dir, 'bin');
  const work = path.join(dir, 'work');
  try {
    mkdirSync(bin);
    mkdirSync(work);
    writeFileSync(
      path.join(dir, 'related.tsv'),
      related.map((r) => `${r.name ?? ''}\t${r.image}\n`).join(''),
    );
    writeFileSync(
      path.join(bin, 'kubectl'),
      `#!/bin/sh\nif [ "$1" = get ]; then\n  for word; do\n` +
        `    if [ "$word" = '${RELATED_JSONPATH}' ]; then cat '${path.join(dir, 'related.tsv')}'; exit 0; fi\n` +
        `  done\n  echo "fake kubectl: no answer for $*" >&2\n  exit 1\nfi\n` +
        `while [ "$#" -gt 0 ] && [ "$1" != -p ]; do shift; done\nprintf '%s' "$2"\n`,
      { mode: 0o755 },
    );
    const result = spawnSync('sh', ['-c', command], {
      cwd: work,
      env: { PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}` },
      encoding: 'utf8',
    });
    return {
      code: result.status ?? -1,
      stdout: result.stdout,
      stderr: result.stderr,
      made: readdirSync(work),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('under OLM the printed patch reads the digests from the target CSV (run through sh)', () => {
  const csv = 'redis-enterprise-operator.v7.4.6-2';
  const olm: OlmSnapshot = {
    csv,
    subscription: {
      name: 'redis-enterprise-operator-cert',
      package: 'redis-enterprise-operator-cert',
      channel: '7.8.2',
      approval: 'Manual',
      source: 'certified-operators',
      sourceNamespace: 'openshift-marketplace',
      installedCSV: csv,
      currentCSV: csv,
      state: 'AtLatestKnown',
    },
    installPlans: [],
  };
  const clusterCommand = (mutate: (s: Snapshot) => void): { command: string; body: unknown } => {
    const snapshot = makeSnapshot((s) => {
      s.cluster!.image.digestHash = OLD;
      s.olm = structuredClone(olm);
      mutate(s);
    });
    const plan = planUpgrade(snapshot, makeTarget());
    assert.equal(plan.target.method, 'olm');
    const actions = plan.steps.find((step) => step.id === 'cluster')?.actions ?? [];
    assert.equal(actions.length, 1, JSON.stringify(plan.steps.find((step) => step.id === 'cluster')));
    // What the run sends once the CSV is installed (src/steps/olm-digests.ts): the same builder,
    // the digests looked up in the CSV's relatedImages as the run looks them up.
    const run = buildClusterPatch(
      {},
      snapshot.cluster!,
      'redis',
      plan.target.clusterVersion ?? '',
      '7.8.2-6',
      (repository, _tag, image) => relatedDigest(RELATED, repository, relatedImageName(image)),
    );
    return { command: actions[0]!.command, body: run.kind === 'patch' ? run.body : run };
  };

  it('sets each variable from the CSV, then sends exactly the patch the run sends', () => {
    const { command, body } = clusterCommand((s) => {
      s.cluster!.otherImages.redisEnterpriseServicesRiggerImageSpec = {
        repository: 'redislabs/services-manager',
        versionTag: '7.4.6-2',
        digestHash: OLD,
      };
    });
    assert.match(
      command,
      /^REDIS_ENTERPRISE_DIGEST=\$\(kubectl get csv redis-enterprise-operator\.v7\.8\.2-6 -n redis /,
    );
    assert.match(command, / && REDIS_ENTERPRISE_SERVICES_RIGGER_DIGEST=\$\(kubectl get csv /);
    assert.doesNotMatch(command, /</);
    const result = runWithFakeKubectl(command);
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual(JSON.parse(result.stdout), body);
    assert.match(result.stdout, /"digestHash":"sha256:n0de"/);
    assert.match(result.stdout, /"digestHash":"sha256:r1gger"/);
  });

  it('a related image named by tag leaves its variable empty: the line stops before the patch', () => {
    const { command } = clusterCommand((s) => {
      s.cluster!.otherImages.bootstrapperImageSpec = {
        repository: 'redislabs/operator',
        versionTag: '7.4.6-2',
        digestHash: OLD,
      };
    });
    assert.match(command, /BOOTSTRAPPER_DIGEST=/);
    const result = runWithFakeKubectl(command);
    assert.notEqual(result.code, 0);
    assert.equal(result.stdout, '', 'no patch was sent');
    assert.match(result.stderr, /BOOTSTRAPPER_DIGEST/);
  });
});

describe('under OLM the printed line and the run take the digest by one rule (run through sh)', () => {
  const installed = 'redis-enterprise-operator.v7.4.6-2';
  const TARGET_CSV = 'redis-enterprise-operator.v7.8.2-6';
  const olm: OlmSnapshot = {
    csv: installed,
    subscription: {
      name: 'redis-enterprise-operator-cert',
      package: 'redis-enterprise-operator-cert',
      channel: '7.8.2',
      approval: 'Manual',
      installedCSV: installed,
      currentCSV: TARGET_CSV,
      state: 'AtLatestKnown',
    },
    installPlans: [],
  };

  /**
   * One harness for both halves: the plan ctl prints from the snapshot, and the cluster step run
   * against a fake cluster holding that REC and the target CSV (installed by the operator step).
   */
  async function planAndRun(
    rec: KubeObject,
    related: readonly RelatedImage[],
    target: { clusterVersion?: string; to?: string } = {},
  ) {
    const targetCsv = target.to ? `redis-enterprise-operator.v${target.to}` : TARGET_CSV;
    const h = harness({
      target,
      snapshot: (s) => {
        s.cluster = toCluster(rec, 'redis', 'redis');
        s.olm = structuredClone(olm);
      },
    });
    assert.equal(h.deps.plan.target.method, 'olm');
    h.cluster.put(structuredClone(rec));
    h.cluster.put({
      apiVersion: OLM_API_VERSION,
      kind: 'ClusterServiceVersion',
      metadata: { name: targetCsv, namespace: 'redis' },
      spec: { relatedImages: related.map((r) => (r.name === undefined ? { image: r.image } : r)) },
    });
    const step = h.deps.plan.steps.find((s) => s.id === 'cluster')!;
    const check = h.deps.plan.checks.find((c) => c.id === 'auto-upgrade-digest')!;
    const run = await h.run(createClusterStep({ wait: h.cluster.wait() })).then(
      () => undefined,
      (error: Error) => error,
    );
    const write = h.log.find((e) => e.type === 'write')?.data as { body: unknown } | undefined;
    return { plan: h.deps.plan, step, check, run, sent: write?.body, writes: h.cluster.writes() };
  }

  /** The printed line through sh: the patch it sends, or that it stopped before any. */
  function printed(step: { actions: { command: string }[] }, related: readonly RelatedImage[]) {
    assert.equal(step.actions.length, 1, JSON.stringify(step));
    const result = runWithFakeKubectl(step.actions[0]!.command, related);
    assert.deepEqual(result.made, [], 'the line made no file');
    return result;
  }

  it("--cluster-version other than the release's own: the plan refuses as the run does, naming the release tag", async () => {
    // Before, the plan printed a line that read the release image's digest (7.8.2-60) and set it
    // next to the tag 7.8.2-34; the run refused.
    const result = await planAndRun(pinnedRec(), RELATED, { clusterVersion: '7.8.2-34' });
    const why = `${TARGET_CSV} relates the node image of 7.8.2-60 only, not of --cluster-version 7.8.2-34`;
    assert.ok(result.run instanceof Error, 'the run refuses');
    assert.ok(result.run.message.includes(why), result.run.message);
    assert.deepEqual(result.writes, [], 'the run changed nothing');
    assert.equal(result.check.status, 'fail');
    assert.ok(result.check.message.includes(why), result.check.message);
    assert.match(result.check.fix, /"digestHash":null/);
    assert.equal(result.plan.blocked, true);
    assert.match(result.step.skip ?? '', /^refused \(auto-upgrade-digest\): /);
    assert.ok((result.step.skip ?? '').includes(why), result.step.skip ?? undefined);
    assert.deepEqual(result.step.actions, []);
  });

  it("--cluster-version naming the release's own tag: the line sends what the run sends", async () => {
    const result = await planAndRun(pinnedRec(), RELATED, { clusterVersion: '7.8.2-60' });
    assert.equal(result.run, undefined, String(result.run));
    assert.equal(result.check.status, 'pass');
    const line = printed(result.step, RELATED);
    assert.equal(line.code, 0, line.stderr);
    assert.deepEqual(JSON.parse(line.stdout), result.sent);
    assert.match(line.stdout, /"digestHash":"sha256:n0de"/);
  });

  it('a CSV without the name: both take the entry of the repository (a registry port is no tag)', async () => {
    const rec = pinnedRec();
    const spec = rec.spec as { redisEnterpriseImageSpec: { repository: string } };
    spec.redisEnterpriseImageSpec.repository = 'registry:5000/redislabs/redis';
    const related: RelatedImage[] = [
      { name: 'services-rigger', image: 'registry:5000/redislabs/services-manager@sha256:r1gger' },
      { name: undefined, image: 'registry:5000/redislabs/redis-enterprise@sha256:0ther' },
      { name: undefined, image: 'registry:5000/redislabs/redis:7.8.2-60@sha256:p0rt' },
      { name: undefined, image: 'registry:5000/redislabs/redis@sha256:second' },
    ];
    const result = await planAndRun(rec, related);
    assert.equal(result.run, undefined, String(result.run));
    assert.match(JSON.stringify(result.sent), /"digestHash":"sha256:p0rt"/);
    const line = printed(result.step, related);
    assert.equal(line.code, 0, line.stderr);
    assert.deepEqual(JSON.parse(line.stdout), result.sent);
  });

  it('the entry of the name, by tag, decides before the repository: both stop', async () => {
    const related: RelatedImage[] = [
      { name: 'redis-enterprise-node', image: 'redislabs/redis:7.8.2-60' },
      { name: undefined, image: 'redislabs/redis@sha256:byrepo' },
    ];
    const result = await planAndRun(pinnedRec(), related);
    assert.ok(result.run instanceof Error, 'the run refuses');
    assert.ok(result.run.message.includes(`${TARGET_CSV} spec.relatedImages has no digest for it`));
    assert.deepEqual(result.writes, []);
    const line = printed(result.step, related);
    assert.notEqual(line.code, 0);
    assert.equal(line.stdout, '', 'no patch was sent');
    assert.match(line.stderr, /REDIS_ENTERPRISE_DIGEST/);
  });

  it('the repository is data: quoted for sh, handed to awk in the environment, never run', async () => {
    const rec = pinnedRec();
    const hostile = `redislabs/redis'"$(touch made)"\`touch made\`;touch made`;
    (rec.spec as { redisEnterpriseImageSpec: { repository: string } }).redisEnterpriseImageSpec.repository =
      hostile;
    const related: RelatedImage[] = [{ name: undefined, image: `${hostile}@sha256:h0stile` }];
    const result = await planAndRun(rec, related);
    assert.equal(result.run, undefined, String(result.run));
    const line = printed(result.step, related);
    assert.equal(line.code, 0, line.stderr);
    assert.deepEqual(JSON.parse(line.stdout), result.sent);
    assert.match(line.stdout, /"digestHash":"sha256:h0stile"/);
  });
  /**
   * A cluster on the minimal base image (`<tag>.minimal`, redis.io kubernetes/security/
   * minimal-base-image.md): the certified CSV relates it as `redis-enterprise-node-minimal`, in the
   * same repository as the full image (certified-operators redis-enterprise-operator-cert
   * 8.0.18-11.0 and 8.2.0-13.0, spec.relatedImages). Names here are the CSV's; digests made up.
   */
  const RH = 'registry.connect.redhat.com/redislabs';
  const MINIMAL_TARGET = '8.0.20-25';
  const MINIMAL_RELATED: RelatedImage[] = [
    { name: 'redis-enterprise-operator', image: `${RH}/redis-enterprise-operator@sha256:0perat0r` },
    { name: 'services-rigger', image: `${RH}/services-manager@sha256:r1gger` },
    { name: 'redis-enterprise-node', image: `${RH}/redis-enterprise@sha256:fu11` },
    { name: 'redis-enterprise-node-minimal', image: `${RH}/redis-enterprise@sha256:m1n1mal` },
    { name: 'call-home-client', image: `${RH}/call-home-client@sha256:ca11` },
  ];
  function minimalRec(): KubeObject {
    const rec = pinnedRec();
    const spec = rec.spec as { redisEnterpriseImageSpec: Record<string, unknown> };
    spec.redisEnterpriseImageSpec = {
      repository: `${RH}/redis-enterprise`,
      versionTag: '8.0.18-36.14.minimal',
      digestHash: OLD,
    };
    return rec;
  }

  it('a cluster on the .minimal image: plan and run take the digest of redis-enterprise-node-minimal', async () => {
    // Before, both looked up redis-enterprise-node (or the first entry of the shared repository)
    // and set the full image's digest next to the .minimal tag: the nodes would pull the full image.
    const result = await planAndRun(minimalRec(), MINIMAL_RELATED, { to: MINIMAL_TARGET });
    assert.equal(result.run, undefined, String(result.run));
    assert.equal(result.check.status, 'pass', result.check.message);
    const sent = JSON.stringify(result.sent);
    assert.match(sent, /"versionTag":"8\.0\.20-68\.25\.minimal"/);
    assert.match(sent, /"digestHash":"sha256:m1n1mal"/);
    assert.doesNotMatch(sent, /fu11/);
    const command = result.step.actions[0]?.command ?? '';
    assert.match(command, /RELATED_NAME=redis-enterprise-node-minimal awk /);
    // By name only: the repository is the full image's too.
    assert.doesNotMatch(command, /RELATED_REPOSITORY=/);
    const line = printed(result.step, MINIMAL_RELATED);
    assert.equal(line.code, 0, line.stderr);
    assert.deepEqual(JSON.parse(line.stdout), result.sent);
  });

  it('a CSV that relates no minimal node image: both stop, neither takes the full image by its repository', async () => {
    const related = MINIMAL_RELATED.filter((r) => r.name !== 'redis-enterprise-node-minimal');
    const result = await planAndRun(minimalRec(), related, { to: MINIMAL_TARGET });
    assert.ok(result.run instanceof Error, 'the run refuses');
    assert.ok(
      result.run.message.includes(
        `redis-enterprise-operator.v${MINIMAL_TARGET} spec.relatedImages has no digest for it`,
      ),
      result.run.message,
    );
    assert.deepEqual(result.writes, [], 'the run changed nothing');
    const line = printed(result.step, related);
    assert.notEqual(line.code, 0);
    assert.equal(line.stdout, '', 'no patch was sent');
    assert.match(line.stderr, /REDIS_ENTERPRISE_DIGEST/);
  });

  it('a cluster on the full image keeps taking redis-enterprise-node, wherever the minimal one is listed', async () => {
    const rec = minimalRec();
    const spec = rec.spec as { redisEnterpriseImageSpec: Record<string, unknown> };
    spec.redisEnterpriseImageSpec.versionTag = '8.0.18-36.14';
    const related = [...MINIMAL_RELATED].reverse();
    const result = await planAndRun(rec, related, { to: MINIMAL_TARGET });
    assert.equal(result.run, undefined, String(result.run));
    const sent = JSON.stringify(result.sent);
    assert.match(sent, /"versionTag":"8\.0\.20-68\.25"/);
    assert.match(sent, /"digestHash":"sha256:fu11"/);
    const line = printed(result.step, related);
    assert.equal(line.code, 0, line.stderr);
    assert.deepEqual(JSON.parse(line.stdout), result.sent);
  });
});

describe('the monitor never counts a digest-pinned old image as upgraded', () => {
  const facts = { tag: '7.8.2-60', oldDigest: OLD };
  it('the old digest is old whatever tag sits next to it', () => {
    assert.equal(imageAtTarget(`redislabs/redis@${OLD}`, facts), false);
    assert.equal(imageAtTarget(`redislabs/redis:7.8.2-60@${OLD}`, facts), false);
    assert.equal(imageAtTarget('redislabs/redis@0ld0ld', facts), false);
  });
  it('a new digest with the target tag, or the digest the resource pins now, is the target', () => {
    assert.equal(imageAtTarget('redislabs/redis:7.8.2-60@sha256:n3w', facts), true);
    assert.equal(imageAtTarget('redislabs/redis@sha256:n3w', { ...facts, specDigest: 'sha256:n3w' }), true);
    assert.equal(
      imageAtTarget('redislabs/redis@sha256:other', { ...facts, specDigest: 'sha256:n3w' }),
      false,
    );
  });
  it('tags alone compare as before; a registry port is not a tag', () => {
    assert.equal(imageAtTarget('registry:5000/redislabs/redis:7.8.2-60', facts), true);
    assert.equal(imageAtTarget('registry:5000/redislabs/redis:7.4.6-22', facts), false);
    assert.equal(imageAtTarget(undefined, facts), true);
  });
});

describe('operator-min-version: the cluster too must be at least 7.4.2-2 for 7.8.2-6+', () => {
  it('operator 7.4.6-2 with the cluster still on RS 7.2.4 fails and names the 7.4.6 hop', () => {
    const snapshot = makeSnapshot((s) => {
      s.cluster!.image.versionTag = '7.2.4-52';
      s.api.nodes = s.api.nodes.map((n) => ({ ...n, software_version: '7.2.4-52' }));
    });
    const check = runChecks(snapshot, makeTarget(), { required: REQUIRED_PERMISSIONS }).find(
      (c) => c.id === 'operator-min-version',
    )!;
    assert.equal(check.status, 'fail');
    assert.match(check.message, /the cluster runs RS 7\.2\.4, older than 7\.4\.2-2/);
    assert.match(
      check.fix,
      /first ctl upgrade run --to 7\.4\.6-\d+ \(it upgrades the cluster to 7\.4\.6-\d+\), then --to 7\.8\.2-6/,
    );
  });

  it('a 7.4 cluster passes, and targets before 7.8.2-6 do not ask for it', () => {
    assert.equal(
      runChecks(makeSnapshot(), makeTarget(), { required: REQUIRED_PERMISSIONS }).find(
        (c) => c.id === 'operator-min-version',
      )!.status,
      'pass',
    );
    const old = makeSnapshot((s) => {
      s.cluster!.image.versionTag = '7.2.4-52';
      s.api.nodes = s.api.nodes.map((n) => ({ ...n, software_version: '7.2.4-52' }));
    });
    const check = runChecks(old, makeTarget({ to: '7.4.6-7' }), { required: REQUIRED_PERMISSIONS }).find(
      (c) => c.id === 'operator-min-version',
    )!;
    assert.equal(check.status, 'pass');
  });
});
