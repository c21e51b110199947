// Drives the fake's dashboard (/_fake/ui) in headless Chromium as a user would: logs in through
// the form, watches a report complete when the manual clock is advanced from the page, reads the
// loudness plot's points back from the DOM and checks them against GET /_fake/reports/{id},
// opens a webhook delivery's timeline, checks that hosted episode titles, tags and transcripts
// made of script payloads run nothing under the page's CSP, and prints the first paint of a
// workspace's reports page holding 100,000 reports. Screenshots go to ARTIFACTS_DIR.
//
// usage: node dashboard.mjs PATH_TO_FAKESERVER_BINARY ARTIFACTS_DIR
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { launchChromium, startFake } from "./fake.mjs";

const [fakeBinary, artifacts] = process.argv.slice(2);
if (!fakeBinary || !artifacts) {
  console.error("usage: node dashboard.mjs FAKESERVER_BINARY ARTIFACTS_DIR");
  process.exit(2);
}
mkdirSync(artifacts, { recursive: true });

// call makes one API call with a bearer token and returns the parsed JSON answer.
async function call(start, token, method, path, body) {
  const res = await fetch(start.base_url + path, {
    method,
    headers: { Authorization: `Bearer ${token}`, ...(body ? { "Content-Type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`);
  return text ? JSON.parse(text) : null;
}

function check(ok, message) {
  if (!ok) throw new Error(message);
}

// watch records what would show that a payload ran: dialogs, console messages, page errors,
// and a flag the payloads set.
function watch(page, seen) {
  page.on("dialog", async (d) => {
    seen.push(`dialog: ${d.message()}`);
    await d.dismiss();
  });
  page.on("console", (m) => seen.push(`console ${m.type()}: ${m.text()}`));
  page.on("pageerror", (e) => seen.push(`page error: ${e.message}`));
}

async function login(page, start) {
  await page.goto(`${start.base_url}/_fake/ui/`);
  await page.locator("#login-form").waitFor();
  const shown = await page.locator("body").innerText();
  check(!shown.includes(start.workspace_id) && !shown.includes("Fake clock"), "the login page shows the fake's data");
  await page.locator("#token").fill(start.admin_token);
  await Promise.all([page.waitForURL(`${start.base_url}/_fake/ui/`), page.locator("#login-form button").click()]);
  check(!page.url().includes(start.admin_token), "the admin token is in the URL after login");
  const cookies = await page.context().cookies();
  const session = cookies.find((c) => c.name === "podqa_ui");
  check(session && session.httpOnly && session.sameSite === "Strict" && session.path === "/_fake/ui", `session cookie ${JSON.stringify(session)}`);
  check(session.value !== start.admin_token, "the cookie holds the admin token");
  console.log("dashboard: logged in through the form; HttpOnly SameSite=Strict cookie on /_fake/ui, token in no URL");
}

// reportCompletesOnAdvance creates a report from a hosted feed, opens its page, advances the
// manual clock from the page's form and waits for the page to show it COMPLETE.
async function reportCompletesOnAdvance(page, start) {
  const feed = await call(start, start.admin_token, "POST", "/_fake/feeds", {
    title: "Dashboard check",
    episodes: [{ title: "Twenty seconds", duration_s: 20, loudness_lufs: -16, true_peak_db: -1.5 }],
  });
  const report = await call(start, start.api_key, "POST", "/api/rest/v1/reports", { feed_url: feed.feed_url });
  await page.goto(`${start.base_url}/_fake/ui/reports/${report.id}`);
  const status = page.locator("#report-status");
  const before = (await status.innerText()).trim();
  check(before !== "COMPLETE", `the report is ${before} before the clock moves`);
  await page.locator("#advance-form input[name=by]").fill("10m");
  await Promise.all([page.waitForURL(`${start.base_url}/_fake/ui/reports/${report.id}`), page.locator("#advance").click()]);
  await page.waitForFunction(() => document.querySelector("#report-status")?.textContent.trim() === "COMPLETE");
  console.log(`dashboard: report ${before} → COMPLETE after advancing the manual clock 10m from the page`);
  return report.id;
}

// plotMatchesTheAccount reads the plot's points from the DOM and checks them against the
// account's short-term loudness series.
async function plotMatchesTheAccount(page, start, reportID) {
  const account = await call(start, start.admin_token, "GET", `/_fake/reports/${reportID}`);
  const series = account.loudness;
  check(series && Array.isArray(series.lufs) && series.lufs.length > 0, `the account has no loudness series: ${JSON.stringify(account).slice(0, 300)}`);
  const plot = page.locator("svg#loudness-plot");
  await plot.waitFor();
  const points = JSON.parse(await plot.getAttribute("data-points"));
  check(points.length === series.lufs.length, `plot has ${points.length} points, the account ${series.lufs.length}`);
  const stepS = series.step_s;
  for (let i = 0; i < points.length; i++) {
    const [t, v] = points[i];
    const want = series.lufs[i];
    check(Math.abs(t - i * stepS) < 1e-6, `point ${i} at ${t} s, want ${i * stepS}`);
    if (want === null) check(v === null, `point ${i} is ${v}, the account has no value (gated)`);
    else check(Math.abs(v - want) < 0.01, `point ${i} is ${v} LUFS, the account ${want}`);
  }
  // What is drawn: the polyline's vertices match the points, and the band and ceiling exist.
  const drawn = await page.locator("svg#loudness-plot polyline.series").evaluateAll((ls) => ls.reduce((n, l) => n + l.points.numberOfItems, 0));
  const valued = points.filter(([, v]) => v !== null).length;
  check(drawn === valued, `the polylines draw ${drawn} vertices for ${valued} measured points`);
  check(await plot.locator("rect.band").count() === 1 && await plot.locator("line.ceiling").count() === 1, "the plot lacks the target band or the true-peak ceiling");
  console.log(`dashboard: the plot's ${points.length} points (${valued} measured, ${drawn} drawn) match GET /_fake/reports/{id}'s series`);
}

// deliveryTimeline subscribes an endpoint that cannot be reached, sends it a test event and
// opens its delivery timeline.
async function deliveryTimeline(page, start) {
  const ep = await call(start, start.admin_token, "POST", `/_fake/workspaces/${start.workspace_id}/webhook-endpoints`, {
    url: "http://127.0.0.1:1/hook",
    events: ["report.completed"],
  });
  await call(start, start.admin_token, "POST", `/_fake/webhook-endpoints/${ep.id}/test`);
  await page.goto(`${start.base_url}/_fake/ui/workspaces/${start.workspace_id}/webhooks`);
  await Promise.all([page.waitForURL(`${start.base_url}/_fake/ui/endpoints/${ep.id}`), page.locator(`a[href="/_fake/ui/endpoints/${ep.id}"]`).click()]);
  const attempt = page.locator(".delivery .timeline li.attempt.failed").first();
  await attempt.waitFor();
  const text = await attempt.innerText();
  const next = await page.locator(".delivery .timeline li.attempt.queued").first().innerText();
  check(/attempt 1/.test(text) && /refused|connect/i.test(text), `first attempt: ${text}`);
  check(/attempt 2/.test(next), `queued attempt: ${next}`);
  await page.screenshot({ path: join(artifacts, "dashboard-delivery.png"), fullPage: true });
  console.log(`dashboard: delivery timeline shows "${text.replace(/\s+/g, " ")}" then "${next.replace(/\s+/g, " ")}"`);
}

// hostileEpisode hosts an episode whose title, tags and transcript are script payloads and
// checks that the feeds page runs none of them and sends its CSP and nosniff.
async function hostileEpisode(page, start) {
  const payloads = [
    `<img src=x onerror="window.__pwned=1;alert('img')">`,
    `<script>window.__pwned=2;alert('script')</script>`,
    `"><svg onload="window.__pwned=3;alert('svg')">`,
    `'><iframe srcdoc="<script>parent.__pwned=4</script>">`,
  ];
  await call(start, start.admin_token, "POST", "/_fake/feeds", {
    title: `Feed ${payloads[0]}`,
    episodes: payloads.map((p, i) => ({
      title: p,
      guid: `hostile-${i}`,
      duration_s: 1,
      tags: { title: p, artist: p, album: p, comment: p, chapters: [{ start: 0, end: 500, title: p }] },
      transcript: [{ start: 0, end: 500, text: p }],
    })),
  });
  const seen = [];
  watch(page, seen);
  const res = await page.goto(`${start.base_url}/_fake/ui/feeds`);
  const headers = res.headers();
  const csp = headers["content-security-policy"] || "";
  check(/script-src 'self'/.test(csp) && !/unsafe/.test(csp) && /frame-ancestors 'none'/.test(csp), `feeds page CSP: ${csp}`);
  check(headers["x-content-type-options"] === "nosniff", `nosniff: ${headers["x-content-type-options"]}`);
  await page.locator(".episode").first().waitFor();
  const shown = await page.locator("main").innerText();
  for (const p of payloads) check(shown.includes(p), `the page does not show the payload as text: ${p}`);
  const pwned = await page.evaluate(() => window.__pwned);
  check(pwned === undefined, `a payload ran: __pwned = ${pwned}`);
  check((await page.locator("main img, main script, main svg, main iframe").count()) === 0, "a payload became an element");
  // Move the clock so that the page's poll sees a new version and swaps in a fresh rendering,
  // then look again: the refresh must run nothing either.
  const refreshed = page.evaluate(() => new Promise((resolve) => document.addEventListener("dashboard:refreshed", resolve, { once: true })));
  await call(start, start.admin_token, "POST", "/_fake/clock/advance", { seconds: 1 });
  await refreshed;
  check((await page.evaluate(() => window.__pwned)) === undefined, "a payload ran after the page refreshed");
  check(seen.length === 0, `the page reacted: ${seen.join("; ")}`);
  check((await page.locator("audio").count()) >= payloads.length, "no player for the hosted audio");
  await page.screenshot({ path: join(artifacts, "dashboard-feeds.png"), fullPage: true });
  console.log(`dashboard: ${payloads.length} hostile episodes shown as text; no dialog, console message or script ran; CSP ${csp.split(";")[0]}…, nosniff`);
}

// manyReports seeds 100,000 reports in a new workspace and prints the first paint of its
// reports page.
async function manyReports(browser, start) {
  const ws = await call(start, start.admin_token, "POST", "/_fake/workspaces", { type: "personal", name: "Hundred thousand" });
  const reports = Array.from({ length: 100000 }, () => ({}));
  await call(start, start.admin_token, "POST", `/_fake/workspaces/${ws.id}/reports`, { reports });
  const context = await browser.newContext();
  const page = await context.newPage();
  await login(page, start);
  const url = `${start.base_url}/_fake/ui/workspaces/${ws.id}`;
  await page.goto(url);
  // The paint entry arrives after load; a buffered observer sees it whenever it came.
  const paint = await page.evaluate(() => new Promise((resolve) => {
    new PerformanceObserver((list, observer) => {
      const fcp = list.getEntriesByName("first-contentful-paint")[0];
      if (!fcp) return;
      observer.disconnect();
      const nav = performance.getEntriesByType("navigation")[0];
      resolve({ fcp: fcp.startTime, response: nav.responseEnd - nav.requestStart, bytes: nav.transferSize });
    }).observe({ type: "paint", buffered: true });
  }));
  const rows = await page.locator("tr.report").count();
  const total = await page.locator("#total").innerText();
  check(rows > 0 && rows <= 500, `the page shows ${rows} rows`);
  check(total.replace(/\D/g, "") === "100000", `the page counts ${total}`);
  await page.screenshot({ path: join(artifacts, "dashboard-100k-reports.png") });
  // Printed, not asserted: the target is under 1000 ms on an idle machine, and the CI machine
  // is shared. The page's work per page does not grow with the total (TestDashboardReportsPageWorkIsPerPage).
  console.log(`dashboard: reports page of a workspace with ${total.trim()} reports, ${rows} rows: first contentful paint ${paint.fcp?.toFixed(0)} ms, server answer ${paint.response.toFixed(0)} ms, ${paint.bytes} bytes (target under 1000 ms)`);
  await context.close();
}

const { proc, start } = await startFake(fakeBinary, ["-clock", "manual", "-allow-private-urls", "-log-level", "warn"]);
let browser;
try {
  browser = await launchChromium();
  const context = await browser.newContext();
  const page = await context.newPage();
  page.setDefaultTimeout(20000);
  // Every request stays on the fake: the dashboard works with no internet.
  const offsite = [];
  context.on("request", (req) => {
    if (!req.url().startsWith(start.base_url) && !req.url().startsWith("data:")) offsite.push(req.url());
  });
  await login(page, start);
  const reportID = await reportCompletesOnAdvance(page, start);
  await page.screenshot({ path: join(artifacts, "dashboard-report.png"), fullPage: true });
  await deliveryTimeline(page, start);
  const hostile = await context.newPage();
  hostile.setDefaultTimeout(20000);
  await hostileEpisode(hostile, start);
  await manyReports(browser, start);
  await page.goto(`${start.base_url}/_fake/ui/reports/${reportID}`);
  await plotMatchesTheAccount(page, start, reportID);
  if (offsite.length > 0) throw new Error(`requests left the fake: ${offsite.join(", ")}`);
  console.log(`dashboard: screenshots in ${artifacts}`);
} finally {
  if (browser) await browser.close();
  proc.kill("SIGTERM");
}
