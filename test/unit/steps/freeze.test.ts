import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseLogLine } from '../../../src/kube/operator-log.js';
import { blockersFromLog, clusterErrorLines } from '../../../src/steps/freeze.js';

/** The one real line on record (RedisLabs/redis-enterprise-k8s-docs #89), and lines of the same shape. */
const REAL =
  '{"level":"error","ts":1573829086.3122225,"logger":"controller_redisenterprisecluster","msg":"Upgrade Error","Request.Namespace":"ns","Request.Name":"rec","error":"Upgrade Applied but will not start since REC Status.State is \'Upgrade\' and not one of: \'Running\', \'InvalidUpgrade\'"}';

describe('freeze diagnosis from the operator log', () => {
  it('reads zap JSON lines and keeps other lines as text', () => {
    const line = parseLogLine(REAL);
    assert.equal(line.level, 'error');
    assert.equal(line.logger, 'controller_redisenterprisecluster');
    assert.equal(line.msg, 'Upgrade Error');
    assert.equal(line.requestName, 'rec');
    assert.match(line.error ?? '', /^Upgrade Applied but will not start/);
    assert.deepEqual(parseLogLine('I1124 23:00:00 plain klog line'), {
      text: 'I1124 23:00:00 plain klog line',
    });
    assert.deepEqual(parseLogLine('{not json'), { text: '{not json' });
  });

  it("keeps only the cluster controller's error lines about this cluster", () => {
    const lines = [
      REAL,
      REAL.replace('"Request.Name":"rec"', '"Request.Name":"other"'),
      REAL.replace('controller_redisenterprisecluster', 'controller_redisenterprisedatabase'),
      REAL.replace('"level":"error"', '"level":"info"'),
    ].map(parseLogLine);
    assert.deepEqual(clusterErrorLines(lines, 'rec'), [lines[0]]);
  });

  it('names the modules and databases a line mentions, loosely, and nothing otherwise', () => {
    const lines = [
      '{"level":"error","logger":"controller_redisenterprisecluster","msg":"Upgrade Error","error":"database social (uid 1) uses module graph 2.10.12, which has no rhel9 build"}',
      '{"level":"error","logger":"controller_redisenterprisecluster","msg":"Upgrade Error","error":"database legacy (uid 3) runs Redis 6.2, below 7.2"}',
      REAL,
    ].map(parseLogLine);
    assert.deepEqual(blockersFromLog(lines, '7.2'), [
      { kind: 'module', module: 'graph', version: '2.10.12', databases: [{ uid: 1, name: 'social' }] },
      { kind: 'database', uid: 3, name: 'legacy', version: '6.2', target: '7.2' },
    ]);
  });
});
