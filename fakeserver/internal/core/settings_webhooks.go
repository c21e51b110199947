package core

import (
	"context"
	"strings"

	"github.com/google/uuid"
)

// The webhook calls of Settings (endpoints, their deliveries, test events, resends) and the
// emails, as the Go API (fakeserver's api_webhooks.go) and the control API (internal/control's
// webhooks.go) both take them: ids as sent, read by the id rule.

// SettingsEndpoint is an endpoint as Settings adds it, its series id as sent ("" for every
// series).
type SettingsEndpoint struct {
	URL      string
	Events   []string
	SeriesID string
}

// AddSettingsEndpoint adds an endpoint to the workspace workspaceID names, as Settings does, after
// the checks of POST /webhook/subscribe (the limit counts both kinds): the fields and the series,
// then the URL by checkURL (the URL policy, which resolves names and so runs outside the core's
// lock), then the limit. It returns the endpoint with its secret, shown this once.
func (c *Core) AddSettingsEndpoint(ctx context.Context, workspaceID string, in SettingsEndpoint, checkURL func(context.Context, string) error) (Endpoint, string, error) {
	ws, err := ParseID(workspaceID, "Workspace")
	if err != nil {
		return Endpoint{}, "", err
	}
	ne := NewEndpoint{URL: in.URL, Events: in.Events}
	if in.SeriesID != "" {
		id, ok := CanonicalID(in.SeriesID)
		if !ok {
			id = NoID // no series has it
		}
		ne.SeriesID = &id
	}
	if err := c.CheckEndpoint(ws, ne); err != nil {
		return Endpoint{}, "", err
	}
	if err := checkURL(ctx, ne.URL); err != nil {
		return Endpoint{}, "", err
	}
	return c.CreateEndpoint(ws, ne, false)
}

// EndpointsOf lists the endpoints of the workspace workspaceID names, those made over REST
// included.
func (c *Core) EndpointsOf(workspaceID string) ([]Endpoint, error) {
	ws, err := ParseID(workspaceID, "Workspace")
	if err != nil {
		return nil, err
	}
	return c.Endpoints(ws)
}

// SwitchEndpoint is SetEndpointEnabled of the endpoint endpointID names.
func (c *Core) SwitchEndpoint(endpointID string, enabled bool) (Endpoint, error) {
	id, err := ParseID(endpointID, "Webhook endpoint")
	if err != nil {
		return Endpoint{}, err
	}
	return c.SetEndpointEnabled(id, enabled)
}

// RemoveSettingsEndpoint deletes the Settings endpoint endpointID names and drops its queued
// retries; one made over REST is a conflict, deleted only by DELETE /webhook/subscribe/{id}.
func (c *Core) RemoveSettingsEndpoint(endpointID string) error {
	id, err := ParseID(endpointID, "Webhook endpoint")
	if err != nil {
		return err
	}
	ep, err := c.EndpointByID(id)
	if err != nil {
		return err
	}
	if ep.ViaREST {
		return errorf(CodeConflict, "This endpoint was created over REST; delete it with DELETE /webhook/subscribe/{id}.")
	}
	return c.DeleteEndpoint(ep.Workspace, id, false)
}

// SendTestEventTo is SendTestEvent of the endpoint endpointID names.
func (c *Core) SendTestEventTo(ctx context.Context, endpointID string) (Delivery, error) {
	id, err := ParseID(endpointID, "Webhook endpoint")
	if err != nil {
		return Delivery{}, err
	}
	return c.SendTestEvent(ctx, id)
}

// DeliveryLog is Deliveries of the endpoint endpointID names, of every endpoint when it is "".
func (c *Core) DeliveryLog(endpointID string) ([]Delivery, error) {
	var filter *uuid.UUID
	if endpointID != "" {
		id, err := ParseID(endpointID, "Webhook endpoint")
		if err != nil {
			return nil, err
		}
		filter = &id
	}
	return c.Deliveries(filter)
}

// ResendDeliveryNamed is ResendDelivery of the delivery deliveryID names.
func (c *Core) ResendDeliveryNamed(ctx context.Context, deliveryID string) (Delivery, error) {
	id, err := ParseID(deliveryID, "Webhook delivery")
	if err != nil {
		return Delivery{}, err
	}
	return c.ResendDelivery(ctx, id)
}

// EmailLog is Emails of the workspace workspaceID names, of every workspace when it is "".
func (c *Core) EmailLog(workspaceID string) ([]Email, error) {
	var filter *uuid.UUID
	if workspaceID != "" {
		id, err := ParseID(workspaceID, "Workspace")
		if err != nil {
			return nil, err
		}
		filter = &id
	}
	return c.Emails(filter)
}

// Source is where an endpoint was made: "settings" (the Go API, the control API, fixtures) or
// "rest" (POST /webhook/subscribe).
func (ep Endpoint) Source() string {
	if ep.ViaREST {
		return "rest"
	}
	return "settings"
}

// AnswerText is the kept part of the receiver's answer to the last attempt, as text: cut at
// its byte limit, an answer may end inside a character, which becomes U+FFFD.
func (d Delivery) AnswerText() string { return strings.ToValidUTF8(string(d.Answer), "\uFFFD") }
