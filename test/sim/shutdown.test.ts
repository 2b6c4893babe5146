/**
 * A simulated cluster stops whatever its clients do. The management API server used to wait for
 * every TCP connection in close(), and closeAllConnections() knows only connections past the TLS
 * handshake: one idle connection (a port probe, a client of a server that had the port before,
 * which a busy test run makes likely) kept stop() pending for ever, and the e2e test that awaited
 * it hung the whole run.
 */
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { describe, it } from 'node:test';
import { startSimulatedCluster } from '../../src/sim/cluster.js';
import { loadScenario } from '../../src/sim/scenario.js';
import { within } from '../helpers/wait.js';

function openIdle(url: string): Promise<Socket> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => resolve(socket));
    socket.on('error', reject);
  });
}

describe('stopping a simulated cluster', () => {
  it('ends while connections that never sent a byte are open to each of its servers', async () => {
    const cluster = await startSimulatedCluster({ scenario: loadScenario('happy-path'), fast: true });
    const idle = await Promise.all([cluster.apiUrl, cluster.kubeUrl, cluster.artifactsUrl].map(openIdle));
    const closed = idle.map((socket) => new Promise<void>((resolve) => socket.on('close', () => resolve())));
    try {
      await within('the simulated cluster to stop with idle connections open', 10_000, cluster.stop());
      // The servers hung up on the idle clients.
      await within('the idle connections to be closed by the servers', 5_000, Promise.all(closed));
      assert.ok(idle.every((socket) => socket.destroyed));
    } finally {
      for (const socket of idle) socket.destroy();
    }
  });
});
