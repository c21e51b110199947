package core

import (
	"testing"
	"time"

	"github.com/google/uuid"
)

func TestCanSee(t *testing.T) {
	t.Parallel()
	f := newFixture(t, time.Minute, NewWorkspace{})
	org, err := f.c.CreateWorkspace(NewWorkspace{Type: Organisation, Name: "Acme"})
	if err != nil {
		t.Fatal(err)
	}
	_, orgKey := mustKey(t, f.c, org.ID, false)
	owner, err := f.c.Authenticate(orgKey) // the organisation's key acts as its owner
	if err != nil {
		t.Fatal(err)
	}
	ownerAtHome, err := f.c.ActAs(owner, owner.Account.Personal)
	if err != nil {
		t.Fatal(err)
	}
	other := newFixture(t, time.Minute, NewWorkspace{})
	tests := []struct {
		name      string
		p         Principal
		workspace uuid.UUID
		want      bool
	}{
		{"its own workspace", f.p, f.ws.ID, true},
		{"an organisation it does not belong to", f.p, org.ID, false},
		{"another person's workspace", f.p, other.ws.ID, false},
		{"the organisation, acting in it", owner, org.ID, true},
		{"the organisation, acting in the owner's personal workspace", ownerAtHome, org.ID, true},
		{"the owner's personal workspace, acting in the organisation", owner, owner.Account.Personal, true},
		{"anonymous, even with a workspace", Principal{Workspace: f.p.Workspace}, f.ws.ID, false},
	}
	for _, tt := range tests {
		if got := f.c.CanSee(tt.p, tt.workspace); got != tt.want {
			t.Errorf("%s: CanSee = %v, want %v", tt.name, got, tt.want)
		}
	}
}
