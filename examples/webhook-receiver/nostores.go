//go:build !stores

package main

import (
	"context"
	"errors"
)

// errNoStores is what -dedup-url answers in a build without the stores.
var errNoStores = errors.New("-dedup-url needs the shared stores, which this build leaves out: build or run the receiver with -tags stores (go run -tags stores ./examples/webhook-receiver -dedup-url ...)")

// dialDedup refuses every -dedup-url: this build has no store to connect to (see stores.go).
func dialDedup(context.Context, string) (sharedStore, func(), error) {
	return nil, nil, errNoStores
}
