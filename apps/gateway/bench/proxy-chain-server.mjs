// proxy-chain (from npm) as the benchmark's reference proxy: HTTP + CONNECT with Basic auth
// checked against one fixed pair (no database, no metering), in its own process like our gateway.
import { Server } from 'proxy-chain';

const [port, username, password, backlog] = process.argv.slice(2);
const server = new Server({
  port: Number(port),
  host: '127.0.0.1',
  prepareRequestFunction: (req) => ({ requestAuthentication: req.username !== username || req.password !== password }),
});
// Listened on directly (server.listen() takes no options) with the gateway's accept queue, so a burst
// of connections is not dropped here and not there.
await new Promise((resolve, reject) => {
  server.server.once('error', reject);
  server.server.listen({ port: Number(port), host: '127.0.0.1', backlog: Number(backlog) }, resolve);
});
process.send?.({ ready: server.server.address().port });
process.on('SIGTERM', () => server.close(true).then(() => process.exit(0)));
