package fakeserver_test

import (
	"fmt"
	"time"

	"github.com/podqa/podqa-go/fakeserver"
)

// A custom standard with word lists becomes the workspace default, so the next upload is judged
// by it; a transcript is scripted for the bytes that upload will carry.
func ExampleServer_CreateStandard() {
	srv, err := fakeserver.New(fakeserver.WithManualClock(fakeserver.TestStart()), fakeserver.WithAnalysisPace(0))
	if err != nil {
		panic(err)
	}
	defer srv.Close()
	seed, _ := srv.SeedDemo()

	std, err := srv.CreateStandard(seed.WorkspaceID, fakeserver.StandardSpec{
		Name: "House style", BasedOn: fakeserver.StandardAESSpeech,
		UnwantedWords: []string{"um"}, ExpectedWords: []string{"thanks for listening"},
	})
	if err != nil {
		panic(err)
	}
	if _, err := srv.SetDefaultStandard(seed.WorkspaceID, std.ID); err != nil {
		panic(err)
	}
	fmt.Println(std.Name, "based on", std.BasedOn, "- transcript included:", std.TranscriptIncluded)

	// Any bytes do for the transcript's key; a real upload would carry audio.
	sum, _ := srv.ScriptTranscript([]byte("RIFF..."), []fakeserver.TranscriptLine{
		{Start: 0, End: 1000 * time.Millisecond, Text: "Um, hello.", Speaker: ptr("host")},
	})
	fmt.Println("transcript keyed by a SHA-256 of", len(sum), "hex digits")

	list, _ := srv.Standards(seed.WorkspaceID)
	for _, s := range list {
		fmt.Println(s.Name, s.Builtin)
	}
	// Output:
	// House style based on AES speech - transcript included: true
	// transcript keyed by a SHA-256 of 64 hex digits
	// Podcast true
	// AES speech true
	// EBU R128 true
	// House style false
}

func ptr[T any](v T) *T { return &v }
