// Package graphqlclientproof holds graphqlclient's tests against the fake, in the fake's module
// so that the SDK's module graph holds none of the fake's dependencies.
package graphqlclientproof
