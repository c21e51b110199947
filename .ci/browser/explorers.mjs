// Loads the fake's interactive explorers in headless Chromium, runs one request from each page
// as a user would (authorize, try it out, execute) and checks the answer shows on the page.
//
// usage: node explorers.mjs PATH_TO_FAKESERVER_BINARY
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { chromium } from "playwright-core";

const [fakeBinary] = process.argv.slice(2);
if (!fakeBinary) {
  console.error("usage: node explorers.mjs FAKESERVER_BINARY");
  process.exit(2);
}

// startFake starts the fake program and resolves with its one JSON line.
function startFake() {
  const proc = spawn(fakeBinary, ["-addr", "127.0.0.1:0", "-analysis-pace", "0", "-log-level", "warn"], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: proc.stdout });
    lines.once("line", (line) => resolve({ proc, start: JSON.parse(line) }));
    proc.once("exit", (code) => reject(new Error(`fakeserver exited with ${code} before it printed its line`)));
  });
}

async function restExplorer(page, start) {
  await page.goto(`${start.base_url}/api/rest/v1/docs`);
  await page.locator(".swagger-ui .info .title").waitFor();
  // The page shows the server its requests go to: this fake, not the service's default.
  const computed = (await page.locator(".swagger-ui .servers .computed-url code").first().innerText()).trim();
  const variable = await page.locator(".swagger-ui .servers input").first().inputValue();
  if (computed !== `${start.base_url}/api/rest/v1` || variable !== start.base_url) {
    throw new Error(`REST explorer: shows server ${computed} (base_url ${variable}), want ${start.base_url}/api/rest/v1`);
  }
  console.log(`REST explorer: shows the computed server URL ${computed}`);
  // Authorize with the seeded key, as a user would.
  await page.locator("button.authorize").first().click();
  const bearer = page.locator(".auth-container").filter({ hasText: "bearerAuth" });
  await bearer.locator("input").fill(start.api_key);
  await bearer.locator("button.authorize").click();
  await page.locator("button.btn-done").first().click();
  // Try GET /me and execute it.
  const op = page.locator(".opblock-get").filter({ has: page.locator('[data-path="/me"]') });
  await op.locator(".opblock-summary").click();
  await op.locator("button.try-out__btn").click();
  await op.locator("button.execute").click();
  const status = op.locator(".live-responses-table .response .response-col_status").first();
  await status.waitFor();
  const code = (await status.innerText()).trim();
  const body = await op.locator(".live-responses-table .response-col_description pre").first().innerText();
  if (code !== "200" || !body.includes('"Demo"')) {
    throw new Error(`REST explorer: GET /me answered ${code}: ${body.slice(0, 300)}`);
  }
  console.log(`REST explorer: GET /me answered ${code} with the Demo workspace`);
}

async function graphqlExplorer(page, start) {
  await page.goto(`${start.base_url}/api/graphql`);
  await page.locator("#run").waitFor();
  await page.locator("#key").fill(start.api_key);
  await page.locator("#query").fill("query { currentApiKey { maskedKey owner { __typename ... on UserType { id } } } seriesList { id title } }");
  await page.locator("#run").click();
  const result = page.locator("#result");
  await page.waitForFunction(() => document.querySelector("#result").textContent.includes("maskedKey"));
  const text = await result.innerText();
  // The result pane shows the HTTP status line, then the JSON answer.
  const answer = JSON.parse(text.slice(text.indexOf("{")));
  if (!text.startsWith("HTTP 200")) throw new Error(`GraphQL explorer: ${text.slice(0, 300)}`);
  if (answer.errors || !answer.data?.currentApiKey?.maskedKey || answer.data.currentApiKey.owner.__typename !== "UserType") {
    throw new Error(`GraphQL explorer: unexpected answer: ${text.slice(0, 300)}`);
  }
  console.log(`GraphQL explorer: currentApiKey answered ${answer.data.currentApiKey.maskedKey} owned by a UserType`);
}

const { proc, start } = await startFake();
let browser;
try {
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
      "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  const page = await browser.newPage();
  // Every request must stay on the fake: the explorers work with no internet.
  const offsite = [];
  page.on("request", (req) => {
    if (!req.url().startsWith(start.base_url) && !req.url().startsWith("data:")) offsite.push(req.url());
  });
  page.setDefaultTimeout(20000);
  await restExplorer(page, start);
  await graphqlExplorer(page, start);
  if (offsite.length > 0) throw new Error(`requests left the fake: ${offsite.join(", ")}`);
} finally {
  if (browser) await browser.close();
  proc.kill("SIGTERM");
}
