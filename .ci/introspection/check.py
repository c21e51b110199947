"""Builds a client schema from the fake's introspection answer with graphql-core.

usage: python3 check.py GRAPHQL_URL SCHEMA_GRAPHQL

Queries GRAPHQL_URL with graphql-core's own introspection query (as the Python gql client
does), builds the schema with build_client_schema and compares its printed, sorted form with
schema.graphql's. Exits non-zero on any difference. Run by .ci/introspection/run.sh.
"""

import difflib
import json
import sys
import urllib.request

import graphql

# Directives the fake's GraphQL engine (gqlparser's prelude) declares beside the specified
# ones; schema.graphql does not redeclare them, so they are set aside before comparing.
ENGINE_DIRECTIVES = {"defer", "oneOf"}


def printed(schema):
    schema = graphql.lexicographic_sort_schema(schema)
    kept = [d for d in schema.directives if d.name not in ENGINE_DIRECTIVES]
    schema = graphql.GraphQLSchema(
        query=schema.query_type,
        mutation=schema.mutation_type,
        subscription=schema.subscription_type,
        types=list(schema.type_map.values()),
        directives=kept,
        description=schema.description,
    )
    return graphql.print_schema(schema)


def main():
    url, sdl_path = sys.argv[1], sys.argv[2]
    body = json.dumps({"query": graphql.get_introspection_query(
        descriptions=True, specified_by_url=True, directive_is_repeatable=True,
        schema_description=True, input_value_deprecation=True,
        input_object_one_of=True)}).encode()
    req = urllib.request.Request(url, data=body, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as resp:
        answer = json.load(resp)
    if answer.get("errors"):
        sys.exit(f"graphql-core {graphql.__version__}: introspection answered errors: {answer['errors']}")
    client = graphql.build_client_schema(answer["data"])
    with open(sdl_path, encoding="utf-8") as f:
        want = printed(graphql.build_schema(f.read()))
    got = printed(client)
    if got != want:
        diff = difflib.unified_diff(want.splitlines(), got.splitlines(), "schema.graphql", "introspection", lineterm="")
        sys.exit(f"graphql-core {graphql.__version__}: the introspected schema differs from schema.graphql:\n" + "\n".join(diff))
    types = sum(1 for name in client.type_map if not name.startswith("__"))
    print(f"graphql-core {graphql.__version__}: build_client_schema accepted the answer; "
          f"{types} types, printed schema equals schema.graphql modulo ordering")


if __name__ == "__main__":
    main()
