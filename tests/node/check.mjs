// What every test client prints and how it stops: "ok - …" per passed check, "FAIL: …" and
// exit 1 on the first failed one (the integration scripts grep for both).
export function ok(what) { console.log(`ok - ${what}`); }

export function fail(what, detail) {
  const text = detail === undefined ? '' : `: ${typeof detail === 'string' ? detail : JSON.stringify(detail)}`;
  console.error(`FAIL: ${what}${text}`);
  process.exit(1);
}

export function check(cond, what, detail) {
  if (!cond) fail(what, detail);
  ok(what);
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// The RFC-0001 envelope of a tools/call result with isError: from _meta, else the text content.
export const envelope = (result) => result._meta?.['io.fleetmcp/error'] ?? JSON.parse(result.content[0].text);
