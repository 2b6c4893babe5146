import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runChecks } from '../../../src/planning/checks/index.js';
import {
  csvVersion,
  olmDigestGap,
  olmOwnerOf,
  olmRoute,
  olmUpgradeCommands,
  type OlmSnapshot,
  readOlm,
  relatedDigest,
  type RelatedImage,
  relatedImageLookup,
  relatedImageName,
} from '../../../src/planning/olm.js';
import { hopTarget } from '../../../src/planning/hops.js';
import { resolveUpgrade } from '../../../src/planning/resolve.js';
import type { Snapshot } from '../../../src/planning/snapshot.js';
import { REQUIRED_PERMISSIONS } from '../../../src/steps/index.js';
import { makeSnapshot, makeTarget } from './snapshot-fixture.js';

const CSV = 'redis-enterprise-operator.v7.4.6-2';
const OLM: OlmSnapshot = {
  csv: CSV,
  subscription: {
    name: 'redis-enterprise-operator-cert',
    package: 'redis-enterprise-operator-cert',
    channel: '7.4.6',
    approval: 'Manual',
    source: 'certified-operators',
    sourceNamespace: 'openshift-marketplace',
    installedCSV: CSV,
    currentCSV: CSV,
    state: 'AtLatestKnown',
  },
  installPlans: [],
};

const WITH_CHANNELS: OlmSnapshot = {
  ...OLM,
  channels: [
    { name: '7.4.6', currentCSV: CSV, entries: [CSV] },
    {
      name: '7.8.2',
      currentCSV: 'redis-enterprise-operator.v7.8.2-6',
      entries: ['redis-enterprise-operator.v7.8.2-6', 'redis-enterprise-operator.v7.8.2-2'],
    },
  ],
};

const withOlm =
  (olm: OlmSnapshot = OLM) =>
  (s: Snapshot) => {
    s.olm = structuredClone(olm);
  };

function operatorMethod(mutate: (s: Snapshot) => void, flags: Parameters<typeof makeTarget>[0] = {}) {
  const check = runChecks(makeSnapshot(mutate), makeTarget(flags), { required: REQUIRED_PERMISSIONS }).find(
    (c) => c.id === 'operator-method',
  );
  assert.ok(check);
  return check;
}

describe('OLM-owned operators', () => {
  it('finds the owning CSV by owner reference or by OLM labels, and nothing otherwise', () => {
    assert.equal(
      olmOwnerOf({
        metadata: { ownerReferences: [{ kind: 'ClusterServiceVersion', name: CSV }] as never },
      }),
      CSV,
    );
    assert.equal(
      olmOwnerOf({
        metadata: { labels: { 'olm.owner': CSV, 'olm.owner.kind': 'ClusterServiceVersion' } },
      }),
      CSV,
    );
    assert.equal(olmOwnerOf({ metadata: { labels: { app: 'redis-enterprise' } } }), undefined);
    assert.equal(olmOwnerOf(undefined), undefined);
  });

  it('reads the Subscription that installed the CSV and the InstallPlans, pending first', async () => {
    const reads = {
      listCustomObjects: async (type: { plural: string }) =>
        type.plural === 'subscriptions'
          ? [
              {
                metadata: { name: 'other' },
                spec: { name: 'other-operator' },
                status: { installedCSV: 'x.v1' },
              },
              {
                metadata: { name: 'redis-enterprise-operator-cert' },
                spec: {
                  name: 'redis-enterprise-operator-cert',
                  channel: 'production',
                  installPlanApproval: 'Manual',
                  source: 'certified-operators',
                },
                status: { installedCSV: CSV, state: 'UpgradePending', installPlanRef: { name: 'install-b' } },
              },
            ]
          : [
              {
                metadata: { name: 'install-a' },
                spec: { clusterServiceVersionNames: [CSV], approved: true },
                status: { phase: 'Complete' },
              },
              {
                metadata: { name: 'install-b' },
                spec: {
                  clusterServiceVersionNames: ['redis-enterprise-operator.v8.2.0-13'],
                  approved: false,
                },
                status: { phase: 'RequiresApproval' },
              },
            ],
    };
    const olm = await readOlm(reads, 'redis', CSV);
    assert.equal(olm.subscription?.name, 'redis-enterprise-operator-cert');
    assert.equal(olm.subscription?.channel, 'production');
    assert.equal(olm.subscription?.installPlan, 'install-b');
    assert.deepEqual(
      olm.installPlans.map((p) => [p.name, p.approved, p.phase]),
      [
        ['install-b', false, 'RequiresApproval'],
        ['install-a', true, 'Complete'],
      ],
    );
    const failing = await readOlm(
      { listCustomObjects: async () => Promise.reject(new Error('forbidden')) },
      'redis',
      CSV,
    );
    assert.equal(failing.subscription, undefined);
    assert.match(failing.readError ?? '', /forbidden/);
  });

  it('--method auto resolves to olm, never bundle or helm', () => {
    const snapshot = makeSnapshot(withOlm());
    assert.equal(resolveUpgrade(snapshot, makeTarget()).method, 'olm');
    assert.equal(resolveUpgrade(makeSnapshot(), makeTarget()).method, 'bundle');
  });

  it('operator-method refuses --method bundle and helm with the OLM commands', () => {
    for (const method of ['bundle', 'helm'] as const) {
      const check = operatorMethod(withOlm(), { method });
      assert.equal(check.status, 'fail', method);
      assert.match(check.message, new RegExp(`OLM puts back any ${method} change`));
      assert.match(
        check.fix,
        /oc patch subscription redis-enterprise-operator-cert -n redis --type merge -p '\{"spec":\{"channel":"7\.8\.2"\}\}'/,
      );
      assert.match(check.fix, /oc patch installplan .* --type merge -p '\{"spec":\{"approved":true\}\}'/);
      assert.match(check.fix, /oc wait csv\/redis-enterprise-operator\.v7\.8\.2-6 /);
    }
  });

  it('operator-method with auto: passes when a channel has the target as its head, fails when unknown, passes once installed', () => {
    const routed = operatorMethod(withOlm(WITH_CHANNELS));
    assert.equal(routed.status, 'pass');
    assert.match(
      routed.message,
      /ctl switches the channel from 7\.4\.6 to 7\.8\.2, whose head is redis-enterprise-operator\.v7\.8\.2-6; ctl approves the InstallPlan of redis-enterprise-operator\.v7\.8\.2-6 and no other/,
    );
    const unread = operatorMethod(withOlm({ ...OLM, packageError: 'packagemanifests is forbidden' }));
    assert.equal(unread.status, 'fail');
    assert.match(
      unread.message,
      /PackageManifest of redis-enterprise-operator-cert could not be read \(packagemanifests is forbidden\)/,
    );
    assert.match(unread.fix, /grant get on packagemanifests\.packages\.operators\.coreos\.com in redis/);
    const nowhere = operatorMethod(
      withOlm({
        ...WITH_CHANNELS,
        channels: [
          {
            name: '7.8.2',
            currentCSV: 'redis-enterprise-operator.v7.8.2-7',
            entries: ['redis-enterprise-operator.v7.8.2-6'],
          },
        ],
      }),
    );
    assert.equal(nowhere.status, 'fail');
    assert.match(
      nowhere.message,
      /no channel of redis-enterprise-operator-cert has redis-enterprise-operator\.v7\.8\.2-6 as its head \(channels 7\.8\.2 hold it/,
    );
    // The fix names the head of the target's own release line first, with the command.
    assert.match(
      nowhere.fix,
      /^OLM installs a channel's head: the head of 7\.8\.2-6's release line is 7\.8\.2-7 \(channel 7\.8\.2\): ctl upgrade plan --to 7\.8\.2-7\./,
    );
    // Red Hat's certified package has a channel per release and per rebuild (about 40): the fix
    // names the newest few heads, each once with its channels, and the command that lists them all.
    const csvOf = (version: string) => `redis-enterprise-operator.v${version}`;
    const many = operatorMethod(
      withOlm({
        ...WITH_CHANNELS,
        channels: [
          { name: 'production', currentCSV: csvOf('8.0.20-25'), entries: [] },
          ...Array.from({ length: 30 }, (_, i) => ({
            name: `7.22.2-${i}.0`,
            currentCSV: csvOf(`7.22.2-${i}`),
            entries: [],
          })),
          { name: '8.0.20', currentCSV: csvOf('8.0.20-27'), entries: [] },
          { name: '8.0.20-27.1', currentCSV: `${csvOf('8.0.20-27')}.1`, entries: [] },
          { name: '8.0.20-25.0', currentCSV: csvOf('8.0.20-25'), entries: [] },
          { name: '6.2.10', currentCSV: csvOf('6.2.10-45'), entries: [] },
          { name: 'odd', currentCSV: 'some-other-operator.v1', entries: [] },
        ],
      }),
    );
    assert.equal(many.status, 'fail');
    assert.equal(
      many.fix,
      'Pick a target that is the head of a channel with --to: 8.0.20-27 (channels 8.0.20, 8.0.20-27.1), ' +
        '8.0.20-25 (channels production, 8.0.20-25.0), 7.22.2-29 (channel 7.22.2-29.0), ' +
        '7.22.2-28 (channel 7.22.2-28.0), 7.22.2-27 (channel 7.22.2-27.0), and 28 more: ' +
        'oc get packagemanifest redis-enterprise-operator-cert -n redis -o yaml.',
    );
    // Only heads newer than the running operator (7.4.6-2) are upgrade targets: the 6.2.10 channel
    // is left out above (28 more, not 29), and a target whose release line's head the operator
    // already runs gets no advice to "upgrade" to that head.
    const ownLineRunning = operatorMethod(
      withOlm({
        ...WITH_CHANNELS,
        channels: [
          { name: '7.4.6', currentCSV: csvOf('7.4.6-2'), entries: [] },
          { name: '7.2.4', currentCSV: csvOf('7.2.4-12'), entries: [] },
          { name: '8.0.20', currentCSV: csvOf('8.0.20-27'), entries: [] },
        ],
      }),
      { to: '7.4.6-12' },
    );
    assert.equal(ownLineRunning.status, 'fail');
    assert.equal(
      ownLineRunning.fix,
      "The head of 7.4.6-12's release line is 7.4.6-2 (channel 7.4.6), which is not newer than the running 7.4.6-2. " +
        'Pick a target that is the head of a channel with --to: 8.0.20-27 (channel 8.0.20).',
    );
    const nothingNewer = operatorMethod(
      withOlm({
        ...WITH_CHANNELS,
        channels: [
          { name: '7.4.6', currentCSV: csvOf('7.4.6-2'), entries: [] },
          { name: '7.2.4', currentCSV: csvOf('7.2.4-12'), entries: [] },
        ],
      }),
      { to: '7.8.6-20' },
    );
    assert.equal(nothingNewer.status, 'fail');
    assert.equal(
      nothingNewer.fix,
      'No channel offers an operator newer than the running 7.4.6-2 (the channels: ' +
        'oc get packagemanifest redis-enterprise-operator-cert -n redis -o yaml).',
    );
    const done = operatorMethod((s) => {
      withOlm()(s);
      if (s.operator) s.operator.version = '7.8.2-6';
    });
    assert.equal(done.status, 'pass');
    assert.equal(operatorMethod(() => undefined).status, 'pass');
  });

  it('olmRoute: keeps a channel whose head is the target, prefers the release line, reads rebuilt CSV names', () => {
    const onLine = olmRoute(
      { ...WITH_CHANNELS, subscription: { ...OLM.subscription!, channel: '7.8.2' } },
      '7.8.2-6',
    );
    assert.equal(onLine.channelHasTarget, true);
    assert.equal(onLine.targetChannel, '7.8.2');
    const production = olmRoute(
      {
        ...WITH_CHANNELS,
        channels: [
          { name: 'production', currentCSV: 'redis-enterprise-operator.v7.8.2-6', entries: [] },
          ...WITH_CHANNELS.channels!,
        ],
      },
      '7.8.2-6',
    );
    assert.equal(production.targetChannel, '7.8.2');
    assert.equal(csvVersion('redis-enterprise-operator.v7.22.0-11.2'), '7.22.0-11');
    assert.equal(csvVersion('redis-enterprise-operator.v7.8.2-6'), '7.8.2-6');
  });

  it("relatedDigest: by the name Redis's bundle gives the image, else by repository; none for another", () => {
    // The names and repositories of certified-operators redis-enterprise-operator-cert 7.22.0-11.2.
    const images: RelatedImage[] = [
      {
        name: 'redis-enterprise-node',
        image: 'registry.connect.redhat.com/redislabs/redis-enterprise@sha256:abc',
      },
      { name: 'services-rigger', image: 'registry.connect.redhat.com/redislabs/services-manager@sha256:def' },
      { name: undefined, image: 'r/op@sha256:123' },
      { name: 'call-home-client', image: 'docker.io/x:1.0' },
    ];
    assert.equal(
      relatedDigest(images, 'registry.connect.redhat.com/redislabs/redis-enterprise'),
      'sha256:abc',
    );
    assert.equal(relatedDigest(images, 'r/op'), 'sha256:123');
    // The cluster resource names Docker Hub's repository for the node: the name finds it.
    assert.equal(relatedDigest(images, 'redislabs/redis'), undefined);
    assert.equal(relatedDigest(images, 'redislabs/redis', 'redis-enterprise-node'), 'sha256:abc');
    assert.equal(
      relatedDigest(
        images,
        'redislabs/k8s-controller',
        relatedImageName({ field: 'redisEnterpriseServicesRiggerImageSpec', node: false }),
      ),
      'sha256:def',
    );
    assert.equal(
      relatedImageName({ field: 'redisEnterpriseImageSpec', node: true }),
      'redis-enterprise-node',
    );
    assert.equal(relatedImageName({ field: 'bootstrapperImageSpec', node: false }), 'bootstrapper');
    // Related by tag only: no digest to pin.
    assert.equal(relatedDigest(images, undefined, 'call-home-client'), undefined);
    assert.equal(relatedDigest(images, undefined), undefined);
  });

  it('a node image at a .minimal tag is redis-enterprise-node-minimal, looked up by that name only', () => {
    const node = { field: 'redisEnterpriseImageSpec', node: true };
    const repository = 'registry.connect.redhat.com/redislabs/redis-enterprise';
    assert.equal(relatedImageName(node, '8.2.0-78.18.minimal'), 'redis-enterprise-node-minimal');
    assert.equal(relatedImageName(node, '8.2.0-78.18'), 'redis-enterprise-node');
    // The old OpenShift suffix is a form of the full image, not a variant.
    assert.equal(relatedImageName(node, '7.4.6-22.rhel8-openshift'), 'redis-enterprise-node');
    assert.deepEqual(relatedImageLookup(repository, '8.2.0-78.18.minimal', node, '8.2.0-78.18.minimal'), {
      name: 'redis-enterprise-node-minimal',
      repository: undefined,
    });
    assert.deepEqual(relatedImageLookup(repository, '8.2.0-78.18', node, '8.2.0-78.18'), {
      name: 'redis-enterprise-node',
      repository,
    });
    // The certified CSV 8.2.0-13.0 lists both in one repository, the full image first.
    const images: RelatedImage[] = [
      { name: 'redis-enterprise-node', image: `${repository}@sha256:fu11` },
      { name: 'redis-enterprise-node-minimal', image: `${repository}@sha256:m1n1mal` },
    ];
    assert.equal(relatedDigest(images, undefined, 'redis-enterprise-node-minimal'), 'sha256:m1n1mal');
    assert.equal(relatedDigest(images.slice(0, 1), undefined, 'redis-enterprise-node-minimal'), undefined);
  });

  it('olm-approval warns when Automatic approval follows a channel whose head is past the target; olm-cluster-name expects rec', () => {
    const automatic: OlmSnapshot = {
      ...WITH_CHANNELS,
      subscription: { ...OLM.subscription!, approval: 'Automatic', channel: 'production' },
      channels: [
        { name: 'production', currentCSV: 'redis-enterprise-operator.v7.8.6-19', entries: [] },
        ...WITH_CHANNELS.channels!,
      ],
    };
    const checks = runChecks(makeSnapshot(withOlm(automatic)), makeTarget(), {
      required: REQUIRED_PERMISSIONS,
    });
    const approval = checks.find((c) => c.id === 'olm-approval');
    assert.equal(approval?.status, 'warn');
    assert.match(
      approval?.message ?? '',
      /head of its channel production is 7\.8\.6-19, past the target 7\.8\.2-6/,
    );
    assert.match(approval?.fix ?? '', /"installPlanApproval":"Manual"/);
    assert.match(approval?.fix ?? '', /--to 7\.8\.6-19/);
    const renamed = runChecks(
      makeSnapshot((s) => {
        withOlm(WITH_CHANNELS)(s);
        if (s.cluster) s.cluster.name = 'prod';
        s.platform = 'openshift';
      }),
      makeTarget(),
      { required: REQUIRED_PERMISSIONS },
    ).find((c) => c.id === 'olm-cluster-name');
    // The certified CSV's description: another name needs the SCC granted to its service account.
    assert.equal(renamed?.status, 'warn');
    assert.match(renamed?.message ?? '', /this cluster is prod/);
    assert.match(
      renamed?.fix ?? '',
      /oc adm policy add-scc-to-user redis-enterprise-scc-v2 system:serviceaccount:redis:prod/,
    );
  });

  it('olm-approval on a hop before the last: no --to of the channel head, which would end the upgrade there', () => {
    const automatic: OlmSnapshot = {
      ...WITH_CHANNELS,
      subscription: { ...OLM.subscription!, approval: 'Automatic', channel: 'production' },
      channels: [
        { name: 'production', currentCSV: 'redis-enterprise-operator.v7.8.6-19', entries: [] },
        ...WITH_CHANNELS.channels!,
      ],
    };
    // 7.8.2-6 as a stop on the way to 8.2.0-18 (hops.ts hopTarget): one run does every hop, so
    // `--to 7.8.6-19` would trade the final target for the channel's head.
    const waypoint = hopTarget(makeTarget({ to: '8.2.0-18' }), {
      operator: '7.8.2-6',
      clusterVersion: undefined,
    });
    const approval = runChecks(makeSnapshot(withOlm(automatic)), waypoint, {
      required: REQUIRED_PERMISSIONS,
    }).find((c) => c.id === 'olm-approval');
    assert.equal(approval?.status, 'warn', 'OLM may still install 7.8.6-19 in place of the stop');
    assert.match(
      approval?.message ?? '',
      /head of its channel production is 7\.8\.6-19, past the target 7\.8\.2-6/,
    );
    assert.match(approval?.fix ?? '', /"installPlanApproval":"Manual"/);
    assert.doesNotMatch(approval?.fix ?? '', /--to|target the head/);
    assert.match(approval?.fix ?? '', /7\.8\.2-6 is a stop on the way to 8\.2\.0-18/);
  });

  it('the OLM commands approve the pending plan of the target, and skip approval when Automatic', () => {
    const pending: OlmSnapshot = {
      ...OLM,
      installPlans: [
        {
          name: 'install-x',
          csvs: ['redis-enterprise-operator.v7.8.2-6'],
          approved: false,
          phase: 'RequiresApproval',
        },
      ],
    };
    assert.deepEqual(
      olmUpgradeCommands({}, pending, 'redis', '7.8.2-6').map((c) => c.command),
      [
        `oc patch installplan install-x -n redis --type merge -p '{"spec":{"approved":true}}'`,
        `oc wait csv/redis-enterprise-operator.v7.8.2-6 -n redis --for=jsonpath='{.status.phase}'=Succeeded --timeout=10m`,
      ],
    );
    const automatic: OlmSnapshot = { ...OLM, subscription: { ...OLM.subscription!, approval: 'Automatic' } };
    const commands = olmUpgradeCommands({ context: 'prod' }, automatic, 'redis', '7.8.2-6').map(
      (c) => c.command,
    );
    assert.equal(commands.length, 2);
    assert.match(commands[0] ?? '', /^oc --context prod patch subscription /);
    assert.match(commands[1] ?? '', /^oc --context prod wait csv\//);
  });
});

describe('olmDigestGap: why the target CSV gives the node image no digest', () => {
  const digests = { csv: 'redis-enterprise-operator.v8.2.0-18', releaseTag: '8.2.0-78.18' };
  const node = [{ node: true }];

  it('the other variant of the release: the variant is why, not a CSV that lacks it', () => {
    // From a standard image to the minimal one, and back: the certified CSV relates both.
    assert.equal(
      olmDigestGap(digests, '8.2.0-78.18.minimal', node),
      "ctl takes the node image's digest from redis-enterprise-operator.v8.2.0-18 for the standard image the cluster runs (8.2.0-78.18) only, and --cluster-version 8.2.0-78.18.minimal is the minimal base image of that release; leave --cluster-version out to stay on the standard image, or remove the digest",
    );
    assert.match(
      olmDigestGap({ ...digests, releaseTag: '8.2.0-78.18.minimal' }, '8.2.0-78.18', node),
      /for the minimal base image the cluster runs \(8\.2\.0-78\.18\.minimal\) only, and --cluster-version 8\.2\.0-78\.18 is the standard image of that release/,
    );
  });

  it('another build, whatever its variant: the CSV relates the release tag only', () => {
    for (const tag of ['8.2.0-70.5', '8.2.0-70.5.minimal']) {
      assert.equal(
        olmDigestGap(digests, tag, node),
        `redis-enterprise-operator.v8.2.0-18 relates the node image of 8.2.0-78.18 only, not of --cluster-version ${tag}; leave --cluster-version out, or remove the digest`,
      );
    }
  });
});
