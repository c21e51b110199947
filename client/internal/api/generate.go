package api

//go:generate env GOWORK=off go tool -modfile=../../../internal/tools/tools.mod oapi-codegen -config oapi-codegen.yaml ../../../openapi.json
