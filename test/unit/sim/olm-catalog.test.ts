import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { OlmCatalog, parseCsvName } from '../../../src/sim/olm/catalog.js';

/**
 * The simulated OperatorHub catalog against Red Hat's certified bundle (certified-operators
 * operators/redis-enterprise-operator-cert/7.22.0-11.2): channels, CSV names with a rebuild
 * suffix, and the upgrade edges spec.skips makes.
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

  it('adds a channel of the scenario’s own naming with every release, like production', () => {
    const stable = catalog({ channel: 'stable' });
    assert.ok(stable.channels().includes('stable'));
    assert.deepEqual(stable.channelVersions('stable'), stable.channelVersions('production'));
    assert.ok(stable.channelVersions('7.8.6').every((version) => version.startsWith('7.8.6-')));
    assert.ok(!catalog().channels().includes('stable'), 'only the scenario’s own channel is added');
    assert.deepEqual(catalog().channelVersions('stable'), []);
  });

  it('names CSVs with a suffix when the starting CSV has one: the installed one’s, .0 for the others', () => {
    const suffixed = catalog({ installedSuffix: '.3' });
    assert.equal(suffixed.csvName('7.4.6-2'), 'redis-enterprise-operator.v7.4.6-2.3');
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
    assert.equal(catalog().replacementOf(installed, '7.8.6'), 'redis-enterprise-operator.v7.8.6-19');
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
      'redis-enterprise-operator.v7.8.6-19',
    );
  });
});
