// The benchmark's loopback target, in a process of its own (its sockets and its CPU are not the
// clients'): a TCP port where "D<n>\n" sends n bytes and "U<n>\n" reads n bytes and answers "K",
// and an HTTP port that answers every request with 1 KiB (keep-alive).
import { createServer as createHttpServer } from 'node:http';
import { createServer } from 'node:net';

const payload = Buffer.alloc(64 * 1024, 0x61);
const tcp = createServer({ noDelay: true }, (s) => {
  s.on('error', () => {});
  let head = Buffer.alloc(0);
  const onData = (d) => {
    head = Buffer.concat([head, d]);
    const nl = head.indexOf(10);
    if (nl < 0) return;
    s.off('data', onData);
    const line = head.toString('latin1', 0, nl);
    const rest = head.length - nl - 1;
    const n = Number(line.slice(1));
    if (line[0] === 'D') {
      let left = n;
      const pump = () => {
        while (left > 0) {
          const c = left >= payload.length ? payload : payload.subarray(0, left);
          left -= c.length;
          if (!s.write(c)) return void s.once('drain', pump);
        }
      };
      pump();
    } else if (line[0] === 'U') {
      let got = rest;
      const done = () => s.write('K');
      if (got >= n) return done();
      s.on('data', (c) => {
        got += c.length;
        if (got >= n) done();
      });
    }
  };
  s.on('data', onData);
});

const kib = Buffer.alloc(1024, 0x62);
const http = createHttpServer({ keepAliveTimeout: 60_000 }, (req, res) => {
  req.resume();
  res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': kib.length });
  res.end(kib);
});
http.on('connection', (s) => s.setNoDelay(true));

// The gateway's accept queue (the bench passes it): a burst of a thousand connections is not dropped.
const backlog = Number(process.argv[2] ?? 511);
tcp.listen({ port: 0, host: '127.0.0.1', backlog }, () =>
  http.listen({ port: 0, host: '127.0.0.1', backlog }, () => process.send?.({ tcp: tcp.address().port, http: http.address().port })),
);
process.on('disconnect', () => process.exit(0));
