// Drives the dashboard's webhook and journal pages in headless Chromium at 1280 px, as a person
// would: a delivery names and links its report and shows the headers sent and the receiver's
// answer; Resend makes a new attempt that the receiver gets and the page shows; the journal
// (with a signed upload URL and a request a fault failed), a request's page, the hosted feeds
// and the faults page fit the window; axe-core finds no violation on any of these pages.
// Screenshots go to ARTIFACTS_DIR.
//
// usage: node hooks.mjs PATH_TO_FAKESERVER_BINARY ARTIFACTS_DIR
import { mkdirSync } from "node:fs";
import { createServer } from "node:http";
import { join } from "node:path";
import { axeViolations, launchChromium, startFake } from "./fake.mjs";

const [fakeBinary, artifacts] = process.argv.slice(2);
if (!fakeBinary || !artifacts) {
  console.error("usage: node hooks.mjs FAKESERVER_BINARY ARTIFACTS_DIR");
  process.exit(2);
}
mkdirSync(artifacts, { recursive: true });
const WIDTH = 1280;

async function call(start, token, method, path, body, headers = {}) {
  const res = await fetch(path.startsWith("http") ? path : start.base_url + path, {
    method,
    headers: { ...(token ? { Authorization: `Bearer ${token}` } : {}), ...(body && typeof body !== "string" && !(body instanceof Uint8Array) ? { "Content-Type": "application/json" } : {}), ...headers },
    body: body === undefined ? undefined : typeof body === "string" || body instanceof Uint8Array ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: text && text.startsWith("{") ? JSON.parse(text) : null, text };
}

function check(ok, message) {
  if (!ok) throw new Error(message);
}

// A receiver on loopback that answers 500 with a body until told otherwise, counting hits.
function receiver() {
  const state = { status: 500, hits: 0 };
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      state.hits++;
      res.writeHead(state.status, { "Content-Type": "application/json" });
      res.end(JSON.stringify({ error: state.status === 200 ? null : "receiver is down for maintenance", hit: state.hits }));
    });
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve({ server, state, url: `http://127.0.0.1:${server.address().port}/hooks/podqa` })));
}

async function login(page, start) {
  await page.goto(`${start.base_url}/_fake/ui/login`);
  await page.locator("#token").fill(start.admin_token);
  await Promise.all([page.waitForURL(`${start.base_url}/_fake/ui/`), page.locator("#login-form button").click()]);
}

// fits checks that the page needs no horizontal scrolling at WIDTH px and takes a screenshot.
async function fits(page, name) {
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  await page.screenshot({ path: join(artifacts, `hooks-${name}.png`), fullPage: true });
  check(width <= WIDTH, `${name}: the page is ${width} px wide at a ${WIDTH} px window`);
  return width;
}

// axe runs axe-core on the page and fails on any violation.
async function axe(page, name) {
  const { version, violations } = await axeViolations(page);
  check(violations.length === 0, `${name}: axe-core ${version} violations: ${violations.join("; ")}`);
  return version;
}

const { proc, start } = await startFake(fakeBinary, ["-clock", "manual", "-allow-private-urls", "-log-level", "warn"]);
const hook = await receiver();
let browser;
try {
  const admin = start.admin_token;
  const ws = start.workspace_id;
  // An endpoint, and a report whose completion it hears about (the receiver answers 500).
  const ep = (await call(start, admin, "POST", `/_fake/workspaces/${ws}/webhook-endpoints`, { url: hook.url, events: ["report.completed"] })).json;
  const seeded = (await call(start, admin, "POST", `/_fake/workspaces/${ws}/reports`, { reports: [{ file_name: "episode-12-final.wav", complete_after_s: 60 }] })).json;
  const reportID = seeded.ids[0];
  await call(start, admin, "POST", "/_fake/clock/advance", { seconds: 120 });
  check(hook.state.hits === 1, `the receiver got ${hook.state.hits} attempts, want 1`);

  browser = await launchChromium();
  const context = await browser.newContext({ viewport: { width: WIDTH, height: 900 } });
  const page = await context.newPage();
  page.setDefaultTimeout(20000);
  await login(page, start);
  const versions = new Set();

  // The endpoint's page: the delivery names and links its report, shows what was sent and
  // what the receiver answered, and each thing once on the attempt's line.
  await page.goto(`${start.base_url}/_fake/ui/endpoints/${ep.id}`);
  const delivery = page.locator("section.delivery").first();
  const link = delivery.locator("a.report-link");
  check((await link.getAttribute("href")) === `/_fake/ui/reports/${reportID}`, `the delivery links ${await link.getAttribute("href")}, want the report ${reportID}`);
  check((await link.innerText()).includes("episode-12-final.wav"), `the report link reads ${await link.innerText()}`);
  await delivery.locator("details.request summary").click();
  await delivery.locator("details.answer summary").click();
  const headers = await delivery.locator("table.headers").innerText();
  for (const h of ["webhook-id", "webhook-timestamp", "webhook-signature"]) check(headers.includes(h), `the request headers lack ${h}: ${headers}`);
  check(!/whsec_/.test(await page.content()), "the page shows a secret");
  const answer = await delivery.locator("details.answer").innerText();
  check(/HTTP 500/.test(answer) && answer.includes("receiver is down for maintenance"), `the answer shown: ${answer}`);
  const body = await delivery.locator("details.request pre.body").innerText();
  check(body.includes('\n  "type": "report.completed"'), "the body is not indented");
  const line = (await delivery.locator("li.attempt.failed").first().innerText()).replace(/\s+/g, " ");
  check((line.match(/HTTP 500/g) || []).length === 1, `the attempt line repeats itself: ${line}`);
  await fits(page, "endpoint");
  versions.add(await axe(page, "endpoint page"));
  console.log(`hooks: the delivery links report ${reportID}, shows webhook-id/-timestamp/-signature and the receiver's HTTP 500 answer; attempt line "${line}"`);

  // Resend: the receiver now answers 200; the button makes the attempt at once.
  hook.state.status = 200;
  await Promise.all([page.waitForURL(/\/_fake\/ui\/endpoints\/.*resent=/), delivery.locator("button.resend-button").click()]);
  check(hook.state.hits === 2, `after Resend the receiver got ${hook.state.hits} attempts, want 2`);
  const resent = (await page.locator("li.attempt.succeeded").first().innerText()).replace(/\s+/g, " ");
  check(/attempt 2 \(resend\): succeeded · HTTP 200/.test(resent), `after Resend: ${resent}`);
  check((await page.locator("#notice").innerText()).includes("succeeded"), "no notice of the resend");
  // A resend that delivered is told as a success (the good colour), not in an error's box.
  const noticeBorder = await page.locator("#notice").evaluate((e) => getComputedStyle(e).borderTopColor);
  check(noticeBorder === "rgb(30, 125, 50)", `the resend's success notice is drawn in ${noticeBorder}, not the success colour`);
  // Attempt 1's retry is past once the delivery succeeded: its line names no next attempt.
  const first = (await page.locator('li.attempt[data-attempt="1"]').innerText()).replace(/\s+/g, " ");
  check(!first.includes("next attempt"), `after the delivery succeeded, attempt 1 still says: ${first}`);
  await fits(page, "endpoint-resent");
  console.log(`hooks: Resend made attempt 2 at once: "${resent}"`);

  await page.goto(`${start.base_url}/_fake/ui/workspaces/${ws}/webhooks`);
  await fits(page, "webhooks");
  versions.add(await axe(page, "webhooks page"));

  // The journal: a signed upload URL (long path and query) and a request a fault failed.
  const upload = (await call(start, start.api_key, "POST", "/api/rest/v1/uploads", { file_name: "episode.wav", file_type: "audio/wav", duration_ms: 1000 })).json;
  check(upload && upload.upload_url, `POST /uploads: ${JSON.stringify(upload)}`);
  await call(start, null, "PUT", upload.upload_url, new Uint8Array(64), { "Content-Type": "audio/wav" });
  const fault = (await call(start, admin, "POST", "/_fake/faults", { path_prefix: "/api/rest/v1/me", status: 503 })).json;
  const failed = await call(start, start.api_key, "GET", "/api/rest/v1/me");
  check(failed.status === 503, `the fault answered ${failed.status}`);
  await call(start, start.api_key, "POST", "/api/rest/v1/reports", { feed_url: "https://example.com/" + "very-long-feed-path/".repeat(20) + "feed.xml" });
  await page.goto(`${start.base_url}/_fake/ui/requests`);
  const faultLink = page.locator("#journal a.fault-link").first();
  check((await faultLink.getAttribute("href")) === `/_fake/ui/faults#fault-${fault.id}`, `the fault link: ${await faultLink.getAttribute("href")}`);
  const uploadCell = page.locator("#journal td.path code").filter({ hasText: "/_uploads/" }).first();
  const title = await uploadCell.getAttribute("title");
  check(title.startsWith(new URL(upload.upload_url).pathname) && (await uploadCell.innerText()).endsWith("…"), `the upload's path cell: ${await uploadCell.innerText()} / ${title}`);
  const journalWidth = await fits(page, "journal");
  versions.add(await axe(page, "journal page"));
  console.log(`hooks: the journal is ${journalWidth} px wide at ${WIDTH}; the signed upload path is cut (whole in the title); the 503 links fault ${fault.id}`);

  // A request's own page.
  await Promise.all([page.waitForURL(/\/_fake\/ui\/requests\/[0-9a-f-]+/), page.locator("#journal tr.entry td:first-child a").first().click()]);
  await fits(page, "request");
  versions.add(await axe(page, "request page"));

  await page.goto(`${start.base_url}/_fake/ui/faults`);
  await fits(page, "faults");
  versions.add(await axe(page, "faults page"));

  // Hosted feeds with long titles, tags and transcripts.
  const longText = "A rather long title for an episode that goes on ".repeat(6);
  await call(start, admin, "POST", "/_fake/feeds", {
    title: "Feed with a long title " + longText,
    episodes: [{ title: longText, guid: "guid-" + "x".repeat(120), duration_s: 1, tags: { title: longText, artist: longText, album: longText, comment: longText }, transcript: [{ start: 0, end: 1, text: longText }] }],
  });
  await page.goto(`${start.base_url}/_fake/ui/feeds`);
  const feedsWidth = await fits(page, "feeds");
  versions.add(await axe(page, "feeds page"));
  console.log(`hooks: the feeds page is ${feedsWidth} px wide at ${WIDTH}; axe-core ${[...versions].join(", ")}: no violation on the endpoint, webhooks, journal, request, faults and feeds pages`);
  console.log(`hooks: screenshots in ${artifacts}`);
} finally {
  if (browser) await browser.close();
  hook.server.close();
  proc.kill("SIGTERM");
}
