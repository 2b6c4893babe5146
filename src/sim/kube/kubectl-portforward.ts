// kubectl's own port-forward, which the simulator refuses with a reason kubectl prints.
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';

/**
 * kubectl's port-forward speaks SPDY/3.1 (`portforward.k8s.io` streams): as a plain SPDY upgrade
 * (every kubectl; the only one before 1.30), or tunneled inside a WebSocket whose subprotocol is
 * `SPDY/3.1+portforward.k8s.io` (1.31+ by default, 1.30 with KUBECTL_PORT_FORWARD_WEBSOCKETS=true,
 * try that first, then fall back to the plain upgrade on an upgrade failure). client-go
 * tools/portforward: tunneling_dialer.go, fallback_dialer.go; kubectl's pkg/cmd/portforward
 * (NewDialer/createDialer). Measured: 1.28 sends POST `Upgrade: SPDY/3.1`,
 * `X-Stream-Protocol-Version: portforward.k8s.io`; 1.32 and 1.35 a GET WebSocket first, then
 * that POST (test/sim/kube/portforward.test.ts). The simulator frames no SPDY.
 */
export function isKubectlSpdy(request: IncomingMessage): boolean {
  const upgrade = (request.headers.upgrade ?? '').toLowerCase();
  if (upgrade.startsWith('spdy/')) return true;
  const offered = String(request.headers['sec-websocket-protocol'] ?? '').toLowerCase();
  // A client that also offers the kubelet's channel protocols is served those.
  return upgrade === 'websocket' && offered.includes('spdy/') && !offered.includes('channel.k8s.io');
}

/**
 * Why kubectl's port-forward is refused, as a metav1 Status: client-go turns a Status body of a
 * failed upgrade into the error kubectl prints ("error upgrading connection: <message>").
 */
export const KUBECTL_PORT_FORWARD_REFUSAL =
  "the simulated cluster does not serve kubectl's port-forward (SPDY/3.1, portforward.k8s.io); " +
  "ctl's own port-forward works (WebSocket, v4.channel.k8s.io), and the simulator's env file " +
  'points CTL_API_URL at the management API directly';

/** Answers the upgrade with 400 and that Status. */
export function refuseKubectlPortForward(socket: Duplex): void {
  const body = JSON.stringify({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: KUBECTL_PORT_FORWARD_REFUSAL,
    reason: 'BadRequest',
    code: 400,
  });
  socket.end(
    `HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
