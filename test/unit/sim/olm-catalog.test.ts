import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { OlmCatalog, parseCsvName } from '../../../src/sim/olm/catalog.js';

/**
 * The simulated OperatorHub catalog against Red Hat's certified bundles (certified-operators
 * operators/redis-enterprise-operator-cert/<bundle>, src/sim/world/olm-bundles.ts): channels,
 * CSV names with a rebuild suffix, and the upgrade edges spec.skips makes.
 */

const catalog = (overrides: Partial<ConstructorParameters<typeof OlmCatalog>[0]> = {}) =>
  new OlmCatalog({
    channel: 'production',
    installedVersion: '7.4.6-2',
    installedSuffix: '',
    skips: 'all',
    ...overrides,
  });

describe('simulated OLM catalog', () => {
  it('reads CSV names with and without a rebuild suffix', () => {
    assert.deepEqual(parseCsvName('redis-enterprise-operator.v7.22.0-11.2'), {
      version: '7.22.0-11',
      suffix: '.2',
    });
    assert.deepEqual(parseCsvName('redis-enterprise-operator.v7.4.6-2'), { version: '7.4.6-2', suffix: '' });
    assert.equal(parseCsvName('other-operator.v7.4.6-2'), undefined);
    assert.equal(parseCsvName('redis-enterprise-operator.v7.4.6'), undefined);
  });

  it('has the certified bundles’ channels, and nothing in a channel it lacks', () => {
    const channels = catalog().channels();
    assert.equal(channels[0], 'production');
    for (const channel of ['7.4.6', '7.8.6', '7.22.2', '8.2.0', '7.22.2-43.0', '8.0.20-26.2', '7.22.0-11.3'])
      assert.ok(channels.includes(channel), channel);
    assert.ok(!channels.includes('7.8.6-19.0'), 'no own channel before 7.22.2-21');
    assert.ok(!channels.includes('stable'));
    assert.ok(!channels.includes('6.0.20'), 'no certified bundle before 6.2.8-2');
    assert.deepEqual(
      catalog({ channel: 'stable' }).channelVersions('stable'),
      [],
      'an unknown channel is empty',
    );
    assert.deepEqual(catalog().channelVersions('7.22.2-43.0'), ['7.22.2-43']);
    // production: the newest line's bundles of their time, not older lines' maintenance.
    const production = catalog().channelVersions('production');
    for (const version of ['7.4.6-2', '7.8.6-1', '7.22.2-22', '8.0.20-25', '8.2.0-13', '8.2.0-18'])
      assert.ok(production.includes(version), version);
    for (const version of ['7.4.6-9', '7.8.6-19', '7.22.2-43', '8.0.20-26', '8.0.20-27'])
      assert.ok(!production.includes(version), version);
    assert.equal(catalog().channelHead('production'), '8.2.0-18');
    assert.equal(catalog().channelHead('7.4.6'), '7.4.6-12');
    assert.equal(catalog().defaultChannel(), 'production');
  });

  it('skips as the certified CSVs list them: holes where an older line was published later', () => {
    const real = catalog({ installedVersion: '7.22.2-43', skips: 'catalog' });
    const csv = (version: string) => real.csvName(version);
    assert.ok(!real.skipsOf('8.2.0-13').includes(csv('7.22.2-43')), '8.2.0-13.0 does not skip 7.22.2-43.0');
    assert.ok(!real.skipsOf('8.2.0-13').includes(csv('7.8.6-19')));
    assert.ok(real.skipsOf('8.2.0-13').includes(csv('7.22.2-42')));
    assert.ok(real.skipsOf('7.22.2-43').includes(csv('7.4.6-9')), 'every 7.4.6 bundle');
    assert.ok(!real.skipsOf('7.8.2-6').includes(csv('7.4.6-6')), '7.8.2-6.8 misses 7.4.6-6.3 on');
    assert.ok(!real.skipsOf('8.0.2-2').includes(csv('7.2.4-16')), 'floor 7.4.2-2');
    assert.equal(real.replacementOf(csv('7.22.2-43'), 'production'), csv('8.2.0-18'));
    assert.equal(real.replacementOf(csv('7.22.2-43'), '8.0.20'), csv('8.0.20-27'));
  });

  it('no bundle of the snapshot skips the 7.4.6 bundles published after it (7.4.6-11.0, 7.4.6-12.0)', () => {
    const real = catalog({ installedVersion: '7.4.6-12', channel: '7.4.6', skips: 'catalog' });
    const csv = (version: string) => real.csvName(version);
    // 7.8.6-19.0's spec.skips ends at redis-enterprise-operator.v7.4.6-9.0 (certified-operators 3b7b563).
    assert.ok(real.skipsOf('7.8.6-19').includes(csv('7.4.6-9')));
    for (const later of ['7.4.6-11', '7.4.6-12']) {
      for (const bundle of ['7.8.6-19', '7.22.2-43', '8.0.20-26', '8.2.0-13'])
        assert.ok(!real.skipsOf(bundle).includes(csv(later)), `${bundle} does not skip ${later}`);
    }
    // September's bundles skip August's 7.4.6-11.0, not October's 7.4.6-12.0.
    assert.ok(real.skipsOf('7.8.6-20').includes(csv('7.4.6-11')));
    assert.ok(!real.skipsOf('7.8.6-20').includes(csv('7.4.6-12')));
    // October's 8.2.0-18.0 was read (certified-operators 0eb3663): it skips 7.4.6-11.0 and
    // 8.2.0-15.1 but not 7.4.6-12.0. So from 7.4.6-12 no channel offers anything; from 7.8.6-20
    // channel 8.2.0 offers its head.
    assert.ok(real.skipsOf('8.2.0-18').includes(csv('7.4.6-11')));
    assert.ok(real.skipsOf('8.2.0-18').includes(csv('8.2.0-15')));
    assert.ok(!real.skipsOf('8.2.0-18').includes(csv('7.4.6-12')));
    for (const channel of real.channels())
      assert.equal(real.replacementOf(csv('7.4.6-12'), channel), undefined, `channel ${channel}`);
    assert.equal(real.replacementOf(csv('7.8.6-20'), '8.2.0'), csv('8.2.0-18'));
  });

  it('names CSVs with a suffix when the starting CSV has one: the installed one’s, the certified bundle’s for the others', () => {
    const suffixed = catalog({ installedSuffix: '.3' });
    assert.equal(suffixed.csvName('7.4.6-2'), 'redis-enterprise-operator.v7.4.6-2.3');
    assert.equal(suffixed.csvName('8.0.18-14'), 'redis-enterprise-operator.v8.0.18-14.2');
    assert.equal(suffixed.csvName('7.8.6-19'), 'redis-enterprise-operator.v7.8.6-19.0');
    assert.equal(suffixed.bundleVersion('7.8.6-19'), '7.8.6-19.0');
    assert.equal(suffixed.versionOfCsv('redis-enterprise-operator.v7.8.6-19.0'), '7.8.6-19');
    assert.equal(
      suffixed.versionOfCsv('redis-enterprise-operator.v7.8.6-19'),
      undefined,
      'not a name of this catalog',
    );
    assert.equal(catalog().csvName('7.8.6-19'), 'redis-enterprise-operator.v7.8.6-19');
  });

  it('skips: every older CSV, the installed one only per operator.olm.skips', () => {
    const installed = 'redis-enterprise-operator.v7.4.6-2';
    assert.ok(catalog().skipsOf('7.8.6-19').includes(installed));
    assert.ok(catalog().skipsOf('7.8.6-19').includes('redis-enterprise-operator.v7.8.6-11'));
    assert.ok(
      !catalog().skipsOf('7.8.6-11').includes('redis-enterprise-operator.v7.8.6-19'),
      'never a newer one',
    );
    assert.equal(catalog().replacementOf(installed, '7.8.6'), 'redis-enterprise-operator.v7.8.6-20');
    assert.equal(
      catalog().replacementOf(installed, 'production'),
      catalog().csvName(catalog().channelHead('production') ?? ''),
    );

    const none = catalog({ skips: 'none' });
    assert.ok(!none.skipsOf('7.8.6-19').includes(installed));
    assert.equal(none.replacementOf(installed, '7.8.6'), undefined, 'no edge: OLM stays AtLatestKnown');

    const through = catalog({ skips: ['7.8.6-11'] });
    assert.equal(through.replacementOf(installed, '7.8.6'), 'redis-enterprise-operator.v7.8.6-11');
    // Once there, the head skips it.
    assert.equal(
      through.replacementOf('redis-enterprise-operator.v7.8.6-11', '7.8.6'),
      'redis-enterprise-operator.v7.8.6-20',
    );
  });
});
