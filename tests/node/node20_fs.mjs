// node:fs plus globSync for Node 20 (node20_conformance.mjs says why). Only what the conformance
// bundle asks of it: a relative pattern of "*", "**" and literal segments, under options.cwd.
import fs from 'node:fs';
import path from 'node:path';
export * from 'node:fs';
export default fs;

function toRegExp(pattern) {
  let re = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '*' && pattern[i + 1] === '*') {
      re += pattern[i + 2] === '/' ? '(?:.*/)?' : '.*';
      i += pattern[i + 2] === '/' ? 2 : 1;
    } else if (c === '*') re += '[^/]*';
    else re += c.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

export function globSync(pattern, options = {}) {
  const cwd = options.cwd ?? process.cwd();
  const res = (Array.isArray(pattern) ? pattern : [pattern]).map(toRegExp);
  const out = [];
  const walk = (dir, rel) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (res.some((re) => re.test(r))) out.push(r);
      if (e.isDirectory()) walk(path.join(dir, e.name), r);
    }
  };
  if (fs.existsSync(cwd)) walk(cwd, '');
  return out;
}
