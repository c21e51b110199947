// The fake's GraphQL explorer: GraphiQL on this origin's /api/graphql. The API key comes from
// the page's own field (kept for this browser tab only); without one, the browser's session
// cookie is sent, as the service's explorer does.
import { createRoot } from "react-dom/client";
import { GraphiQL } from "graphiql";
import "graphiql/style.css";
import "./page.css";

const keyField = document.getElementById("key");
keyField.value = sessionStorage.getItem("podqa-api-key") || "";

function fetcher(params, options) {
  const headers = { "Content-Type": "application/json", ...(options?.headers || {}) };
  const key = keyField.value.trim();
  if (key && !headers.Authorization) headers.Authorization = "Bearer " + key;
  return fetch("/api/graphql", {
    method: "POST",
    headers,
    body: JSON.stringify(params),
    credentials: "same-origin",
  }).then((response) => response.json());
}

const defaultQuery = `# The fake's GraphQL API. Put your API key in the field above, then run (Ctrl-Enter).
query {
  currentApiKey { maskedKey owner { __typename } }
  seriesList { id title }
}
`;

const root = createRoot(document.getElementById("graphiql"));
let generation = 0;
function render() {
  // A new key can see another workspace's schema answers: remount to fetch the schema again.
  generation += 1;
  root.render(<GraphiQL key={generation} fetcher={fetcher} defaultQuery={defaultQuery} />);
}
keyField.addEventListener("change", () => {
  sessionStorage.setItem("podqa-api-key", keyField.value.trim());
  render();
});
render();
