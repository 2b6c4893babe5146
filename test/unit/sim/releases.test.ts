import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { scenarioCatalog } from '../../../src/sim/olm/catalog.js';
import { parseScenario } from '../../../src/sim/scenario.js';
import {
  defaultClusterTag,
  defaultDatabaseVersion,
  releasedOperatorVersions,
} from '../../../src/sim/world/releases.js';
import { SimWorld, worldOf } from '../../../src/sim/world/world.js';

/**
 * The simulated world's release facts as re-read from redis/docs release notes (Downloads,
 * supported distributions, bundled database versions) and `releases:`, the scenario key that
 * adds a release the built-in list lacks (SIMULATOR.md third round).
 */

const world = new SimWorld();

const SCENARIO = `name: newer
description: "a release newer than any built-in one"
platform: openshift
openshiftVersion: "4.20"
operator:
  version: 8.2.0-18
  installedBy: olm
releases:
  - operator: 8.2.0-25
    rs: 8.2.0-80.25
    databaseVersions: ["7.2", "7.4", "8.2", "8.6"]
    defaultDatabaseVersion: "8.6"
    kubernetes: {supported: ["1.33", "1.34", "1.35", "1.36"], deprecated: ["1.32"]}
    openshift: {supported: ["4.20", "4.21", "4.22"], deprecated: ["4.19"]}
    variants: [minimal]
`;

describe('the simulated world’s releases', () => {
  it('has every release of the notes up to 2026-11-26, and no 8.2.0-8 (a draft name of 8.2.0-12)', () => {
    const versions = releasedOperatorVersions();
    for (const version of [
      '7.4.6-11',
      '7.4.6-12',
      '7.8.6-20',
      '7.22.2-45',
      '8.0.20-27',
      '8.2.0-15',
      '8.2.0-18',
    ])
      assert.ok(versions.includes(version), version);
    assert.ok(!versions.includes('8.2.0-8'));
    assert.equal(defaultClusterTag('8.2.0-18', 'kubernetes'), '8.2.0-78.18');
    assert.equal(defaultClusterTag('8.0.20-27', 'openshift'), '8.0.20-108.27');
    assert.equal(defaultClusterTag('7.4.6-12', 'openshift'), '7.4.6-293.rhel8-openshift');
    assert.equal(defaultClusterTag('7.22.2-45', 'kubernetes'), '7.22.2-189');
  });

  it('bundles database versions with a default per RS release (6.2.x defaults to 6.0)', () => {
    assert.equal(defaultDatabaseVersion('8.2.0-78.18'), '8.6');
    assert.equal(defaultDatabaseVersion('8.0.10-81'), '8.4');
    assert.equal(defaultDatabaseVersion('7.22.2-189'), '7.4');
    assert.equal(defaultDatabaseVersion('6.2.18-65'), '6.0');
    assert.deepEqual(world.bundledDatabaseVersions('8.2.0-78.18.minimal').at(-1), '8.6');
  });

  it('knows the Kubernetes and OpenShift versions each release supports and deprecates', () => {
    assert.deepEqual(world.platformsOf('8.2.0-18').kubernetes, {
      supported: ['1.33', '1.34', '1.35', '1.36'],
      deprecated: ['1.32'],
    });
    assert.deepEqual(world.platformsOf('8.2.0-18').openshift.deprecated, ['4.19']);
    // A maintenance release stands with the newest column before it.
    assert.ok(world.platformsOf('8.0.20-27').kubernetes.deprecated.includes('1.31'));
    assert.ok(world.platformsOf('7.4.6-12').kubernetes.supported.includes('1.29'));
    assert.ok(!world.platformsOf('8.2.0-13').kubernetes.supported.includes('1.29'));
  });

  it('publishes .minimal images from 8.0.18-11 on, and no variant it did not publish', () => {
    assert.deepEqual(world.variantsOf('8.0.18-14'), ['minimal']);
    assert.deepEqual(world.variantsOf('8.0.16-25'), []);
    assert.equal(
      world.clusterTagFor('8.2.0-18', 'kubernetes', '8.0.18-36.14.minimal'),
      '8.2.0-78.18.minimal',
    );
    assert.equal(world.clusterTagFor('8.2.0-18', 'kubernetes', '8.0.18-36.14'), '8.2.0-78.18');
    assert.ok(world.clusterTagPublished('8.0.18-36.14.minimal'));
    assert.ok(!world.clusterTagPublished('8.0.16-33.minimal'), 'no minimal image before 8.0.18-11');
    assert.ok(world.clusterTagPublished('7.4.6-22.rhel8-openshift'));
    assert.ok(world.clusterTagPublished('9.9.9-1'), 'a build the world does not know is not refused');
  });
});

describe('releases: (scenario key)', () => {
  it('adds a release that the catalog, the OperatorHub and the operator all know', () => {
    const scenario = parseScenario(SCENARIO, 'newer.yaml');
    assert.equal(scenario.kubernetesVersion, '1.33', 'OpenShift 4.20 runs Kubernetes 1.33');
    assert.equal(scenario.openshiftVersion, '4.20.0');
    assert.ok(
      scenario.objects.some((object) => object.kind === 'ClusterVersion'),
      'OpenShift answers oc get clusterversion',
    );
    const added = worldOf(scenario);
    assert.equal(added.operatorVersions().at(-1), '8.2.0-25');
    assert.equal(added.defaultClusterTag('8.2.0-25', 'openshift'), '8.2.0-80.25');
    assert.deepEqual(added.bundledDatabaseVersions('8.2.0-80.25'), ['7.2', '7.4', '8.2', '8.6']);
    assert.equal(added.defaultDatabaseVersion('8.2.0-80.25.minimal'), '8.6');
    assert.deepEqual(added.platformsOf('8.2.0-25').kubernetes.deprecated, ['1.32']);
    assert.equal(added.clusterTagFor('8.2.0-25', 'openshift', '8.2.0-78.18.minimal'), '8.2.0-80.25.minimal');

    const catalog = scenarioCatalog(scenario.operator.olm!, scenario.operator.version, added);
    assert.equal(catalog.channelHead('production'), '8.2.0-25', 'the newest line goes to production');
    assert.equal(catalog.channelHead('8.2.0'), '8.2.0-25');
    assert.deepEqual(catalog.channelVersions('8.2.0-25.0'), ['8.2.0-25'], 'a channel of its own');
    assert.equal(
      catalog.replacementOf(catalog.csvName('8.2.0-18'), 'production'),
      'redis-enterprise-operator.v8.2.0-25',
    );
    // The built-in world is not changed by a scenario.
    assert.ok(!new SimWorld().knows('8.2.0-25'));
  });

  it('refuses a default database version the release does not bundle, and a mismatched platform pair', () => {
    assert.throws(
      () =>
        parseScenario(
          SCENARIO.replace('defaultDatabaseVersion: "8.6"', 'defaultDatabaseVersion: "9.0"'),
          'bad.yaml',
        ),
      /releases\[0\]\.defaultDatabaseVersion: "9\.0" is not one of databaseVersions/,
    );
    assert.throws(
      () =>
        parseScenario(
          SCENARIO.replace('openshiftVersion: "4.20"', 'openshiftVersion: "4.20"\nkubernetesVersion: "1.29"'),
          'bad.yaml',
        ),
      /OpenShift 4\.20 runs Kubernetes 1\.33, not 1\.29/,
    );
  });

  it('an unknown Subscription channel loads (OLM answers ResolutionFailed); a captured per-bundle channel too', () => {
    const olm = (channel: string) =>
      SCENARIO.replace('  installedBy: olm', `  installedBy: olm\n  olm: {channel: "${channel}"}`);
    assert.equal(parseScenario(olm('stable'), 'stable.yaml').operator.olm?.channel, 'stable');
    assert.equal(parseScenario(olm('8.2.0-18.0'), 'own.yaml').operator.olm?.channel, '8.2.0-18.0');
    // 8.0.20 is offered on this OpenShift (8.0.20-27.1: v4.18-v4.21) but does not hold 8.2.0-18;
    // 7.8.6 is not (its bundles end at v4.18), so a Subscription to it loads and fails to resolve.
    assert.throws(
      () => parseScenario(olm('8.0.20'), 'other-line.yaml'),
      /channel "8\.0\.20" does not offer operator 8\.2\.0-18/,
    );
    assert.equal(parseScenario(olm('7.8.6'), 'gone.yaml').operator.olm?.channel, '7.8.6');
  });

  it('a cluster on a .minimal tag loads where its release published one, and not elsewhere', () => {
    const cluster = (operator: string, tag: string) =>
      `name: mini\ndescription: "minimal"\noperator:\n  version: ${operator}\ncluster:\n  versionTag: ${tag}\n`;
    assert.equal(
      parseScenario(cluster('8.0.18-14', '8.0.18-36.14.minimal'), 'm.yaml').cluster.versionTag,
      '8.0.18-36.14.minimal',
    );
    assert.throws(
      () => parseScenario(cluster('8.0.16-25', '8.0.16-33.minimal'), 'm.yaml'),
      /cluster\.versionTag: RS image 8\.0\.16-33\.minimal was never published/,
    );
  });
});
