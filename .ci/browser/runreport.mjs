// The report of a run, as CI keeps it: the fake program started with -report-dir does some work
// (a report that completes, one whose analysis fails, a request with a hostile body), is stopped
// with SIGTERM, and the HTML file it wrote is opened in headless Chromium from file:// with the
// network off. The page must show every report of the JSON beside it, draw the completed one's
// loudness, run nothing and ask for nothing beyond its own file; axe-core finds no violation
// on it, and its screenshot is kept as runreport.png in ARTIFACTS_DIR.
//
// usage: node runreport.mjs PATH_TO_FAKESERVER_BINARY ARTIFACTS_DIR
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { axeViolations, launchChromium, startFake } from "./fake.mjs";

const [fakeBinary, artifacts] = process.argv.slice(2);
if (!fakeBinary || !artifacts) {
  console.error("usage: node runreport.mjs FAKESERVER_BINARY ARTIFACTS_DIR");
  process.exit(2);
}
mkdirSync(artifacts, { recursive: true });

const hostile = `<img src=x onerror="window.__ran=1;alert(1)"><script>window.__ran=2</script>`;
const dir = mkdtempSync(join(tmpdir(), "podqa-runreport-"));

async function call(start, token, method, path, body) {
  const res = await fetch(start.base_url + path, {
    method,
    headers: { Authorization: `Bearer ${token}`, ...(body ? { "Content-Type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : null, text };
}

// work makes a run worth reporting: a hosted feed of two episodes, a report of each (the second
// fails its analysis), a refused request whose body is hostile, and the clock moved.
async function work(start) {
  const feed = await call(start, start.admin_token, "POST", "/_fake/feeds", {
    title: `Show ${hostile}`,
    episodes: [{ title: `Good ${hostile}`, duration_s: 20, format: "wav" }, { title: "Broken", duration_s: 5, fail_analysis: true }],
  });
  if (feed.status !== 201) throw new Error(`POST /_fake/feeds: ${feed.status} ${feed.text}`);
  const ids = [];
  for (const index of [0, 1]) {
    const r = await call(start, start.api_key, "POST", "/api/rest/v1/reports", { feed_url: feed.json.feed_url, episode_index: index });
    if (r.status !== 201) throw new Error(`POST /reports: ${r.status} ${r.text}`);
    ids.push(r.json.id);
  }
  const bad = await call(start, start.api_key, "POST", "/api/rest/v1/reports", { feed_url: hostile, episode_index: 0 });
  if (bad.status !== 400) throw new Error(`a hostile feed_url answered ${bad.status}`);
  const adv = await call(start, start.admin_token, "POST", "/_fake/clock/advance", { seconds: 600 });
  if (adv.status !== 200) throw new Error(`advance: ${adv.status} ${adv.text}`);
  for (const [id, want] of [[ids[0], "COMPLETE"], [ids[1], "FAILED"]]) {
    const r = await call(start, start.api_key, "GET", `/api/rest/v1/reports/${id}`);
    if (r.json?.status !== want) throw new Error(`report ${id} is ${r.json?.status}, want ${want}`);
  }
  return ids;
}

function stop(proc) {
  return new Promise((resolve, reject) => {
    proc.once("exit", (code, signal) => (code === 0 ? resolve() : reject(new Error(`fakeserver exited ${code ?? signal} on SIGTERM`))));
    proc.kill("SIGTERM");
  });
}

const { proc, start } = await startFake(fakeBinary, ["-clock", "manual", "-analysis-pace", "0", "-log-level", "warn", "-report-dir", dir]);
let browser;
try {
  const [good, failed] = await work(start);
  await stop(proc);
  const names = readdirSync(dir).sort();
  const json = names.filter((n) => n.endsWith(".json"));
  const html = names.filter((n) => n.endsWith(".html"));
  if (json.length !== 1 || html.length !== 1) throw new Error(`report dir holds ${names.join(", ")}`);
  const run = JSON.parse(readFileSync(join(dir, json[0]), "utf8"));
  if (run.reason !== "stop" || run.reports.length !== 2) throw new Error(`JSON: reason ${run.reason}, ${run.reports.length} reports`);
  console.log(`run report ${run.run_id}: written on SIGTERM, ${run.reports.length} reports, ${run.journal.entries.length} requests`);

  browser = await launchChromium();
  const context = await browser.newContext({ offline: true });
  const page = await context.newPage();
  const pageURL = "file://" + join(dir, html[0]);
  // The network is off twice over: offline emulation, and every request but the page's own
  // file refused here and counted.
  const refused = [];
  await page.route("**/*", (route) => {
    const url = route.request().url();
    if (url === pageURL) return route.continue();
    refused.push(url);
    return route.abort();
  });
  const noise = [];
  page.on("console", (msg) => noise.push(`console.${msg.type()}: ${msg.text()}`));
  page.on("dialog", (d) => { noise.push(`dialog: ${d.message()}`); d.dismiss(); });
  page.on("pageerror", (err) => noise.push(`error: ${err.message}`));
  page.setDefaultTimeout(20000);
  await page.goto(pageURL);
  await page.locator("#summary").waitFor();

  const shown = await page.$$eval("details.report", (els) => els.map((e) => ({ id: e.id, status: e.dataset.status })));
  const want = run.reports.map((r) => `report-${r.id}`).sort();
  if (JSON.stringify(shown.map((s) => s.id).sort()) !== JSON.stringify(want)) {
    throw new Error(`the page shows reports ${JSON.stringify(shown)}, the JSON holds ${want}`);
  }
  if (shown[0].id !== `report-${failed}`) throw new Error(`the first report shown is ${shown[0].id}, not the failed one`);
  const firstFailure = await page.locator("#failures tbody tr").first().innerText();
  if (!firstFailure.includes(failed)) throw new Error(`the first failure is ${firstFailure}`);
  // The completed report's loudness plot: at least one point, at most one a value of its series.
  const series = run.reports.find((r) => r.id === good).loudness.lufs.filter((v) => v !== null).length;
  if (series === 0) throw new Error("the completed report kept no loudness series");
  const plot = Number(await page.locator(`#report-${good} svg.plot`).getAttribute("data-points"));
  if (!(plot > 0 && plot <= series)) throw new Error(`the completed report's plot has ${plot} points, its series ${series} values`);
  const journal = await page.locator("#journal-table tbody tr").count();
  if (journal !== run.journal.entries.length) throw new Error(`the page shows ${journal} requests, the JSON ${run.journal.entries.length}`);
  const text = await page.evaluate(() => document.body.textContent);
  if (!text.includes("<img src=x onerror=")) throw new Error("the hostile text is not shown as text");
  const ran = await page.evaluate(() => ({ flag: window.__ran ?? null, scripts: document.scripts.length, imgs: document.images.length }));
  if (ran.flag !== null || ran.scripts !== 0 || ran.imgs !== 0) throw new Error(`something ran or loaded: ${JSON.stringify(ran)}`);
  const csp = await page.locator('meta[http-equiv="Content-Security-Policy"]').getAttribute("content");
  if (!csp.startsWith("default-src 'none'; style-src 'sha256-")) throw new Error(`CSP ${csp}`);
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.screenshot({ path: join(artifacts, "runreport.png"), fullPage: true });
  if (noise.length > 0) throw new Error(`the page said: ${noise.join("; ")}`);
  if (refused.length > 0) throw new Error(`the page asked for: ${refused.join(", ")}`);
  // Last, as axe-core is a script of its own evaluated in the page.
  const axe = await axeViolations(page);
  if (axe.violations.length > 0) throw new Error(`axe-core ${axe.version} on the run report: ${axe.violations.join("; ")}`);
  console.log(`run report page: ${shown.length} reports (failed first), a loudness plot of ${plot} points (series of ${series}), ${journal} requests; offline, no script ran, no request left the page; axe-core ${axe.version}: no violation (runreport.png)`);
} finally {
  if (browser) await browser.close();
  if (proc.exitCode === null) proc.kill("SIGTERM");
  rmSync(dir, { recursive: true, force: true });
}
