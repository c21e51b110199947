// Drives the fake's dashboard (/_fake/ui) in headless Chromium as a user would: logs in through
// the form, watches a report complete when the manual clock is advanced from the page, reads the
// loudness plot's points back from the DOM and checks them against GET /_fake/reports/{id},
// reads the verdict and name of a report that completed without passing (list and page) and
// the plot's axis titles, legend and data-true-peak against the account, keeps an open
// <details>, the scroll position and a selection through a live update and pauses updates,
// opens GET / and a report's /app/reports/{id} link through the login, opens a webhook
// delivery's timeline, checks that hosted episode titles, tags and transcripts made of script
// payloads run nothing under the page's CSP, runs axe-core (pinned) on every dashboard page,
// and prints the first paint of a workspace's reports page holding 100,000 reports.
// Screenshots, at 1280 px wide, go to ARTIFACTS_DIR.
//
// usage: node dashboard.mjs PATH_TO_FAKESERVER_BINARY ARTIFACTS_DIR
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { axeViolations, launchChromium, startFake } from "./fake.mjs";

const [fakeBinary, artifacts] = process.argv.slice(2);
if (!fakeBinary || !artifacts) {
  console.error("usage: node dashboard.mjs FAKESERVER_BINARY ARTIFACTS_DIR");
  process.exit(2);
}
mkdirSync(artifacts, { recursive: true });
// Every page is looked at as a person at a laptop would: 1280 px wide.
const viewport = { width: 1280, height: 900 };

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
  // Move the clock so that the page's poll sees a new version and fetches a fresh rendering
  // (which it applies only where it changed), then look again: that must run nothing either.
  const refreshed = page.evaluate(() => new Promise((resolve) => document.addEventListener("dashboard:checked", resolve, { once: true })));
  await call(start, start.admin_token, "POST", "/_fake/clock/advance", { seconds: 1 });
  await refreshed;
  check((await page.evaluate(() => window.__pwned)) === undefined, "a payload ran after the page refreshed");
  check(seen.length === 0, `the page reacted: ${seen.join("; ")}`);
  check((await page.locator("audio").count()) >= payloads.length, "no player for the hosted audio");
  await page.screenshot({ path: join(artifacts, "dashboard-feeds.png"), fullPage: true });
  console.log(`dashboard: ${payloads.length} hostile episodes shown as text; no dialog, console message or script ran; CSP ${csp.split(";")[0]}…, nosniff`);
}

// hostedReport hosts one episode, reports on it over REST and returns the report's id.
async function hostedReport(start, episode) {
  const feed = await call(start, start.admin_token, "POST", "/_fake/feeds", { title: `Feed of ${episode.title}`, episodes: [episode] });
  return (await call(start, start.api_key, "POST", "/api/rest/v1/reports", { feed_url: feed.feed_url })).id;
}

// verdictAndName makes a report that completes without passing (too loud, its true peak over
// the ceiling) and reads its name and verdict on the workspace's list and on its page against
// the REST report, and that its status is not drawn green.
async function verdictAndName(page, start, reportID) {
  const rest = await call(start, start.api_key, "GET", `/api/rest/v1/reports/${reportID}`);
  const stats = rest.stats;
  check(rest.status === "COMPLETE" && stats && stats.passed === false && stats.required_failures >= 2, `the loud report: ${JSON.stringify(rest).slice(0, 300)}`);
  const standard = rest.standard?.name || "Podcast";
  await page.goto(`${start.base_url}/_fake/ui/workspaces/${start.workspace_id}`);
  const row = page.locator(`tr.report[data-id="${reportID}"]`);
  const name = (await row.locator(".report-name").innerText()).trim();
  const verdict = (await row.locator("td.verdict").innerText()).trim();
  check(name === rest.name, `the list names the report "${name}", REST "${rest.name}"`);
  check(verdict.startsWith(`did not pass ${standard}: ${stats.required_failures} of ${stats.required_total}`), `the list's verdict: "${verdict}"`);
  const green = "rgb(30, 125, 50)";
  const listColor = await row.locator("td.status").evaluate((e) => getComputedStyle(e).color);
  check(listColor !== green, `the list draws a report that did not pass in green (${listColor})`);
  // At 1280 px the verdict reads on one line, and the list fits the window.
  const verdictLines = await row.locator("td.verdict").evaluate((e) => {
    const range = document.createRange();
    range.selectNodeContents(e);
    return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size;
  });
  check(verdictLines === 1, `the list's verdict wraps onto ${verdictLines} lines at ${viewport.width} px`);
  const listWidth = await page.evaluate(() => document.documentElement.scrollWidth);
  check(listWidth <= viewport.width, `the reports list is ${listWidth} px wide at ${viewport.width} px`);
  await page.screenshot({ path: join(artifacts, "dashboard-workspace.png"), fullPage: true });
  await page.goto(`${start.base_url}/_fake/ui/reports/${reportID}`);
  const heading = (await page.locator("#report-name").innerText()).trim();
  const pageVerdict = (await page.locator("#report-verdict").innerText()).trim();
  const statusColor = await page.locator("#report-status").evaluate((e) => getComputedStyle(e).color);
  check(heading === rest.name && (await page.title()).startsWith(rest.name), `the page is named "${heading}" / "${await page.title()}", REST "${rest.name}"`);
  check(pageVerdict.startsWith(`did not pass ${standard}: ${stats.required_failures} of`), `the page's verdict: "${pageVerdict}"`);
  check(statusColor !== green, `the page draws COMPLETE in green for a report that did not pass (${statusColor})`);
  console.log(`dashboard: "${rest.name}" is COMPLETE, not green, "${pageVerdict}" on its page and in the list`);
}

// plotIsHonest reads the plot's axis titles, legend and true-peak marker, and checks the
// marker's value against the account's true peak and its place against the ceiling.
async function plotIsHonest(page, start, reportID) {
  const account = await call(start, start.admin_token, "GET", `/_fake/reports/${reportID}`);
  await page.goto(`${start.base_url}/_fake/ui/reports/${reportID}`);
  const plot = page.locator("svg#loudness-plot");
  const titles = {
    y: await plot.locator("#y-axis-title").textContent(),
    x: await plot.locator("#x-axis-title").textContent(),
    peak: await plot.locator("#peak-axis-title").textContent(),
  };
  check(/LUFS/.test(titles.y) && /time/i.test(titles.x) && /dBTP/.test(titles.peak), `axis titles ${JSON.stringify(titles)}`);
  const legend = await page.locator("#plot-legend li").evaluateAll((ls) => Object.fromEntries(ls.map((l) => [l.dataset.legend, l.textContent.trim()])));
  for (const k of ["series", "band", "integrated", "true-peak", "ceiling"]) check(legend[k], `the legend lacks ${k}: ${JSON.stringify(legend)}`);
  const marker = plot.locator("#true-peak-track #true-peak-marker");
  const shown = Number(await marker.getAttribute("data-true-peak"));
  const measured = account.measured.true_peak_db;
  check(Math.abs(shown - measured) < 1e-9, `data-true-peak ${shown}, the account's true peak ${measured}`);
  const markerTop = (await marker.boundingBox()).y;
  const ceiling = (await plot.locator("#true-peak-track line.ceiling").boundingBox()).y;
  check(markerTop < ceiling, `the true peak ${measured} dBTP is drawn under its ceiling (${markerTop} vs ${ceiling})`);
  const checks = await page.locator("#checks tr.check td:nth-child(2)").allInnerTexts();
  for (const v of checks) check(!/null|[{}[\]]|\d\.\d{3}/.test(v), `a check's value reads "${v}"`);
  await page.screenshot({ path: join(artifacts, "dashboard-report-not-passed.png"), fullPage: true });
  console.log(`dashboard: plot axes "${titles.y}", "${titles.x}", "${titles.peak}"; legend ${Object.keys(legend).join(", ")}; data-true-peak ${shown} = the account's, above the ceiling's line; ${checks.length} check values rounded`);
}

// placeKept opens a report's timeline <details>, scrolls, selects text, moves the clock so
// that the report completes (the page's content changes) and checks that all three are
// still as they were; then pauses updates and checks that nothing moves.
async function placeKept(page, start) {
  const id = await hostedReport(start, { title: "Place kept", duration_s: 20, loudness_lufs: -16, true_peak_db: -1.5 });
  // A short window, so that the page scrolls.
  await page.setViewportSize({ width: 1280, height: 420 });
  await page.goto(`${start.base_url}/_fake/ui/reports/${id}`);
  await page.locator("#timeline-details summary").click();
  check(await page.locator("#timeline-details").evaluate((d) => d.open), "the timeline did not open");
  const before = await page.locator("#timeline li").count();
  await page.evaluate(() => window.scrollTo(0, 150));
  await page.evaluate(() => {
    const r = document.createRange();
    r.selectNodeContents(document.querySelector("#timeline-details summary"));
    window.getSelection().removeAllRanges();
    window.getSelection().addRange(r);
  });
  const selected = await page.evaluate(() => window.getSelection().toString());
  const scrolled = await page.evaluate(() => window.scrollY);
  check(scrolled > 0, "the report's page does not scroll in a 420 px window");
  const changed = page.evaluate(() => new Promise((resolve) => document.addEventListener("dashboard:refreshed", resolve, { once: true })));
  await call(start, start.admin_token, "POST", "/_fake/clock/advance", { seconds: 600 });
  await changed;
  await page.waitForFunction(() => document.querySelector("#report-status")?.textContent.trim() === "COMPLETE");
  const after = await page.locator("#timeline li").count();
  const open = await page.locator("#timeline-details").evaluate((d) => d.open);
  const scrollY = await page.evaluate(() => window.scrollY);
  const stillSelected = await page.evaluate(() => window.getSelection().toString());
  check(after > before, `the timeline did not grow (${before} → ${after})`);
  check(open, "the open <details> closed on the update");
  check(scrollY === scrolled, `the update scrolled from ${scrolled} to ${scrollY}`);
  check(stillSelected.length > 0, `the selection "${selected}" is gone after the update`);
  await page.screenshot({ path: join(artifacts, "dashboard-place-kept.png") });
  // Paused: the clock moves, the page does not.
  await page.locator("#live-toggle").click();
  check((await page.locator("#live-toggle").getAttribute("aria-pressed")) === "true", "the pause switch is not pressed");
  const clockBefore = await page.locator("#clock").textContent();
  let refreshed = false;
  await page.evaluate(() => document.addEventListener("dashboard:checked", () => (window.__checked = true)));
  await call(start, start.admin_token, "POST", "/_fake/clock/advance", { seconds: 60 });
  await page.waitForTimeout(2500); // the poll's period is 1 s: two would have run
  refreshed = await page.evaluate(() => window.__checked === true);
  const clockAfter = await page.locator("#clock").textContent();
  check(!refreshed && clockAfter === clockBefore, `paused, the page still updated (clock ${clockBefore} → ${clockAfter})`);
  await page.locator("#live-toggle").click();
  await page.waitForFunction((c) => document.querySelector("#clock").textContent !== c, clockBefore);
  await page.setViewportSize(viewport);
  // A page whose content did not change is left alone when the fake's version moves.
  await page.goto(`${start.base_url}/_fake/ui/faults`);
  await page.evaluate(() => (document.querySelector("#main").dataset.untouched = "yes"));
  const checked = page.evaluate(() => new Promise((resolve) => document.addEventListener("dashboard:checked", (e) => resolve(e.detail.changed), { once: true })));
  await call(start, start.admin_token, "POST", "/_fake/clock/advance", { seconds: 1 });
  const changedFaults = await checked;
  const untouched = await page.evaluate(() => document.querySelector("#main").dataset.untouched);
  check(changedFaults === false && untouched === "yes", `an unchanged page was updated (changed ${changedFaults}, mark ${untouched})`);
  console.log(`dashboard: a live update (timeline ${before} → ${after} entries) kept the open <details>, scroll ${scrollY} px and the selection "${stillSelected.trim()}"; paused, nothing moved; resumed, the clock caught up; an unchanged page fetched again was left alone`);
}

// frontDoor opens GET / (HTML and JSON), the favicon, and a report's /app/reports/{id} link in a
// browser not logged in: the login form, then the report's page.
async function frontDoor(browser, start, reportID) {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  page.setDefaultTimeout(20000);
  await page.goto(`${start.base_url}/`);
  const links = await page.locator("#links a").evaluateAll((as) => Object.fromEntries(as.map((a) => [a.dataset.link, a.getAttribute("href")])));
  for (const k of ["dashboard", "rest_explorer", "graphql_explorer", "control_contract", "health"]) check(links[k], `GET / lacks the ${k} link: ${JSON.stringify(links)}`);
  await page.screenshot({ path: join(artifacts, "landing.png"), fullPage: true });
  await axeCheck(page, "GET /");
  const json = await (await fetch(`${start.base_url}/`, { headers: { Accept: "application/json" } })).json();
  check(json.links?.dashboard === `${start.base_url}/_fake/ui/`, `GET / as JSON: ${JSON.stringify(json)}`);
  const icon = await fetch(`${start.base_url}/favicon.ico`);
  check(icon.ok && icon.headers.get("content-type") === "image/svg+xml", `favicon: ${icon.status} ${icon.headers.get("content-type")}`);
  const rest = await call(start, start.api_key, "GET", `/api/rest/v1/reports/${reportID}`);
  const link = `${start.base_url}/app/reports/${reportID}`;
  await page.goto(link);
  await page.locator("#login-form").waitFor();
  check(page.url() === `${start.base_url}/_fake/ui/reports/${reportID}`, `/app/reports/{id} led to ${page.url()}`);
  await page.screenshot({ path: join(artifacts, "dashboard-login.png"), fullPage: true });
  await axeCheck(page, "the login form");
  await page.locator("#token").fill(start.admin_token);
  await Promise.all([page.waitForURL(`${start.base_url}/_fake/ui/reports/${reportID}`), page.locator("#login-form button").click()]);
  const heading = (await page.locator("#report-name").innerText()).trim();
  check(heading === rest.name, `after the login, the page of "${heading}", want "${rest.name}"`);
  console.log(`dashboard: GET / links ${Object.keys(links).join(", ")} (JSON too); favicon ${icon.headers.get("content-type")}; /app/reports/{id} → login → the report's page "${heading}"`);
  await context.close();
}

// axeCheck runs axe-core on the page and fails on any violation.
async function axeCheck(page, what) {
  const { violations } = await axeViolations(page);
  check(violations.length === 0, `axe-core on ${what}: ${violations.join("; ")}`);
  return violations.length;
}

// axeEveryPage runs axe-core on every dashboard page and screenshots each.
async function axeEveryPage(page, start, reportIDs) {
  const eps = await call(start, start.admin_token, "GET", `/_fake/workspaces/${start.workspace_id}/webhook-endpoints`);
  const list = eps.items;
  const pages = {
    overview: "/_fake/ui/",
    workspace: `/_fake/ui/workspaces/${start.workspace_id}`,
    webhooks: `/_fake/ui/workspaces/${start.workspace_id}/webhooks`,
    emails: `/_fake/ui/workspaces/${start.workspace_id}/emails`,
    feeds: "/_fake/ui/feeds",
    requests: "/_fake/ui/requests",
    faults: "/_fake/ui/faults",
    events: "/_fake/ui/events",
  };
  reportIDs.forEach((id, i) => (pages[`report-${i + 1}`] = `/_fake/ui/reports/${id}`));
  check(list.length > 0, "no webhook endpoint to check");
  pages.endpoint = `/_fake/ui/endpoints/${list[0].id}`;
  for (const [name, path] of Object.entries(pages)) {
    await page.goto(start.base_url + path);
    await axeCheck(page, `${name} (${path})`);
    await page.screenshot({ path: join(artifacts, `axe-${name}.png`), fullPage: true });
  }
  const version = await page.evaluate(() => window.axe.version);
  console.log(`dashboard: axe-core ${version}: no violation on ${Object.keys(pages).length} dashboard pages (${Object.keys(pages).join(", ")}); the login form and GET / follow`);
}

// manyReports seeds 100,000 reports in a new workspace and prints the first paint of its
// reports page.
async function manyReports(browser, start) {
  const ws = await call(start, start.admin_token, "POST", "/_fake/workspaces", { type: "personal", name: "Hundred thousand" });
  const reports = Array.from({ length: 100000 }, () => ({}));
  await call(start, start.admin_token, "POST", `/_fake/workspaces/${ws.id}/reports`, { reports });
  const context = await browser.newContext({ viewport });
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
  const context = await browser.newContext({ viewport });
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
  const loudID = await hostedReport(start, { title: "Too loud <b>for Podcast</b>", duration_s: 20, loudness_lufs: -11, true_peak_db: -0.2 });
  await call(start, start.admin_token, "POST", "/_fake/clock/advance", { seconds: 600 });
  await verdictAndName(page, start, loudID);
  await plotIsHonest(page, start, loudID);
  await placeKept(page, start);
  await deliveryTimeline(page, start);
  const hostile = await context.newPage();
  hostile.setDefaultTimeout(20000);
  await hostileEpisode(hostile, start);
  await axeEveryPage(page, start, [reportID, loudID]);
  await frontDoor(browser, start, loudID);
  await manyReports(browser, start);
  await page.goto(`${start.base_url}/_fake/ui/reports/${reportID}`);
  await plotMatchesTheAccount(page, start, reportID);
  if (offsite.length > 0) throw new Error(`requests left the fake: ${offsite.join(", ")}`);
  console.log(`dashboard: screenshots in ${artifacts}`);
} finally {
  if (browser) await browser.close();
  proc.kill("SIGTERM");
}
