// What every browser check shares: the fake program started as CI starts it, headless Chromium
// launched with nothing that reaches past loopback, and axe-core run on a page.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { createInterface } from "node:readline";
import { chromium } from "playwright-core";

const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

// startFake starts the fake program with args on a free loopback port and resolves with the
// process and its one JSON line (base_url, admin_token, api_key, …).
export function startFake(binary, args) {
  const proc = spawn(binary, ["-addr", "127.0.0.1:0", ...args], { stdio: ["ignore", "pipe", "inherit"] });
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: proc.stdout });
    lines.once("line", (line) => resolve({ proc, start: JSON.parse(line) }));
    proc.once("exit", (code) => reject(new Error(`fakeserver exited with ${code} before it printed its line`)));
  });
}

// launchChromium starts the headless Chromium CI installs (or $CHROMIUM), without background
// networking, updates or sync.
export function launchChromium() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
      "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
}

// axeViolations runs axe-core on the page (evaluated through the browser's debugging protocol,
// which the page's CSP does not govern) and resolves with its version and one line per
// violation: its id, impact, how many nodes and the first two of them.
export async function axeViolations(page) {
  await page.evaluate(axeSource);
  const result = await page.evaluate(() => window.axe.run(document, { resultTypes: ["violations"] }));
  const violations = result.violations.map((v) =>
    `${v.id} (${v.impact}, ${v.nodes.length} nodes: ${v.nodes.slice(0, 2).map((n) => n.target.join(" ")).join(", ")})`);
  return { version: result.testEngine.version, violations };
}
