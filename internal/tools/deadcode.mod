module github.com/podqa/podqa-go

go 1.26.0

tool golang.org/x/tools/cmd/deadcode

require (
	golang.org/x/mod v0.22.0 // indirect
	golang.org/x/sync v0.10.0 // indirect
	golang.org/x/sys v0.29.0 // indirect
	golang.org/x/telemetry v0.0.0-20240521205824-bda55230c457 // indirect
	golang.org/x/tools v0.29.0 // indirect
)
