// An independent implementation of docs/protocol.md §5 manifest signing, for cross-checking fleetctl:
// npm `canonicalize` (RFC 8785), @noble/hashes BLAKE3, @noble/curves Ed25519, and Node's own
// X.509 / PKCS#8 parsing. Nothing here comes from fleetmcp's C++ code.
//
//   node manifest_crosscheck.mjs check --cert node.crt  < signed.json
//       verifies payload_hash and sig of the manifest on stdin with the certificate's key and that
//       the bytes are already JCS; prints {"payload_hash_ok","sig_ok","jcs_ok","kid_ok","etag"}; exit 0 only if all hold
//   node manifest_crosscheck.mjs sign --key node.key --cert node.crt --out FILE [--now-ms MS]
//       builds a manifest for the certificate's node (echo + metrics), signs it, writes it to FILE as
//       indented (non-canonical) JSON and prints its etag
//   node manifest_crosscheck.mjs tamper < signed.json
//       changes one byte inside a signed field (hw_fingerprint.value) and prints the result
import { createHash, createPrivateKey, X509Certificate } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';

const canonicalize = (await import('canonicalize')).default;
const { blake3 } = await import('@noble/hashes/blake3.js');
const { ed25519 } = await import('@noble/curves/ed25519.js');

const hex = (bytes) => Buffer.from(bytes).toString('hex');
const b3hex = (text) => hex(blake3(new TextEncoder().encode(text)));
const utf8 = (text) => new Uint8Array(Buffer.from(text, 'utf8'));

function options(argv) {
  const out = {};
  for (let i = 0; i < argv.length; i += 2) {
    if (!argv[i].startsWith('--') || i + 1 >= argv.length) throw new Error(`bad argument ${argv[i]}`);
    out[argv[i].slice(2)] = argv[i + 1];
  }
  return out;
}

function readStdin() {
  return readFileSync(0, 'utf8');
}

function certificate(path) {
  const cert = new X509Certificate(readFileSync(path));
  const jwk = cert.publicKey.export({ format: 'jwk' });
  if (jwk.crv !== 'Ed25519') throw new Error(`${path}: not an Ed25519 certificate`);
  const cn = /(?:^|\n)CN=([^\n]+)/.exec(cert.subject)?.[1];
  return {
    publicKey: new Uint8Array(Buffer.from(jwk.x, 'base64url')),
    kid: createHash('sha256').update(cert.raw).digest('hex'),  // SHA-256 of the DER
    cn,
  };
}

function seed(path) {
  const jwk = createPrivateKey(readFileSync(path)).export({ format: 'jwk' });
  if (jwk.crv !== 'Ed25519') throw new Error(`${path}: not an Ed25519 key`);
  return new Uint8Array(Buffer.from(jwk.d, 'base64url'));
}

// docs/protocol.md §5: P0 with sig and payload_hash blanked, P1 with only sig blanked.
function signingPayloads(manifest, payloadHash) {
  const m = structuredClone(manifest);
  m.node_attestation.sig = '';
  m.node_attestation.payload_hash = '';
  const p0 = canonicalize(m);
  m.node_attestation.payload_hash = payloadHash ?? b3hex(p0);
  return { p0, p1: canonicalize(m), payloadHash: m.node_attestation.payload_hash };
}

function check(opts) {
  const text = readStdin();
  const manifest = JSON.parse(text);
  const cert = certificate(opts.cert);
  const att = manifest.node_attestation;
  const { p0, p1 } = signingPayloads(manifest, att.payload_hash);
  const result = {
    payload_hash_ok: b3hex(p0) === att.payload_hash,
    sig_ok: ed25519.verify(new Uint8Array(Buffer.from(att.sig, 'base64url')), utf8(p1), cert.publicKey),
    jcs_ok: canonicalize(manifest) === text,
    kid_ok: att.kid === cert.kid,
    sig_length_ok: att.sig.length === 86 && !att.sig.includes('='),
    etag: b3hex(canonicalize(manifest)),
  };
  console.log(JSON.stringify(result));
  const ok = Object.entries(result).every(([k, v]) => k === 'etag' || v === true);
  process.exit(ok ? 0 : 1);
}

function sign(opts) {
  const cert = certificate(opts.cert);
  const now = Number(opts['now-ms'] ?? Date.now());
  const nodeId = cert.cn;
  const sources = [['machine_id', `node-crosscheck-${nodeId}`], ['cpu_serial', '10000000cafef00d']];
  const manifest = {
    manifest_version: '1.1.0',
    node_id: nodeId,
    hw_fingerprint: {
      algo: 'blake3-256',
      value: b3hex(sources.map(([n, v]) => `${n}=${v}\n`).join('')),
      sources: sources.map(([n]) => n),
    },
    node_attestation: { alg: 'Ed25519', kid: cert.kid, sig: '', payload_hash: '' },
    issued_at_ms: now - 1000,
    expires_at_ms: now + 3_600_000,
    capabilities: [
      {
        cap_id: 'echo', kind: 'system.echo', schema_ref: 'mcp://schemas/system.echo.invoke.input@1.0.0',
        verbs: ['invoke'], safety_class: 'read_only',
        constraints: { rate_limit_rps: 10, max_concurrency: 4, deadline_ms_default: 2000 },
      },
      {
        cap_id: 'metrics', kind: 'system.metrics', schema_ref: 'mcp://schemas/system.metrics@1.0.0',
        verbs: ['snapshot', 'subscribe'], safety_class: 'read_only',
        constraints: { rate_limit_rps: 2.5, max_concurrency: 2, deadline_ms_default: 2000 },
      },
    ],
  };
  const { p1, payloadHash } = signingPayloads(manifest);
  manifest.node_attestation.payload_hash = payloadHash;
  manifest.node_attestation.sig = Buffer.from(ed25519.sign(utf8(p1), seed(opts.key))).toString('base64url');
  // Indented and in insertion order, so the verifier must canonicalize for itself.
  writeFileSync(opts.out, JSON.stringify(manifest, null, 2) + '\n');
  console.log(b3hex(canonicalize(manifest)));
}

function tamper() {
  const text = readStdin();
  const at = text.indexOf('"value":"') + '"value":"'.length;
  if (at < '"value":"'.length) throw new Error('no hw_fingerprint.value in the manifest');
  const flipped = text[at] === '0' ? '1' : '0';
  process.stdout.write(text.slice(0, at) + flipped + text.slice(at + 1));
}

const [mode, ...rest] = process.argv.slice(2);
const opts = options(rest);
if (mode === 'check') check(opts);
else if (mode === 'sign') sign(opts);
else if (mode === 'tamper') tamper();
else {
  console.error('usage: manifest_crosscheck.mjs check|sign|tamper [options]');
  process.exit(2);
}
