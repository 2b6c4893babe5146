// `pods/<name>/portforward` over WebSocket, as the kubelet serves it (the protocol
// @kubernetes/client-node's PortForward speaks): port i has data channel 2i and error channel
// 2i+1; every frame starts with its channel; the server first announces each port on both of its
// channels as 2 little-endian bytes, then bytes flow between the data channel and a TCP connection.
import type { IncomingMessage } from 'node:http';
import { connect, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { type RawData, type WebSocket, WebSocketServer } from 'ws';

/** The kubelet's port-forward subprotocols; "" is a client that asks for none (binary framing). */
const BINARY_PROTOCOL = 'v4.channel.k8s.io';
const BASE64_PROTOCOL = 'v4.base64.channel.k8s.io';
const SUPPORTED_PROTOCOLS = ['', BINARY_PROTOCOL, BASE64_PROTOCOL];

/** The first offered protocol the kubelet supports, as its wsstream handshake picks it. */
function negotiateProtocol(header: string | undefined): string | undefined {
  const offered = (header ?? '')
    .split(',')
    .map((protocol) => protocol.trim())
    .filter((protocol) => protocol !== '');
  return (offered.length === 0 ? [''] : offered).find((protocol) => SUPPORTED_PROTOCOLS.includes(protocol));
}

function rejectUpgrade(socket: Duplex, status: number, reason: string, message: string): void {
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: text/plain; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(message)}\r\nConnection: close\r\n\r\n${message}`,
  );
}

let upgrader: WebSocketServer | undefined;

/**
 * Accepts the WebSocket upgrade of a port-forward request and forwards every requested port to
 * `target` (the simulated pod's one listening service). Protocols: `v4.channel.k8s.io` (binary),
 * `v4.base64.channel.k8s.io` (text frames: channel digit + base64) and none (binary).
 */
export function handlePortForward(
  request: IncomingMessage,
  socket: Duplex,
  head: Buffer,
  target: { host: string; port: number },
  ports: number[],
  answered: (status: number) => void = () => {},
): void {
  const refuse = (message: string) => {
    answered(400);
    rejectUpgrade(socket, 400, 'Bad Request', message);
  };
  const offered = request.headers['sec-websocket-protocol'];
  const protocol = negotiateProtocol(offered);
  if (protocol === undefined) {
    refuse(
      `requested protocol(s) are not supported: [${offered ?? ''}]; supports [${SUPPORTED_PROTOCOLS.join(' ')}]`,
    );
    return;
  }
  if (ports.length === 0) {
    refuse('at least 1 port must be specified');
    return;
  }
  if (upgrader === undefined) {
    upgrader = new WebSocketServer({
      noServer: true,
      perMessageDeflate: false,
      handleProtocols: (protocols) => negotiateProtocol([...protocols].join(',')) || false,
    });
    // A handshake ws refuses (not a GET, no key, ...) is answered here, so that the caller's
    // audit line records the 400 the client got rather than the 101 it asked for.
    upgrader.on('wsClientError', (error: Error, clientSocket: Duplex, clientRequest: IncomingMessage) => {
      const [status, reason] =
        clientRequest.method === 'GET' ? [400, 'Bad Request'] : [405, 'Method Not Allowed'];
      handshakeFailures.get(clientRequest)?.(status);
      rejectUpgrade(clientSocket, status, reason, error.message);
    });
  }
  handshakeFailures.set(request, answered);
  upgrader.handleUpgrade(request, socket, head, (ws) => {
    answered(101);
    forwardPorts(ws, protocol === BASE64_PROTOCOL, target, ports, podNameOf(request.url));
  });
}

/** The audit callback of each request in its handshake (the upgrader is shared). */
const handshakeFailures = new WeakMap<IncomingMessage, (status: number) => void>();

function podNameOf(url: string | undefined): string {
  const match = /\/pods\/([^/?]+)\/portforward/.exec(url ?? '');
  return match?.[1] ? decodeURIComponent(match[1]) : '';
}

function forwardPorts(
  ws: WebSocket,
  base64: boolean,
  target: { host: string; port: number },
  ports: number[],
  podName: string,
): void {
  const send = (channel: number, data: Buffer) => {
    if (ws.readyState !== ws.OPEN) return;
    if (base64) ws.send(`${String.fromCharCode(48 + channel)}${data.toString('base64')}`);
    else ws.send(Buffer.concat([Buffer.of(channel), data]), { binary: true });
  };

  const connections: Socket[] = [];
  let open = ports.length;
  for (const [index, port] of ports.entries()) {
    const portBytes = Buffer.alloc(2);
    portBytes.writeUInt16LE(port & 0xffff);
    send(2 * index, portBytes);
    send(2 * index + 1, portBytes);

    const connection = connect(target.port, target.host);
    connection.setNoDelay(true);
    connection.on('data', (chunk: Buffer) => send(2 * index, chunk));
    connection.on('error', (error) => {
      const pod = podName === '' ? '' : ` to pod ${podName}`;
      send(2 * index + 1, Buffer.from(`error forwarding port ${port}${pod}: ${error.message}`));
    });
    // A WebSocket cannot close one channel (before v5), so the session ends with its connections.
    connection.on('close', () => {
      open -= 1;
      if (open === 0) ws.close(1000);
    });
    connections.push(connection);
  }

  ws.on('message', (data: RawData, isBinary: boolean) => {
    const frame = toBuffer(data);
    if (frame.length === 0) return;
    let channel: number;
    let payload: Buffer;
    if (base64 && !isBinary) {
      channel = frame[0]! - 48;
      payload = Buffer.from(frame.subarray(1).toString('latin1'), 'base64');
    } else {
      channel = frame[0]!;
      payload = frame.subarray(1);
    }
    // Clients only write to data channels; anything else is ignored, as the kubelet does.
    const connection = channel % 2 === 0 ? connections[channel / 2] : undefined;
    if (connection && payload.length > 0 && !connection.destroyed) connection.write(payload);
  });
  ws.on('close', () => {
    for (const connection of connections) connection.destroy();
  });
  ws.on('error', () => {
    for (const connection of connections) connection.destroy();
  });
}

function toBuffer(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}
