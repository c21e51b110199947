module github.com/podqa/podqa-go/fakeserver

go 1.25.0

require (
	github.com/99designs/gqlgen v0.17.94
	github.com/bogem/id3v2/v2 v2.1.4
	github.com/getkin/kin-openapi v0.152.0
	github.com/google/go-cmp v0.7.0
	github.com/google/uuid v1.6.0
	github.com/mewkiz/flac v1.0.14
	github.com/mmcdole/gofeed v1.4.2
	github.com/oapi-codegen/runtime v1.8.0
	github.com/pion/opus v0.1.0
	github.com/podqa/podqa-go v0.2.0
	github.com/standard-webhooks/standard-webhooks/libraries v0.0.1
	github.com/swaggo/files/v2 v2.0.2
	github.com/vektah/gqlparser/v2 v2.5.64
	go.uber.org/goleak v1.3.0
	golang.org/x/net v0.57.0
)

require (
	github.com/agnivade/levenshtein v1.2.2 // indirect
	github.com/apapsch/go-jsonmerge/v2 v2.0.0 // indirect
	github.com/coder/websocket v1.8.15 // indirect
	github.com/go-openapi/jsonpointer v0.22.5 // indirect
	github.com/go-openapi/swag/jsonname v0.25.5 // indirect
	github.com/go-viper/mapstructure/v2 v2.5.0 // indirect
	github.com/hashicorp/go-cleanhttp v0.5.2 // indirect
	github.com/hashicorp/go-retryablehttp v0.7.8 // indirect
	github.com/hashicorp/golang-lru/v2 v2.0.7 // indirect
	github.com/icza/bitio v1.1.0 // indirect
	github.com/kr/pretty v0.3.0 // indirect
	github.com/mewkiz/pkg v0.0.0-20250417130911-3f050ff8c56d // indirect
	github.com/mewpkg/term v0.0.0-20241026122259-37a80af23985 // indirect
	github.com/mmcdole/goxpp/v2 v2.0.0 // indirect
	github.com/oasdiff/yaml v0.1.1 // indirect
	github.com/oasdiff/yaml3 v0.0.14 // indirect
	github.com/rogpeppe/go-internal v1.16.0 // indirect
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3 // indirect
	github.com/sosodev/duration v1.4.0 // indirect
	golang.org/x/sync v0.22.0 // indirect
	golang.org/x/text v0.41.0 // indirect
)

// The SDK from this checkout; a release of the fake requires the SDK release of the same
// version (tags v0.2.0 and fakeserver/v0.2.0).
replace github.com/podqa/podqa-go => ../
