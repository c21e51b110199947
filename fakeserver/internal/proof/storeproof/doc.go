// Package storeproof proves the shared stores against the fake: Receivers runs three webhook
// receivers on one DedupStore behind a duplicating front, Pollers three pollers on one
// LeaseStore; the store modules' own contract tests (webhooktest, pollertest) need no fake.
package storeproof
