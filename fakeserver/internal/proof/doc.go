// Package proof is the module of the proofs that span the repository's products: the SDK's
// packages (clientproof, graphqlclientproof, pollerproof), the shared stores (storeproof), the
// README's tour (readme) and a soak, each against the fake. It is a module of its own so that
// neither the SDK's module nor the fake's holds the stores' drivers or each other's dependencies
// only for these tests; it exports nothing for use elsewhere.
package proof
