// Builds a client schema from the fake's introspection answer with graphql-js.
//
// usage: node check.mjs GRAPHQL_URL SCHEMA_GRAPHQL
//
// Queries GRAPHQL_URL with graphql-js's own introspection query (every option on, as GraphiQL
// and code generators ask), builds the schema with buildClientSchema and compares its printed,
// sorted form with schema.graphql's. Exits non-zero on any difference. Run by
// .ci/introspection/run.sh.
import { readFileSync } from "node:fs";
import {
  GraphQLSchema,
  buildClientSchema,
  buildSchema,
  getIntrospectionQuery,
  lexicographicSortSchema,
  printSchema,
  version,
} from "graphql";

// Directives the fake's GraphQL engine (gqlparser's prelude) declares beside the specified
// ones; schema.graphql does not redeclare them, so they are set aside before comparing.
const engineDirectives = new Set(["defer", "oneOf"]);

function printed(schema) {
  const sorted = lexicographicSortSchema(schema);
  const config = sorted.toConfig();
  config.directives = config.directives.filter((d) => !engineDirectives.has(d.name));
  return printSchema(new GraphQLSchema(config));
}

function lineDiff(want, got) {
  const a = want.split("\n");
  const b = got.split("\n");
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    if (a[i] !== b[i]) {
      return `first difference at line ${i + 1}:\n- ${a[i]}\n+ ${b[i]}\n` +
        `schema.graphql:\n${a.slice(Math.max(0, i - 3), i + 4).join("\n")}\nintrospection:\n${b.slice(Math.max(0, i - 3), i + 4).join("\n")}`;
    }
  }
  return "";
}

const [url, sdlPath] = process.argv.slice(2);
if (!url || !sdlPath) {
  console.error("usage: node check.mjs GRAPHQL_URL SCHEMA_GRAPHQL");
  process.exit(2);
}
const query = getIntrospectionQuery({
  descriptions: true,
  specifiedByUrl: true,
  directiveIsRepeatable: true,
  schemaDescription: true,
  inputValueDeprecation: true,
  oneOf: true,
});
const resp = await fetch(url, {
  method: "POST",
  headers: { "Content-Type": "application/json" },
  body: JSON.stringify({ query }),
});
const answer = await resp.json();
if (resp.status !== 200 || answer.errors) {
  console.error(`graphql-js ${version}: introspection answered ${resp.status}: ${JSON.stringify(answer.errors)}`);
  process.exit(1);
}
const client = buildClientSchema(answer.data);
const want = printed(buildSchema(readFileSync(sdlPath, "utf8")));
const got = printed(client);
if (got !== want) {
  console.error(`graphql-js ${version}: the introspected schema differs from schema.graphql; ${lineDiff(want, got)}`);
  process.exit(1);
}
const types = Object.keys(client.getTypeMap()).filter((n) => !n.startsWith("__")).length;
console.log(`graphql-js ${version}: buildClientSchema accepted the answer; ${types} types, printed schema equals schema.graphql modulo ordering`);
