// The GraphQL-over-HTTP audit of graphql-http (serverAudits, pinned in package-lock.json)
// against the fake program's /api/graphql: every MUST and every SHOULD audit must pass; the
// MAY audits are printed and do not count (the fake serves its explorer page on GET, so the
// GET audits are MAY notices).
// usage: node audit.mjs <fakeserver binary>
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { serverAudits } from "graphql-http";

const binary = process.argv[2];
if (!binary) {
  console.error("usage: node audit.mjs <fakeserver binary>");
  process.exit(2);
}
const proc = spawn(binary, ["-addr", "127.0.0.1:0", "-clock", "manual", "-log-level", "warn"], { stdio: ["ignore", "pipe", "inherit"] });
process.on("exit", () => proc.kill("SIGTERM"));
const start = await new Promise((resolve, reject) => {
  createInterface({ input: proc.stdout }).once("line", (line) => resolve(JSON.parse(line)));
  proc.once("exit", (code) => reject(new Error(`fakeserver exited with ${code} before its start line`)));
});
const url = `${start.base_url}/api/graphql`;
console.log(`auditing ${url}`);

// One audit after the other, so that each failure's answer is read before the next request.
const results = [];
for (const audit of serverAudits({ url })) {
  results.push(await audit.fn());
}
const tally = {};
const failed = [];
for (const r of results) {
  const level = r.name.split(" ")[0];
  tally[level] ??= { ok: 0, of: 0 };
  tally[level].of++;
  if (r.status === "ok") {
    tally[level].ok++;
    console.log(`ok     ${r.id} ${r.name}`);
    continue;
  }
  let body = "";
  try {
    body = await r.response.text();
  } catch {}
  console.log(`${r.status.padEnd(6)} ${r.id} ${r.name}: ${r.reason}${body ? `\n       answer ${r.response.status}: ${body.slice(0, 200)}` : ""}`);
  if (level === "MUST" || level === "SHOULD") failed.push(r);
}
for (const [level, t] of Object.entries(tally)) {
  console.log(`${level}: ${t.ok} of ${t.of} pass`);
}
if (!tally.MUST?.of || !tally.SHOULD?.of) {
  console.error("the audit listed no MUST or no SHOULD audits; is graphql-http the pinned version?");
  process.exit(1);
}
if (failed.length > 0) {
  console.error(`${failed.length} MUST or SHOULD audits fail`);
  process.exit(1);
}
process.exit(0);
