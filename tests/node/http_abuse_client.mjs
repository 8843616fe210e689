// A slowloris attacker for tests/integration/http_abuse.sh (issue 24, item 7), on Node's net.
//   node http_abuse_client.mjs trickle URL COUNT SECONDS ADDR...
//       keeps COUNT connections to URL's host:port open for SECONDS, spread over the local ADDRs
//       (all of 127.0.0.0/8 is loopback, so several /24 prefixes are at hand). Each sends a
//       request line and then one header line every 500 ms, never finishing its head; when the
//       front closes one, it comes back 500 ms later, as an attacker would. Prints "ready" once
//       the first round has connected, then at the end one JSON line: connections opened, cut by
//       the front without an answer, refused with a status (503), and the longest a cut one lived.
import net from 'node:net';

function trickle(url, count, seconds, addrs) {
  const { hostname, port } = new URL(url);
  const stats = { opened: 0, cut: 0, refused: 0, longest_cut_ms: 0 };
  const sockets = new Set();
  let stopping = false;
  const open = (i) => {
    if (stopping) return;
    const started = Date.now();
    let answer = '';
    let timer = null;
    const socket = net.connect({ host: hostname, port: Number(port), localAddress: addrs[i % addrs.length] });
    sockets.add(socket);
    stats.opened++;
    socket.on('connect', () => {
      socket.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\n');
      timer = setInterval(() => socket.write(`X-Trickle-${i}: still here\r\n`), 500);
    });
    socket.on('data', (d) => { answer += d; });
    socket.on('error', () => {});
    socket.on('close', () => {
      clearInterval(timer);
      sockets.delete(socket);
      if (stopping) return;
      if (answer.startsWith('HTTP/1.1 ')) stats.refused++;
      else {
        stats.cut++;
        stats.longest_cut_ms = Math.max(stats.longest_cut_ms, Date.now() - started);
      }
      setTimeout(() => open(i), 500);
    });
  };
  for (let i = 0; i < count; i++) open(i);
  setTimeout(() => console.log('ready'), 1000);
  setTimeout(() => {
    stopping = true;
    for (const s of sockets) s.destroy();
    console.log(JSON.stringify(stats));
    process.exit(0);
  }, seconds * 1000);
}

const [mode, ...rest] = process.argv.slice(2);
if (mode === 'trickle') trickle(rest[0], Number(rest[1]), Number(rest[2]), rest.slice(3));
else {
  console.error(`FAIL: unknown mode ${mode}`);
  process.exit(1);
}
