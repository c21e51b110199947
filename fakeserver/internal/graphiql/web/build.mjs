// Bundles GraphiQL for the fake with esbuild, reproducibly: the same package-lock.json gives
// the same bytes. Writes ../dist/explorer.js, ../dist/explorer.css and
// ../dist/THIRD_PARTY_LICENSES.txt (the licence of every npm package in the bundle).
import { build } from "esbuild";
import { readFileSync, readdirSync, writeFileSync, rmSync, mkdirSync } from "node:fs";
import { join } from "node:path";

const out = "../dist";
rmSync(out, { recursive: true, force: true });
mkdirSync(out);
const result = await build({
  entryPoints: { explorer: "src/explorer.jsx" },
  bundle: true,
  minify: true,
  format: "iife",
  target: ["es2020"],
  jsx: "automatic",
  outdir: out,
  legalComments: "none", // collected whole below, from each package's own licence file
  define: { "process.env.NODE_ENV": '"production"' },
  loader: { ".woff": "dataurl", ".woff2": "dataurl", ".ttf": "dataurl", ".svg": "dataurl" },
  metafile: true,
  logLevel: "warning",
});

// The packages whose code is in the bundle, with their licence texts.
const packages = new Map();
for (const input of Object.keys(result.metafile.inputs)) {
  const m = input.match(/^node_modules\/((?:@[^/]+\/)?[^/]+)\//);
  if (m) packages.set(m[1], join("node_modules", m[1]));
}
let text = "The fake's GraphQL explorer bundles these npm packages; their licences follow.\n";
for (const name of [...packages.keys()].sort()) {
  const dir = packages.get(name);
  const meta = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
  const licenceFile = readdirSync(dir).filter((f) => /^(licen[cs]e|copying)/i.test(f)).sort()[0];
  text += `\n${"=".repeat(78)}\n${name}@${meta.version} (${meta.license || "see below"})\n${"=".repeat(78)}\n`;
  text += licenceFile ? readFileSync(join(dir, licenceFile), "utf8").trim() + "\n" : "(the package ships no licence file)\n";
}
writeFileSync(join(out, "THIRD_PARTY_LICENSES.txt"), text);
