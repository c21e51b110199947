// Package webhooks is the fake's HTTP sender of webhook attempts: the URL policy that refuses
// private and internal receivers, and the sender that makes one attempt at a time within the
// receiver budget it is handed.
//
// It keeps no state about endpoints or deliveries and knows nothing of the retry ladder; the
// domain core owns both, and calls the Sender without holding its lock. What an attempt is on
// the wire (secret, signature, message id, outcome) is the leaf package wire, which the core
// imports instead of this one.
package webhooks

// UserAgent identifies the sender on every attempt.
const UserAgent = "Service/1.0 (podqa-fake webhooks)"
