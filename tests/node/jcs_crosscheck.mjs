// Cross-checks `fleetctl jcs` against an independent RFC 8785 implementation (npm canonicalize
// over JSON.parse, i.e. V8's number and string serialisation) byte for byte.
//
//   node jcs_crosscheck.mjs lines --fleetctl PATH [--seed N] [--count N] [--save FILE]
//       generates JSON values with a seeded PRNG, one per line, runs `fleetctl jcs --lines` once
//       and compares every output line; prints "N passed, M failed", exits 1 on any mismatch.
//   node jcs_crosscheck.mjs files --out DIR
//       writes DIR/<name>.json (whole documents, pretty-printed) and DIR/<name>.expected (their
//       canonical bytes, no newline) for the shell test to run through plain `fleetctl jcs`.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import canonicalize from 'canonicalize';

// ---------------------------------------------------------------------------------------------
// Seeded PRNG (sfc32): the same seed gives the same values on every machine.
function makeRng(seed) {
  let a = 0x9e3779b9, b = 0x243f6a88, c = 0xb7e15162, d = seed >>> 0;
  const next = () => {
    a >>>= 0; b >>>= 0; c >>>= 0; d >>>= 0;
    const t = (a + b + d) >>> 0;
    d = (d + 1) >>> 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) >>> 0;
    c = ((c << 21) | (c >>> 11)) >>> 0;
    c = (c + t) >>> 0;
    return t;
  };
  for (let i = 0; i < 20; i++) next();
  const rng = {
    u32: next,
    int: (n) => next() % n,                        // 0 <= x < n (n small; bias irrelevant here)
    pick: (arr) => arr[next() % arr.length],
    chance: (p) => next() / 2 ** 32 < p,
    u64: () => (BigInt(next()) << 32n) | BigInt(next()),
  };
  return rng;
}

const view = new DataView(new ArrayBuffer(8));
function fromBits(bits) {
  view.setBigUint64(0, BigInt.asUintN(64, bits));
  return view.getFloat64(0);
}
function toBits(x) {
  view.setFloat64(0, x);
  return view.getBigUint64(0);
}
// The k-th double after x (k < 0: before), stepping through the bit patterns of finite x > 0.
function stepDouble(x, k) {
  return fromBits(toBits(x) + BigInt(k));
}

// ---------------------------------------------------------------------------------------------
// Values. Every generator returns the text of one line; most are JSON.stringify output, a few
// are raw number texts (more digits, other spellings) that JSON.parse and fleetctl both read.

function randomDouble(rng) {
  for (;;) {
    const x = fromBits(rng.u64());
    if (Number.isFinite(x)) return x;
  }
}

// Numbers whose layout or rounding is delicate.
function boundaryNumbers() {
  const out = [0, -0, 5e-324, -5e-324, Number.MAX_VALUE, -Number.MAX_VALUE, Number.MIN_VALUE,
    2.2250738585072014e-308, 2.225073858507201e-308, 1e21, 1e-7, 1e-6, 0.1, 0.2, 0.3, 1 / 3];
  for (let e = -400; e <= 400; e++) {
    const x = Number(`1e${e}`);
    if (!Number.isFinite(x) || x === 0) continue;
    out.push(x, -x, stepDouble(x, 1), stepDouble(x, -1), Number(`5e${e}`) || 0, Number(`9.999999999999999e${e}`) || 0);
  }
  for (const center of [1e21, 1e-7, 1e-6, 2 ** 53, 2 ** 64, 2 ** 63, 1e15, 1e16, 1e17]) {
    for (let k = -40; k <= 40; k++) out.push(stepDouble(center, k), -stepDouble(center, k));
  }
  for (let k = -300; k <= 300; k++) {
    out.push(2 ** 53 + k, -(2 ** 53) + k, 2 ** 53 * 2 + k * 2, Number.MAX_SAFE_INTEGER - k);
  }
  return out.filter(Number.isFinite);
}

// Raw number texts: integers around 2^53 and past the 64-bit range, long decimals, tiny values,
// exponent spellings. JSON.parse rounds them; fleetctl must round the same way.
function rawNumberTexts(rng, count) {
  const out = ['-0', '-0.0', '0e0', '0E-5', '4.50', '1E30', '2e-3', '0.000000000000000000000000001',
    '333333333.33333329', '1e-400', '-1e-400', '2.4703282292062327e-324', '2.4703282292062328e-324',
    '1.7976931348623157e308', '1.7976931348623158e308', '9007199254740993', '-9007199254740993',
    '9223372036854775807', '9223372036854775808', '-9223372036854775808', '-9223372036854775809',
    '18446744073709551615', '18446744073709551616', '123456789012345678901234567890'];
  const two53 = 2n ** 53n;
  for (let k = -64n; k <= 64n; k++) out.push(String(two53 + k), String(-two53 - k));
  for (let k = -16n; k <= 16n; k++) out.push(String(2n ** 63n + k), String(-(2n ** 63n) + k), String(2n ** 64n + k));
  for (let e = -330; e <= 310; e++) out.push(`1e${e}`, `1E+${e}`.replace('+-', '-'), `0.5e${e}`);
  for (let n = 1; n <= 40; n++) {  // zero and tiny values spelled with many zeros
    const zeros = '0'.repeat(n);
    out.push(`0.${zeros}`, `-0.${zeros}`, `0.${zeros}1`, `0.${zeros}e-${n}`, `0.${zeros}5e-${300 + n}`, `${zeros.replace(/^0/, '1')}e-${320 + n}`);
  }
  while (out.length < count) {
    const x = Math.abs(randomDouble(rng));
    switch (rng.int(4)) {
      case 0: out.push(x.toPrecision(1 + rng.int(21))); break;        // 1..21 significant digits
      case 1: out.push(x.toExponential(rng.int(21))); break;
      case 2: out.push(String(rng.u64() * (rng.chance(0.5) ? 1n : 10n ** BigInt(rng.int(10))))); break;
      default: {  // 17..40 random digits with a random exponent: exercises decimal -> double rounding
        let digits = String(1 + rng.int(9));
        const n = 16 + rng.int(24);
        for (let i = 0; i < n; i++) digits += rng.int(10);
        out.push(`${digits[0]}.${digits.slice(1)}e${rng.int(620) - 320}`);
      }
    }
  }
  // JSON.parse turns overflowing texts into Infinity, which no JCS can print: leave those out.
  return out.filter((t) => /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/.test(t) && Number.isFinite(Number(t)));
}

const CHAR_POOLS = [
  () => 'abcxyzABCXYZ019 _-.,:;!?@#$%^&*()[]{}<>~`|/\''.split(''),
  () => Array.from({ length: 32 }, (_, i) => String.fromCharCode(i)).concat(['\x7f']),
  () => ['"', '\\', '\\\\', '\\"', '"\\'],
  () => ['\u2028', '\u2029', '\u0085', '\u00a0', '\ufeff', '\u200b', '\u00e9', '\u00f6', '\u20ac', '\u0080'],
  () => ['\ue000', '\uf8ff', '\ufb33', '\ufffd', '\uffff', '\ud7ff'],
  () => ['\u{10000}', '\u{1f600}', '\u{1f4a9}', '\u{10ffff}', '\u{20000}', '\u{e0001}'],
];
function randomChar(rng) {
  switch (rng.int(8)) {
    case 0: return rng.pick(CHAR_POOLS[rng.int(CHAR_POOLS.length)]());
    case 1: return String.fromCharCode(rng.int(0x20));
    case 2: {  // any BMP scalar value (no surrogates)
      const cp = rng.int(0xf800);
      return String.fromCodePoint(cp < 0xd800 ? cp : cp + 0x800);
    }
    case 3: return String.fromCodePoint(0x10000 + rng.int(0x100000));  // astral
    case 4: return String.fromCodePoint(0xe000 + rng.int(0x2000));     // above the surrogates
    default: return String.fromCharCode(0x20 + rng.int(0x5f));        // printable ASCII
  }
}
function randomString(rng, maxLen = 24) {
  let s = '';
  const n = rng.int(maxLen + 1);
  for (let i = 0; i < n; i++) s += randomChar(rng);
  return s;
}

// Groups of keys whose UTF-8 (code point) order differs from their UTF-16 order.
function trickyKeyGroup(rng) {
  const prefix = rng.chance(0.5) ? '' : randomString(rng, 4);
  const group = [prefix + '\ue000', prefix + '\u{10000}', prefix + '\uffff', prefix + '\u{10ffff}',
    prefix + '\ufb33', prefix + '\u{1f600}', prefix + '\ud7ff', prefix, prefix + 'a', prefix + '\u{1f600}a'];
  return group.filter(() => rng.chance(0.7));
}

function randomScalar(rng) {
  switch (rng.int(6)) {
    case 0: return randomDouble(rng);
    case 1: return rng.int(2 ** 31) - 2 ** 30;
    case 2: return randomString(rng);
    case 3: return rng.pick([null, true, false]);
    case 4: return rng.pick([0, -0, 1e21, 1e-7, 2 ** 53, -(2 ** 53), 1700000000000 + rng.int(1e9)]);
    default: return randomDouble(rng) / 2 ** (rng.int(64));
  }
}
function randomValue(rng, depth) {
  if (depth <= 0 || rng.chance(0.35)) return randomScalar(rng);
  if (rng.chance(0.4)) {
    return Array.from({ length: rng.int(5) }, () => randomValue(rng, depth - 1));
  }
  const obj = {};
  const keys = rng.chance(0.3) ? trickyKeyGroup(rng) : [];
  const extra = rng.int(5);
  for (let i = 0; i < extra; i++) keys.push(randomString(rng, 8));
  for (const k of keys) obj[k] = randomValue(rng, depth - 1);
  return obj;
}

function generateLines(seed, count) {
  const rng = makeRng(seed);
  const lines = [];
  const add = (v) => lines.push(JSON.stringify(v));
  // 1. Doubles from random 64-bit patterns.
  for (let i = 0; i < Math.ceil(count * 0.25); i++) add(randomDouble(rng));
  // 2. Boundaries: powers of ten, 1e21, 1e-7, 2^53 neighbours, -0 ...
  for (const x of boundaryNumbers()) add(x);
  // 3. Raw number texts.
  for (const t of rawNumberTexts(rng, Math.ceil(count * 0.15))) lines.push(t);
  // 4. Strings.
  for (let i = 0; i < Math.ceil(count * 0.15); i++) add(randomString(rng, 40));
  for (const pool of CHAR_POOLS) add(pool().join(''));
  // 5. Objects with tricky keys, nested containers.
  for (let i = 0; i < Math.ceil(count * 0.1); i++) {
    const obj = {};
    for (const k of trickyKeyGroup(rng)) obj[k] = randomScalar(rng);
    add(obj);
  }
  for (let i = 0; i < Math.ceil(count * 0.2); i++) add(randomValue(rng, 1 + rng.int(7)));
  // 6. Some lines with generous whitespace, which canonicalisation removes.
  for (let i = 0; i < 50; i++) lines.push(JSON.stringify(randomValue(rng, 4), null, rng.pick([1, 2, '\t'])).replace(/\n/g, ' '));
  // Keep every line well under parse_strict's 1 MiB document limit.
  return lines.filter((l) => l.length < 200_000);
}

// ---------------------------------------------------------------------------------------------
// Documents for plain `fleetctl jcs` (whole stdin, no trailing newline in the output).

function manifestLike(rng, targetBytes) {
  const hex = (n) => Array.from({ length: n }, () => '0123456789abcdef'[rng.int(16)]).join('');
  const m = {
    node_id: '01jd3x' + Array.from({ length: 20 }, () => '0123456789abcdefghjkmnpqrstvwxyz'[rng.int(32)]).join(''),
    manifest_version: '1.1.0',
    issued_at_ms: 1732262400000,
    expires_at_ms: 1732262400000 + 3600000,
    hw_fingerprint: { value: hex(64), sources: ['cpu_serial', 'machine_id'], algo: 'blake3-256' },
    capabilities: [],
    node_attestation: { sig: '', payload_hash: '', kid: hex(64), alg: 'Ed25519' },
  };
  for (let i = 0; JSON.stringify(m, null, 2).length < targetBytes; i++) {
    m.capabilities.push({
      verbs: ['invoke', 'get'],
      kind: rng.pick(['system.echo', 'system.metrics']),
      schema_ref: 'mcp://schemas/system.echo@1.0.0',
      safety_class: 'read_only',
      constraints: { rate_limit_rps: rng.pick([10, 2.5, 0.1, 1000]), max_concurrency: 4, deadline_ms_default: 2000 },
      cap_id: `cap_${i}`,
      description: `Capability ${i}: ${randomString(rng, 30)} \u00e9t\u00e9 \u{1f600} "quoted" \\path\\`,
      labels: { '\ue000private': i, '\u{1f4a9}': -i / 7, zone: 'r\u00e4ck-' + (i % 5), a: [1e21, 1e-7, -0, 0.1] },
    });
  }
  // Stay under the 64 KiB announce limit.
  while (JSON.stringify(m, null, 2).length > targetBytes + 2048) m.capabilities.pop();
  return m;
}

function writeFiles(dir) {
  mkdirSync(dir, { recursive: true });
  const rng = makeRng(8785);
  const docs = {
    rfc8785_sample: `{\n  "numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],\n` +
      `  "string": "\\u20ac$\\u000F\\u000aA'\\u0042\\u0022\\u005c\\\\\\"\\/",\n  "literals": [null, true, false]\n}\n`,
    rfc8785_sorting: JSON.stringify({ '\u20ac': 'Euro Sign', '\r': 'Carriage Return', '\ufb33': 'Hebrew Letter Dalet With Dagesh',
      1: 'One', '\u{1f600}': 'Emoji: Grinning Face', '\u0080': 'Control', '\u00f6': 'Latin Small Letter O With Diaeresis',
      '</script>': 'Browser Challenge' }, null, 4),
    manifest_60k: JSON.stringify(manifestLike(rng, 60 * 1024), null, 2) + '\n',
    nested_crlf: JSON.stringify(Object.fromEntries(Array.from({ length: 12 }, (_, i) =>
      [`${randomString(rng, 6)}${i}`, [randomValue(rng, 6), { [randomString(rng, 4)]: randomValue(rng, 6) }]])), null, '\t')
      .replace(/\n/g, '\r\n'),
    scalar_number: '  1E21\n',
  };
  for (const [name, text] of Object.entries(docs)) {
    writeFileSync(join(dir, `${name}.json`), text);
    writeFileSync(join(dir, `${name}.expected`), canonicalize(JSON.parse(text)));
  }
  console.log(Object.keys(docs).join(' '));
}

// ---------------------------------------------------------------------------------------------

function parseOptions(argv) {
  const opts = {};
  for (let i = 0; i < argv.length; i += 2) {
    if (!argv[i].startsWith('--') || i + 1 >= argv.length) throw new Error(`bad argument ${argv[i]}`);
    opts[argv[i].slice(2)] = argv[i + 1];
  }
  return opts;
}

function splitLines(out) {
  const got = [];
  for (let start = 0; start < out.length;) {
    const nl = out.indexOf(0x0a, start);
    if (nl < 0) { got.push(out.subarray(start)); break; }
    got.push(out.subarray(start, nl));
    start = nl + 1;
  }
  return got;
}

// `fleetctl jcs --lines` over all lines at once. fleetctl stops at the first line it refuses, so
// then the batch is bisected until each refused line stands alone and every difference shows.
function runLines(fleetctl, lines, input = Buffer.from(lines.map((l) => l + '\n').join(''), 'utf8')) {
  const run = spawnSync(fleetctl, ['jcs', '--lines'], { input, maxBuffer: 1 << 30 });
  if (run.error) throw run.error;
  if (run.status === 0) return splitLines(run.stdout);
  if (lines.length === 1) return [Buffer.from(`<exit ${run.status ?? run.signal}: ${run.stderr.toString().trim()}>`)];
  const half = lines.length >> 1;
  return runLines(fleetctl, lines.slice(0, half)).concat(runLines(fleetctl, lines.slice(half)));
}

function crossCheckLines(opts) {
  const seed = Number(opts.seed ?? 20241122);
  const count = Number(opts.count ?? 6000);
  const lines = generateLines(seed, count);
  const input = Buffer.from(lines.join('\n') + '\n', 'utf8');
  if (opts.save) writeFileSync(opts.save, input);  // to replay by hand: fleetctl jcs --lines < FILE
  const got = runLines(opts.fleetctl, lines, input);
  let passed = 0;
  const failures = [];
  for (let i = 0; i < lines.length; i++) {
    const expected = Buffer.from(canonicalize(JSON.parse(lines[i])), 'utf8');
    if (got[i] !== undefined && expected.equals(got[i])) passed++;
    else failures.push({ line: i + 1, input: lines[i], expected: expected.toString('utf8'), got: got[i]?.toString('utf8') });
  }
  if (got.length !== lines.length) {
    failures.push({ line: '-', input: `${lines.length} lines in`, expected: `${lines.length} lines out`, got: `${got.length} lines out` });
  }
  for (const f of failures.slice(0, 5)) {
    console.error(`mismatch at line ${f.line}\n  input:    ${f.input.slice(0, 300)}\n` +
      `  expected: ${JSON.stringify(f.expected)?.slice(0, 300)}\n  got:      ${JSON.stringify(f.got)?.slice(0, 300)}`);
  }
  console.log(`jcs --lines, seed ${seed}: ${passed} passed, ${failures.length} failed (${lines.length} values, ${input.length} bytes)`);
  if (failures.length > 0 || passed < 5000) process.exit(1);
}

const [mode, ...rest] = process.argv.slice(2);
const opts = parseOptions(rest);
if (mode === 'lines' && opts.fleetctl) crossCheckLines(opts);
else if (mode === 'files' && opts.out) writeFiles(opts.out);
else {
  console.error('usage: node jcs_crosscheck.mjs lines --fleetctl PATH [--seed N] [--count N] [--save FILE]\n' +
    '       node jcs_crosscheck.mjs files --out DIR');
  process.exit(2);
}
