// Runs the official MCP conformance CLI (@modelcontextprotocol/conformance) on Node 20, the Node
// Debian bookworm and CI install: its bundle imports fs.globSync, which Node has only from 22 (it
// finds the checks.json files it wrote with it). On an older Node a module hook hands the bundle
// node20_fs.mjs, `fs` plus that one function. Usage: node node20_conformance.mjs <conformance args…>
import { createRequire, register } from 'node:module';

if (!('globSync' in (await import('node:fs')))) {
  register('data:text/javascript,' + encodeURIComponent(`
    export async function resolve(specifier, context, next) {
      if ((specifier === 'fs' || specifier === 'node:fs') && context.parentURL?.includes('/@modelcontextprotocol/conformance/'))
        return { url: ${JSON.stringify(new URL('./node20_fs.mjs', import.meta.url).href)}, shortCircuit: true };
      return next(specifier, context);
    }`));
}
const require = createRequire(import.meta.url);
const bin = require.resolve('@modelcontextprotocol/conformance/package.json').replace(/package\.json$/, 'dist/index.js');
process.argv.splice(1, 1, bin);
await import(bin);
