import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ApiBdb, ApiModule } from '../../../src/api/types.js';
import { dialectFields } from '../../../src/release/dialect.js';
import { remediationCommands } from '../../../src/steps/remediate-advice.js';
import { blockersFromApi } from '../../../src/steps/remediate-blockers.js';

/**
 * A frozen upgrade's advice on an RS 8 target follows what the management API says of each
 * module (`is_bundled`), not its name: a custom build named search goes into
 * spec.userDefinedModules; the bundled one comes with the database upgrade.
 */
describe('frozen-upgrade advice by the API is_bundled (issue 37)', () => {
  const bdbs = [
    {
      uid: 4,
      name: 'cartography',
      redis_version: '7.4',
      module_list: [{ module_name: 'search', semantic_version: '2.10.40' }],
    },
  ] as unknown as ApiBdb[];
  const search = (isBundled: boolean | undefined): ApiModule[] => [
    {
      uid: 'a1',
      module_name: 'search',
      semantic_version: '2.10.40',
      platforms: { 'rhel8/x86_64': { dependencies: {}, sha256: '' } },
      ...(isBundled === undefined ? {} : { is_bundled: isBundled }),
    } as ApiModule,
  ];
  const advice = (isBundled: boolean | undefined) =>
    remediationCommands(blockersFromApi(bdbs, search(isBundled), '7.4'), {
      kube: {},
      clusterName: 'meridian',
      namespace: 'survey',
      operatorNamespace: 'survey',
      fields: dialectFields('redis'),
      moduleFiles: [],
      databaseResources: [],
      targetOperator: '8.0.6-8',
    }).join('\n');

  it('an upload (is_bundled false) is a user-defined module: spec.userDefinedModules of the REC', () => {
    const text = advice(false);
    assert.match(text, /search is a user-defined module: list it in spec\.userDefinedModules/);
    assert.match(text, /kubectl patch rec meridian -n survey/);
    assert.doesNotMatch(text, /bundled from RS 8/);
  });

  it('a bundled build (is_bundled true), or an API that does not say: upgrade the database to Redis 8', () => {
    for (const isBundled of [true, undefined]) {
      const text = advice(isBundled);
      assert.match(text, /search is bundled from RS 8: upgrade cartography to Redis 8 or later/);
      assert.doesNotMatch(text, /userDefinedModules/);
    }
  });
});
