// Stoplight Prism (pinned in package-lock.json) as a strict OpenAPI 3.0.3 validating proxy in
// front of the fake program, over a run of every operation of openapi.json: every answer of
// the fake must validate, with no violation of the request or the answer.
//
// Three proxies run, all over openapi.json as committed:
//   rest  `prism proxy openapi.json <fake>/api/rest/v1 --errors`: every REST operation with
//         valid requests, answered 2xx, or 400, 401, 404 or 409 for reasons the schema cannot
//         state (an unreadable feed, an index past the feed's end, a wrong key, an unknown id,
//         an upload used twice).
//   root  `prism proxy openapi.json <fake> --errors`: the webhook subscription calls, which live
//         at the deployment's root.
//   loose `prism proxy openapi.json <fake>/api/rest/v1` (no --errors): requests that break the
//         schema on purpose, which Prism --errors would refuse itself; the fake's 400 answer must
//         validate, and Prism may report violations of the request only.
//
// usage: node run.mjs <fakeserver binary> <openapi.json>
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import net from "node:net";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

const [binary, specPath] = process.argv.slice(2);
if (!binary || !specPath) {
  console.error("usage: node run.mjs <fakeserver binary> <openapi.json>");
  process.exit(2);
}
const prismBin = fileURLToPath(new URL("node_modules/.bin/prism", import.meta.url));
const children = [];
process.on("exit", () => children.forEach((c) => c.kill("SIGTERM")));

// startFake starts the fake on a free loopback port with a manual clock and resolves with its
// start line (base_url, admin_token, api_key, workspace_id).
function startFake() {
  const proc = spawn(binary, ["-addr", "127.0.0.1:0", "-clock", "manual", "-allow-private-urls", "-log-level", "warn"],
    { stdio: ["ignore", "pipe", "inherit"] });
  children.push(proc);
  return new Promise((resolve, reject) => {
    createInterface({ input: proc.stdout }).once("line", (line) => resolve(JSON.parse(line)));
    proc.once("exit", (code) => reject(new Error(`fakeserver exited with ${code} before its start line`)));
  });
}

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

// startPrism starts one proxy to upstream and resolves with its URL once it listens.
async function startPrism(name, upstream, errors) {
  const port = await freePort();
  const args = ["proxy", specPath, upstream, "--host", "127.0.0.1", "--port", String(port)];
  if (errors) args.push("--errors");
  const proc = spawn(prismBin, args, { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, SCARF_ANALYTICS: "false", NO_COLOR: "1" } });
  children.push(proc);
  const log = [];
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`prism ${name} did not start in 300 s:\n${log.join("\n")}`)), 300_000);
    for (const stream of [proc.stdout, proc.stderr]) {
      createInterface({ input: stream }).on("line", (line) => {
        log.push(line);
        if (line.includes("Prism is listening on")) {
          clearTimeout(timer);
          resolve({ name, url: `http://127.0.0.1:${port}`, errors, log });
        }
      });
    }
    proc.once("exit", (code) => reject(new Error(`prism ${name} exited with ${code}:\n${log.join("\n")}`)));
  });
}

const spec = JSON.parse(readFileSync(specPath, "utf8"));
const fake = await startFake();
const base = fake.base_url;
console.log(`fake at ${base}`);
const [rest, root, loose] = await Promise.all([
  startPrism("rest", `${base}/api/rest/v1`, true),
  startPrism("root", base, true),
  startPrism("loose", `${base}/api/rest/v1`, false),
]);
console.log(`prism: rest ${rest.url}, root ${root.url}, loose ${loose.url}`);

const failures = [];
const seen = new Map(); // "METHOD /template" -> statuses answered
let calls = 0;

// call sends one request through proxy for the operation op ("METHOD /template") and checks
// the answer: the wanted status, no answer of Prism's own (application/problem+json) and no
// violation (sl-violations) unless the proxy is the loose one and the violations are all of
// the request. On the loose proxy, a request must break the schema in Prism's eyes unless
// prismSees is false.
async function call(proxy, op, path, { key = fake.api_key, cookie, body, want, prismSees = true }) {
  const [method] = op.split(" ");
  const headers = {};
  if (key !== null) headers.authorization = `Bearer ${key}`;
  if (cookie) headers.cookie = cookie;
  if (body !== undefined) headers["content-type"] = "application/json";
  const res = await fetch(proxy.url + path, {
    method,
    headers,
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await res.text();
  calls++;
  const where = `${proxy.name}: ${method} ${path}`;
  const type = res.headers.get("content-type") || "";
  let violations = [];
  const header = res.headers.get("sl-violations");
  if (header) {
    try {
      violations = JSON.parse(header);
    } catch {
      violations = [{ location: ["?"], message: header }];
    }
  }
  if (type.startsWith("application/problem+json")) {
    failures.push(`${where}: Prism answered ${res.status} itself: ${text}`);
  } else if (proxy.errors ? violations.length > 0 : violations.some((v) => v.location?.[0] !== "request")) {
    failures.push(`${where}: violations ${JSON.stringify(violations)}`);
  } else if (!proxy.errors && prismSees && violations.length === 0) {
    failures.push(`${where}: meant to break the schema, but Prism saw no violation of the request`);
  }
  if (res.status !== want) {
    failures.push(`${where}: ${res.status}, want ${want}: ${text.slice(0, 300)}`);
  }
  if (!seen.has(op)) seen.set(op, new Set());
  seen.get(op).add(res.status);
  let json;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {}
  return json;
}

// control calls the fake's control API directly (it is not part of openapi.json).
async function control(method, path, body) {
  const res = await fetch(base + path, {
    method,
    headers: { authorization: `Bearer ${fake.admin_token}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`control ${method} ${path}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

const unknown = "0f0e0d0c-0b0a-4909-8807-060504030201";
const lines = [{ start: 0, end: 1500, text: "Welcome to the show.", speaker: "Host", confidence: 0.98 }];
const feed = await control("POST", "/_fake/feeds", {
  title: "Prism Show",
  episodes: [
    { title: "Episode 2", duration_s: 20, transcript: lines },
    { title: "Episode 1", duration_s: 20, format: "wav" },
  ],
});

await call(rest, "GET /me", "/me", { want: 200 });
// A browser session: key is null.
const session = await control("POST", `/_fake/workspaces/${fake.workspace_id}/sessions`);
await call(rest, "GET /me", "/me", { key: null, cookie: `sessionid=${session.sessionid}`, want: 200 });

// A report from a feed URL, read while it is pending: stats, file_info, metadata and
// cover_image are null.
const fromFeed = await call(rest, "POST /reports", "/reports", { body: { feed_url: feed.feed_url }, want: 201 });
await call(rest, "GET /reports/{report_id}", `/reports/${fromFeed.id}`, { want: 200 });

const series = await call(rest, "GET /series", "/series?limit=10&offset=0", { want: 200 });
const seriesID = series.items[0].id;
await call(rest, "GET /series", "/series", { want: 200 });
await call(rest, "GET /series/{series_id}", `/series/${seriesID}`, { want: 200 });
await call(rest, "GET /series/{series_id}/episodes", `/series/${seriesID}/episodes`, { want: 200 });
await call(rest, "GET /series/{series_id}/episodes", `/series/${seriesID}/episodes?limit=1&offset=1`, { want: 200 });
const fromSeries = await call(rest, "POST /reports", "/reports", { body: { series_id: seriesID, episode_index: 1 }, want: 201 });

// An upload: reserve, PUT the bytes of the hosted feed's episode (the signed URL is no
// operation of openapi.json, so it is called directly), report on it; its series and episode
// are null.
const rss = await (await fetch(feed.feed_url)).text();
const enclosure = /<enclosure[^>]*url="([^"]+)"/.exec(rss)[1].replaceAll("&amp;", "&");
const audio = Buffer.from(await (await fetch(enclosure)).arrayBuffer());
const reservation = await call(rest, "POST /uploads", "/uploads", { body: { file_name: "take.mp3", file_type: "audio/mpeg", duration_ms: 20000 }, want: 201 });
const put = await fetch(reservation.upload_url, { method: "PUT", headers: { "content-type": "audio/mpeg" }, body: audio });
if (!put.ok) failures.push(`PUT upload: ${put.status} ${await put.text()}`);
const upload = { report_id: reservation.report_id, original_filename: "take.mp3", duration_ms: 20000 };
await call(rest, "POST /reports", "/reports", { body: upload, want: 201 });
await call(rest, "GET /reports/{report_id}", `/reports/${reservation.report_id}`, { want: 200 });
await call(rest, "POST /reports", "/reports", { body: upload, want: 409 });

// Listings with every filter, while the reports are pending.
const now = (await control("GET", "/_fake/clock")).now;
const past = "2000-01-01T00:00:00Z";
await call(rest, "GET /reports", "/reports", { want: 200 });
await call(rest, "GET /reports", `/reports?series_id=${seriesID}&status=PENDING&limit=5&offset=0`, { want: 200 });
await call(rest, "GET /reports", `/reports?created_since=${encodeURIComponent(past)}&updated_since=${encodeURIComponent(past)}`, { want: 200 });
await call(rest, "GET /reports", `/reports?updated_since=${encodeURIComponent(now)}`, { want: 200 });
await call(rest, "GET /reports", "/reports?limit=1&offset=1", { want: 200 });

// Complete them on the fake's clock, then read each whole, the transcript and the listing.
await control("POST", "/_fake/clock/advance", { seconds: 7200 });
for (const id of [fromFeed.id, fromSeries.id, reservation.report_id]) {
  await call(rest, "GET /reports/{report_id}", `/reports/${id}`, { want: 200 });
  await call(rest, "GET /reports/{report_id}/transcript", `/reports/${id}/transcript`, { want: 200 });
}
await call(rest, "GET /reports", "/reports?status=COMPLETE", { want: 200 });
await call(rest, "GET /reports", `/reports?updated_since=${encodeURIComponent(now)}`, { want: 200 });
await call(rest, "GET /credits", "/credits", { want: 200 });

// Error answers for reasons the schema cannot state.
await call(rest, "GET /me", "/me", { key: "podqa_api_not_a_key", want: 401 });
await call(rest, "GET /reports", "/reports", { key: "podqa_api_not_a_key", want: 401 });
await call(rest, "POST /reports", "/reports", { key: "podqa_api_not_a_key", body: { feed_url: feed.feed_url }, want: 401 });
await call(rest, "GET /reports/{report_id}", `/reports/${unknown}`, { want: 404 });
await call(rest, "GET /reports/{report_id}/transcript", `/reports/${unknown}/transcript`, { want: 404 });
await call(rest, "GET /series/{series_id}", `/series/${unknown}`, { want: 404 });
await call(rest, "GET /series/{series_id}/episodes", `/series/${unknown}/episodes`, { want: 404 });
await call(rest, "POST /reports", "/reports", { body: { series_id: unknown }, want: 404 });
await call(rest, "POST /reports", "/reports", { body: { report_id: unknown, original_filename: "x.mp3", duration_ms: 1 }, want: 404 });
await call(rest, "POST /reports", "/reports", { body: { feed_url: "http://127.0.0.1:1/feed.xml" }, want: 400 });
await call(rest, "POST /reports", "/reports", { body: { series_id: seriesID, episode_index: 99 }, want: 400 });

// The webhook subscription, at the root.
const hook = await call(root, "POST /webhook/subscribe", "/webhook/subscribe", { body: { url: "http://127.0.0.1:9/hook", events: ["report.completed"] }, want: 201 });
await call(root, "DELETE /webhook/subscribe/{id}", `/webhook/subscribe/${hook.id}`, { want: 204 });
await call(root, "DELETE /webhook/subscribe/{id}", `/webhook/subscribe/${hook.id}`, { want: 404 });
await call(root, "POST /webhook/subscribe", "/webhook/subscribe", { body: { url: "ftp://127.0.0.1/hook", events: ["report.completed"] }, want: 400 });
await call(root, "POST /webhook/subscribe", "/webhook/subscribe", { key: "podqa_api_not_a_key", body: { url: "http://127.0.0.1:9/hook", events: ["report.completed"] }, want: 401 });
await call(root, "DELETE /webhook/subscribe/{id}", `/webhook/subscribe/${unknown}`, { key: "podqa_api_not_a_key", want: 401 });

// Requests that break the schema: the fake's 400 must validate.
await call(loose, "GET /reports", "/reports?limit=abc", { want: 400 });
await call(loose, "GET /reports", "/reports?status=complete", { want: 400 });
await call(loose, "GET /series", "/series?offset=-1", { want: 400 });
await call(loose, "GET /series/{series_id}/episodes", `/series/${seriesID}/episodes?limit=101`, { want: 400 });
await call(loose, "POST /reports", "/reports", { body: {}, want: 400 });
await call(loose, "POST /reports", "/reports", { body: { feed_url: feed.feed_url, series_id: seriesID }, want: 400 });
// Prism reads a body that is not JSON as no body to check, so it reports nothing here.
await call(loose, "POST /reports", "/reports", { body: "{not json", want: 400, prismSees: false });
await call(loose, "POST /uploads", "/uploads", { body: { file_name: "x.mp3" }, want: 400 });

// Every operation of openapi.json was called and answered 2xx at least once.
for (const [path, item] of Object.entries(spec.paths)) {
  for (const method of Object.keys(item)) {
    if (!["get", "put", "post", "delete", "patch"].includes(method)) continue;
    const op = `${method.toUpperCase()} ${path}`;
    const statuses = [...(seen.get(op) || [])].sort();
    if (!statuses.some((s) => s >= 200 && s < 300)) failures.push(`${op}: never answered 2xx (answered ${statuses.join(", ") || "nothing"})`);
    console.log(`${op}: ${statuses.join(", ")}`);
  }
}
console.log(`${calls} requests through Prism`);
if (failures.length > 0) {
  console.error(`${failures.length} problems:\n${failures.join("\n")}`);
  process.exit(1);
}
console.log("no violation");
process.exit(0);
