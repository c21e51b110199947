package client

// GoString returns the exported name of the sentinel (such as client.ErrNotFound), so that %#v
// shows which value it is rather than the matcher behind it. %v and %+v print the message.
func (s *sentinel) GoString() string { return s.name }
