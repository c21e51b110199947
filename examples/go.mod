module github.com/podqa/podqa-go/examples

go 1.25.0

require (
	github.com/jackc/pgx/v5 v5.12.0
	github.com/podqa/podqa-go v0.2.0
	github.com/podqa/podqa-go/fakeserver v0.0.0-00010101000000-000000000000
	github.com/podqa/podqa-go/webhook/webhookpg v0.0.0-00010101000000-000000000000
	github.com/podqa/podqa-go/webhook/webhookredis v0.0.0-00010101000000-000000000000
	github.com/redis/go-redis/v9 v9.22.0
)

require (
	github.com/99designs/gqlgen v0.17.94 // indirect
	github.com/Khan/genqlient v0.8.1 // indirect
	github.com/agnivade/levenshtein v1.2.2 // indirect
	github.com/apapsch/go-jsonmerge/v2 v2.0.0 // indirect
	github.com/bogem/id3v2/v2 v2.1.4 // indirect
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/coder/websocket v1.8.15 // indirect
	github.com/getkin/kin-openapi v0.152.0 // indirect
	github.com/go-openapi/jsonpointer v0.22.5 // indirect
	github.com/go-openapi/swag/jsonname v0.25.5 // indirect
	github.com/go-viper/mapstructure/v2 v2.5.0 // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/hashicorp/go-cleanhttp v0.5.2 // indirect
	github.com/hashicorp/go-retryablehttp v0.7.8 // indirect
	github.com/hashicorp/golang-lru/v2 v2.0.7 // indirect
	github.com/icza/bitio v1.1.0 // indirect
	github.com/jackc/pgpassfile v1.0.0 // indirect
	github.com/jackc/pgservicefile v0.0.0-20240606120523-5a60cdf6a761 // indirect
	github.com/jackc/puddle/v2 v2.2.3 // indirect
	github.com/mewkiz/flac v1.0.14 // indirect
	github.com/mewkiz/pkg v0.0.0-20250417130911-3f050ff8c56d // indirect
	github.com/mewpkg/term v0.0.0-20241026122259-37a80af23985 // indirect
	github.com/oapi-codegen/runtime v1.8.0 // indirect
	github.com/oasdiff/yaml v0.1.1 // indirect
	github.com/oasdiff/yaml3 v0.0.14 // indirect
	github.com/pion/opus v0.1.0 // indirect
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3 // indirect
	github.com/sosodev/duration v1.4.0 // indirect
	github.com/standard-webhooks/standard-webhooks/libraries v0.0.1 // indirect
	github.com/swaggo/files/v2 v2.0.2 // indirect
	github.com/vektah/gqlparser/v2 v2.5.64 // indirect
	go.uber.org/atomic v1.11.0 // indirect
	golang.org/x/sync v0.22.0 // indirect
	golang.org/x/sys v0.47.0 // indirect
	golang.org/x/text v0.41.0 // indirect
)

// The SDK, the fake and the stores from this checkout.
replace (
	github.com/podqa/podqa-go => ../
	github.com/podqa/podqa-go/fakeserver => ../fakeserver
	github.com/podqa/podqa-go/webhook/webhookpg => ../webhook/webhookpg
	github.com/podqa/podqa-go/webhook/webhookredis => ../webhook/webhookredis
)
