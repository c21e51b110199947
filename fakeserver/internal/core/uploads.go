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
	// UploadAudioLifetime is how long the audio PUT to a reservation is kept when no report is
	// made from it: it is freed this long after the reservation was minted (45 minutes after
	// its upload URL expired), though the reservation lives on for its seven days; a report
	// made from it later fails, saying so.
	UploadAudioLifetime = time.Hour
	// MaxUploadBytes bounds one uploaded file; the service does not document its limit, and the
	// fake keeps uploads in memory.
	MaxUploadBytes = 512 << 20
	// DefaultUploadBudget bounds the uploaded bytes the fake holds at once, across workspaces:
	// audio PUT to reservations not used yet, audio of reports not measured yet and uploads
	// being read.
	DefaultUploadBudget = 1 << 30
	// DefaultUploadShare bounds the uploaded bytes one workspace holds at once, within the
	// budget: one file of the largest size, half the budget, so that no workspace can shut the
	// others out.
	DefaultUploadShare = MaxUploadBytes
	// CodeInsufficientStorage is the fake's own code for a PUT refused because the fake holds
	// its whole upload budget, or the workspace its whole share.
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
	// freed is set when audio PUT to the reservation was freed unused (UploadAudioLifetime).
	freed bool
	audio uploadAudio
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
	c.clock.At(now.Add(UploadAudioLifetime), func(time.Time) { c.freeUnusedAudio(id) })
	c.clock.At(now.Add(ReservationLifetime), func(time.Time) { c.lapse(id) })
	return *r, nil
}

// freeUnusedAudio frees the audio of a reservation no report was made from within
// UploadAudioLifetime; the reservation itself stays until it lapses.
func (c *Core) freeUnusedAudio(id uuid.UUID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if r, ok := c.reservations[id]; ok && !r.used && r.audio != nil {
		c.unholdLocked(r.Workspace, r.audio.size())
		r.audio, r.freed = nil, true
	}
}

// lapse forgets a reservation that was not used within its lifetime, and frees its audio. A
// used one is kept: repeating its POST /reports answers 409.
func (c *Core) lapse(id uuid.UUID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if r, ok := c.reservations[id]; ok && !r.used {
		c.unholdLocked(r.Workspace, r.audio.size())
		delete(c.reservations, id)
	}
}

// unholdLocked gives back n held bytes of workspace ws.
func (c *Core) unholdLocked(ws uuid.UUID, n int64) {
	if n == 0 {
		return
	}
	c.held -= n
	if c.heldBy[ws] -= n; c.heldBy[ws] <= 0 {
		delete(c.heldBy, ws)
	}
}

// SetUploadBudget sets the bytes of uploads the fake may hold at once (DefaultUploadBudget).
func (c *Core) SetUploadBudget(n int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.heldBudget = n
}

// SetUploadShare sets the bytes of uploads one workspace may hold at once (DefaultUploadShare).
func (c *Core) SetUploadShare(n int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.heldShare = n
}

// HeldUploadBytes returns the uploaded bytes the fake holds.
func (c *Core) HeldUploadBytes() int64 {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.held
}

// WorkspaceUploadBytes returns the uploaded bytes the fake holds for workspace ws: audio of its
// reservations and of its reports not measured yet, and its uploads being read.
func (c *Core) WorkspaceUploadBytes(ws uuid.UUID) int64 {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.heldBy[ws]
}

// uploadClaim is bytes counted against the upload budget and a workspace's share for one
// upload being read, in the fake's state of that moment: a reset in between voids it.
type uploadClaim struct {
	id  uuid.UUID
	ws  uuid.UUID
	n   int64
	gen uint64
}

// claimUpload starts counting the bytes of an upload to reservation id, with n bytes about to
// be read: 404 or 409 when the reservation cannot take audio, 507 when the budget or the
// workspace's share cannot hold them. On success the caller must either storeClaimedUpload the
// bytes or releaseUpload the claim.
func (c *Core) claimUpload(id uuid.UUID, n int64) (uploadClaim, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	r, ok := c.reservations[id]
	if !ok {
		return uploadClaim{}, ErrNotFound("Upload")
	}
	claim := uploadClaim{id: id, ws: r.Workspace, gen: c.gen}
	if err := c.growLocked(&claim, n); err != nil {
		return uploadClaim{}, err
	}
	return claim, nil
}

// growUpload counts n more bytes of a claim, about to be read, with claimUpload's refusals. On
// a refusal the claim is unchanged, for the caller to release.
func (c *Core) growUpload(claim *uploadClaim, n int64) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.growLocked(claim, n)
}

func (c *Core) growLocked(claim *uploadClaim, n int64) error {
	if err := c.refusalLocked(claim, n); err != nil {
		return err
	}
	c.held += n
	c.claimed += n
	c.heldBy[claim.ws] += n
	c.claimedBy[claim.ws] += n
	claim.n += n
	return nil
}

// refusalLocked is why a claim cannot take n more bytes, nil when it can: 404 when the
// reservation is gone (or the claim's state is), 409 when a report was made from it, 507 when
// the workspace's share or the budget cannot hold them (the share named first: it is what the
// caller can free).
func (c *Core) refusalLocked(claim *uploadClaim, n int64) error {
	r, ok := c.reservations[claim.id]
	if !ok || claim.gen != c.gen {
		return ErrNotFound("Upload")
	}
	if r.used {
		return errorf(CodeConflict, "A report was already created from this upload.")
	}
	if mine := c.heldBy[claim.ws]; mine+n > c.heldShare {
		return errorf(CodeInsufficientStorage,
			"This workspace holds %d bytes of uploads and may hold %d, its share of the fake's upload budget; the upload needs %d more. A reservation's audio is freed once the report made from it is measured, or %v after the reservation when no report is made from it: create reports from the workspace's earlier uploads, or wait, then retry.",
			mine, c.heldShare, n, UploadAudioLifetime)
	}
	if c.held+n > c.heldBudget {
		return errorf(CodeInsufficientStorage,
			"The fake holds %d bytes of uploads, its budget across workspaces is %d (each may hold %d); the upload needs %d more. Uploads are freed once their reports are measured, or %v after their reservation when no report is made from them: retry later.",
			c.held, c.heldBudget, c.heldShare, n, UploadAudioLifetime)
	}
	return nil
}

// releaseUpload gives back the bytes of a claim never stored, in whichever state it was made:
// a reset keeps counting the uploads being read, since their buffers live until the read ends.
func (c *Core) releaseUpload(claim uploadClaim) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.unclaimLocked(claim)
	c.unholdLocked(claim.ws, claim.n)
}

// unclaimLocked ends the claim's count as an upload being read; its bytes stay held.
func (c *Core) unclaimLocked(claim uploadClaim) {
	c.claimed -= claim.n
	if c.claimedBy[claim.ws] -= claim.n; c.claimedBy[claim.ws] <= 0 {
		delete(c.claimedBy, claim.ws)
	}
}

// storeClaimedUpload keeps the audio of a claim; a claim made before a reset finds no
// reservation (404), even one of the new state with the same id, as a seeded fake makes again,
// and its bytes are given back.
func (c *Core) storeClaimedUpload(claim uploadClaim, audio uploadAudio) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.unclaimLocked(claim)
	if claim.gen != c.gen {
		c.unholdLocked(claim.ws, claim.n)
		return ErrNotFound("Upload")
	}
	// The claim counted chunks as they were allocated; the audio is what they hold.
	c.unholdLocked(claim.ws, claim.n-audio.size())
	return c.storeUploadLocked(claim.ws, claim.id, audio)
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

// StoreUpload keeps audio for reservation id, counted against the budget and the share but
// never refused by them: the test helpers' way to give a reservation audio without the HTTP
// upload.
func (c *Core) StoreUpload(id uuid.UUID, audio []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	r, ok := c.reservations[id]
	if !ok {
		return ErrNotFound("Upload")
	}
	c.held += int64(len(audio))
	c.heldBy[r.Workspace] += int64(len(audio))
	return c.storeUploadLocked(r.Workspace, id, uploadAudio{audio})
}

// storeUploadLocked keeps the audio PUT to a reservation's URL, whose bytes are held for
// workspace ws; a later PUT replaces it until the report is created. On an error the bytes are
// given back.
func (c *Core) storeUploadLocked(ws, id uuid.UUID, audio uploadAudio) error {
	r, ok := c.reservations[id]
	if !ok {
		c.unholdLocked(ws, audio.size()) // it lapsed while its audio was read
		return ErrNotFound("Upload")
	}
	if r.used {
		c.unholdLocked(ws, audio.size())
		return errorf(CodeConflict, "A report was already created from this upload.")
	}
	c.unholdLocked(r.Workspace, r.audio.size())
	r.audio, r.freed = audio, false
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
		audio = uploadAudio{} // nothing was uploaded, or it was freed: analysis fails and says so
	}
	r := &Report{
		ID: id, Workspace: ws.ID, Status: StatusPending, CreatedAt: now, UpdatedAt: now,
		OriginalFilename: fileName, Personal: ws.Type == Personal, Standard: c.standardForLocked(ws, nil),
		upload: audio, uploadFreed: res.freed, Source: SourceUpload,
	}
	res.audio = nil
	c.addReportLocked(r)
	return *r, estimate, nil
}
