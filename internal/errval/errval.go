// Package errval makes the SDK packages' exported error values print well: the message with %v,
// %s and %+v, and the exported name (such as webhook.ErrInvalidSignature) with %#v, never the
// internals of the type that carries them.
package errval

// Value is an exported error value of an SDK package. Compare it with errors.Is, as any
// sentinel.
type Value struct {
	name string
	msg  string
}

// New returns the error value the package exports as name (qualified, such as
// "poller.ErrNoWatermark"), whose Error is msg.
func New(name, msg string) error { return &Value{name: name, msg: msg} }

// Error returns the message.
func (v *Value) Error() string { return v.msg }

// GoString returns the qualified name of the exported variable, for %#v.
func (v *Value) GoString() string { return v.name }
