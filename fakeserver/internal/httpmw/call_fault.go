package httpmw

// MarkFault records that the armed fault id acted on the call's request, so that the journal
// can name it; a nil call (a request that did not pass Begin) records nothing.
func (c *Call) MarkFault(id string) {
	if c != nil {
		c.fault = id
	}
}

// Fault is the id of the armed fault that acted on the call's request; "" when none did.
func (c *Call) Fault() string {
	if c == nil {
		return ""
	}
	return c.fault
}
