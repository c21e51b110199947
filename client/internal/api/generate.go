package api

//go:generate go tool -modfile=../../../internal/tools/tools.mod oapi-codegen -config oapi-codegen.yaml ../../../openapi.json
