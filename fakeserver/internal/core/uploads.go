package core

import (
	"time"

	"github.com/google/uuid"
)

// Upload rules.
const (
	// ReservationLifetime is how long a minted upload report_id can be used.
	ReservationLifetime = 7 * 24 * time.Hour
	// UploadURLLifetime is how long a signed upload URL accepts the audio.
	UploadURLLifetime = 15 * time.Minute
	// MaxUploadBytes bounds one uploaded file; the service does not document its limit, and the
	// fake keeps uploads in memory.
	MaxUploadBytes = 512 << 20
	// DefaultUploadBudget bounds the uploaded bytes the fake holds at once, across workspaces:
	// audio PUT to reservations not used yet and audio of reports not measured yet. Past it a
	// PUT is refused with 507 before its body is read.
	DefaultUploadBudget = 1 << 30
	// CodeInsufficientStorage is the fake's own code for a PUT refused because the fake holds
	// its whole upload budget.
	CodeInsufficientStorage = "insufficient_storage"
)

// Reservation is an upload report_id minted by POST /uploads.
type Reservation struct {
	ID         uuid.UUID
	Workspace  uuid.UUID
	FileName   string
	FileType   string
	DurationMs int
	MintedAt   time.Time
	used       bool
	audio      []byte
}

// EstimateCredits is the pre-flight estimate from a declared duration.
func EstimateCredits(durationMs int) int {
	return CostOf(time.Duration(durationMs) * time.Millisecond)
}

// Reserve mints an upload report_id; the workspace must be able to pay the estimate.
func (c *Core) Reserve(p Principal, fileName, fileType string, durationMs int) (Reservation, error) {
	if p.Key == nil {
		return Reservation{}, ErrInvalidAPIKey()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.clock.Now() // under the lock: the instant of the state the reservation goes into
	p, ws, err := c.principalLocked(p, now)
	if err != nil {
		return Reservation{}, err
	}
	if err := c.requireCreditsLocked(ws, EstimateCredits(durationMs), now); err != nil {
		return Reservation{}, err
	}
	r := &Reservation{ID: c.rand.UUID(), Workspace: p.Workspace.ID, FileName: fileName, FileType: fileType, DurationMs: durationMs, MintedAt: now}
	c.reservations[r.ID] = r
	id := r.ID
	c.clock.At(now.Add(ReservationLifetime), func(time.Time) { c.lapse(id) })
	return *r, nil
}

// lapse forgets a reservation that was not used within its lifetime, and frees its audio. A
// used one is kept: repeating its POST /reports answers 409.
func (c *Core) lapse(id uuid.UUID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if r, ok := c.reservations[id]; ok && !r.used {
		c.held -= int64(len(r.audio))
		delete(c.reservations, id)
	}
}

// SetUploadBudget sets the bytes of uploads the fake may hold at once (DefaultUploadBudget).
func (c *Core) SetUploadBudget(n int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.heldBudget = n
}

// HeldUploadBytes returns the uploaded bytes the fake holds.
func (c *Core) HeldUploadBytes() int64 {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.held
}

// UploadClaim is bytes counted against the upload budget for one reservation by ClaimUpload,
// in the fake's state of that moment: a reset in between voids it.
type UploadClaim struct {
	id  uuid.UUID
	n   int64
	gen uint64
}

// ClaimUpload counts n bytes about to be read for reservation id against the upload budget,
// before they are read: 404 or 409 when the reservation cannot take audio, 507 when the budget
// cannot hold them. On success the caller must either StoreClaimedUpload the bytes or
// ReleaseUpload the claim.
func (c *Core) ClaimUpload(id uuid.UUID, n int64) (UploadClaim, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	r, ok := c.reservations[id]
	if !ok {
		return UploadClaim{}, ErrNotFound("Upload")
	}
	if r.used {
		return UploadClaim{}, errorf(CodeConflict, "A report was already created from this upload.")
	}
	if c.held+n > c.heldBudget {
		return UploadClaim{}, errorf(CodeInsufficientStorage,
			"The fake holds %d bytes of uploads, its budget is %d: create reports from earlier uploads (their audio is freed once measured) or let unused reservations lapse, then retry.", c.held, c.heldBudget)
	}
	c.held += n
	c.claimed += n
	return UploadClaim{id: id, n: n, gen: c.gen}, nil
}

// ReleaseUpload gives back the bytes of a claim never stored, in whichever state it was made:
// a reset keeps counting the uploads being read, since their buffers live until the read ends.
func (c *Core) ReleaseUpload(claim UploadClaim) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.claimed -= claim.n
	c.held -= claim.n
}

// StoreClaimedUpload keeps the audio of a claim; a claim made before a reset finds no
// reservation (404), even one of the new state with the same id, as a seeded fake makes again,
// and its bytes are given back.
func (c *Core) StoreClaimedUpload(claim UploadClaim, audio []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.claimed -= claim.n
	if claim.gen != c.gen {
		c.held -= claim.n
		return ErrNotFound("Upload")
	}
	return c.storeUploadLocked(claim.id, audio)
}

// Reservation returns a reservation by id, whoever minted it (the signed URL is the authority).
func (c *Core) Reservation(id uuid.UUID) (Reservation, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	r, ok := c.reservations[id]
	if !ok {
		return Reservation{}, false
	}
	return *r, true
}

// StoreUpload keeps audio for reservation id as if its bytes had been claimed: the test
// helpers' way to give a reservation audio without the HTTP upload.
func (c *Core) StoreUpload(id uuid.UUID, audio []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.storeUploadLocked(id, audio)
}

// storeUploadLocked keeps the audio PUT to a reservation's URL, whose bytes were claimed; a
// later PUT replaces it until the report is created. On an error the claim is released.
func (c *Core) storeUploadLocked(id uuid.UUID, audio []byte) error {
	r, ok := c.reservations[id]
	if !ok {
		c.held -= int64(len(audio))
		return ErrNotFound("Upload")
	}
	if r.used {
		c.held -= int64(len(audio))
		return errorf(CodeConflict, "A report was already created from this upload.")
	}
	c.held -= int64(len(r.audio))
	r.audio = audio
	return nil
}

// CreateReportFromUpload creates the report of an uploaded file. The id must have been minted by
// this workspace within seven days and not used yet (404 otherwise); used again it is 409, as
// often as it is repeated.
func (c *Core) CreateReportFromUpload(p Principal, id uuid.UUID, fileName string, durationMs int) (Report, int, error) {
	defer c.FlushNotices()
	if p.Key == nil {
		return Report{}, 0, ErrInvalidAPIKey()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.clock.Now()
	p, ws, err := c.principalLocked(p, now)
	if err != nil {
		return Report{}, 0, err
	}
	res, ok := c.reservations[id]
	if !ok || res.Workspace != p.Workspace.ID || (!res.used && now.Sub(res.MintedAt) >= ReservationLifetime) {
		return Report{}, 0, ErrNotFound("Upload")
	}
	if res.used {
		return Report{}, 0, errorf(CodeConflict, "A report was already created from this upload; fetch it with GET /reports/%s.", id)
	}
	estimate := EstimateCredits(durationMs)
	if err := c.requireCreditsLocked(ws, estimate, now); err != nil {
		return Report{}, 0, err
	}
	res.used = true
	audio := res.audio
	if audio == nil {
		audio = []byte{} // nothing was uploaded: analysis will fail and say so
	}
	r := &Report{
		ID: id, Workspace: ws.ID, Status: StatusPending, CreatedAt: now, UpdatedAt: now,
		OriginalFilename: fileName, Personal: ws.Type == Personal, Standard: c.standardForLocked(ws, nil),
		upload: audio, Source: SourceUpload,
	}
	res.audio = nil
	c.addReportLocked(r)
	return *r, estimate, nil
}
