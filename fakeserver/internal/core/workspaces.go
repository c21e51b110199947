package core

// The workspace, key and session operations as the Go API (fakeserver's api_workspaces.go) and
// the control API (internal/control's workspaces.go) both take them: ids as sent, read by the id
// rule, so that the two adapters differ only in how they carry their arguments.

// OpenWorkspace is CreateWorkspace with the plan allowance held to whole credits:
// Server.CreateWorkspace and POST /_fake/workspaces both.
func (c *Core) OpenWorkspace(in NewWorkspace) (Workspace, error) {
	if err := CheckWholeCredits("plan_allowance", in.PlanAllowance); err != nil {
		return Workspace{}, err
	}
	return c.CreateWorkspace(in)
}

// MintAPIKey is CreateAPIKey of the workspace workspaceID names: Server.CreateAPIKey,
// Server.CreateLegacyAPIKey and POST /_fake/workspaces/{id}/api-keys.
func (c *Core) MintAPIKey(workspaceID, description string, legacy bool) (APIKey, string, error) {
	id, err := ParseID(workspaceID, "Workspace")
	if err != nil {
		return APIKey{}, "", err
	}
	return c.CreateAPIKey(id, description, legacy)
}

// SwitchAPIKey is SetKeyDisabled of the key keyID names: Server.SetAPIKeyDisabled and
// PATCH /_fake/api-keys/{id}.
func (c *Core) SwitchAPIKey(keyID string, disabled bool) (APIKey, error) {
	id, err := ParseID(keyID, "API key")
	if err != nil {
		return APIKey{}, err
	}
	return c.SetKeyDisabled(id, disabled)
}

// DropOwners is RemoveOwners of the workspace workspaceID names: Server.RemoveOwners and
// DELETE /_fake/workspaces/{id}/owners.
func (c *Core) DropOwners(workspaceID string) error {
	id, err := ParseID(workspaceID, "Workspace")
	if err != nil {
		return err
	}
	return c.RemoveOwners(id)
}

// LogIn is CreateSession of the personal workspace workspaceID names: Server.CreateSession and
// POST /_fake/workspaces/{id}/sessions.
func (c *Core) LogIn(workspaceID string) (string, error) {
	id, err := ParseID(workspaceID, "Workspace")
	if err != nil {
		return "", err
	}
	return c.CreateSession(id)
}
