package core

import "github.com/google/uuid"

// The standards' calls as the Go API and the control API make them, with ids as they were sent:
// an id that is not canonical (CanonicalID) names nothing and is not found.

// idOf is s by the id rule, or not_found naming what it was to name.
func idOf(s, what string) (uuid.UUID, error) {
	id, ok := CanonicalID(s)
	if !ok {
		return NoID, ErrNotFound(what)
	}
	return id, nil
}

// CreateStandardIn is CreateStandard in the workspace workspaceID names.
func (c *Core) CreateStandardIn(workspaceID string, in StandardSpec) (Standard, error) {
	ws, err := idOf(workspaceID, "Workspace")
	if err != nil {
		return Standard{}, err
	}
	return c.CreateStandard(ws, in)
}

// StandardsOf is Standards of the workspace workspaceID names.
func (c *Core) StandardsOf(workspaceID string) ([]Standard, error) {
	ws, err := idOf(workspaceID, "Workspace")
	if err != nil {
		return nil, err
	}
	return c.Standards(ws)
}

// ChooseDefaultStandard is SetDefaultStandard of the workspace and standard the ids name.
func (c *Core) ChooseDefaultStandard(workspaceID, standardID string) (Standard, error) {
	ws, err := idOf(workspaceID, "Workspace")
	if err != nil {
		return Standard{}, err
	}
	std, err := idOf(standardID, "Standard")
	if err != nil {
		return Standard{}, err
	}
	return c.SetDefaultStandard(ws, std)
}

// ChooseSeriesStandard is SetSeriesStandard of the series and standard the ids name;
// standardID "" removes the show's own standard.
func (c *Core) ChooseSeriesStandard(seriesID, standardID string) (Standard, error) {
	series, err := idOf(seriesID, "Series")
	if err != nil {
		return Standard{}, err
	}
	var std *uuid.UUID
	if standardID != "" {
		id, err := idOf(standardID, "Standard")
		if err != nil {
			return Standard{}, err
		}
		std = &id
	}
	return c.SetSeriesStandard(series, std)
}
