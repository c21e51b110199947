// Package clientproof holds the client's tests against the fake: every call, the upload, the
// wait and the retry rules with the fake's faults, in the fake's module so that the SDK's module
// graph holds none of the fake's dependencies.
package clientproof
