module github.com/podqa/podqa-go

go 1.25.0

require (
	github.com/Khan/genqlient v0.8.1
	github.com/google/go-cmp v0.7.0
	github.com/google/uuid v1.6.0
	github.com/hashicorp/go-retryablehttp v0.7.8
	github.com/oapi-codegen/runtime v1.8.0
	github.com/standard-webhooks/standard-webhooks/libraries v0.0.1
)

require (
	github.com/apapsch/go-jsonmerge/v2 v2.0.0 // indirect
	github.com/hashicorp/go-cleanhttp v0.5.2 // indirect
	github.com/mattn/go-isatty v0.0.21 // indirect
	github.com/vektah/gqlparser/v2 v2.5.64 // indirect
	golang.org/x/sys v0.47.0 // indirect
)
