// What every browser check shares: the fake program started as CI starts it, and headless
// Chromium launched with nothing that reaches past loopback.
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { chromium } from "playwright-core";

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
