package audio_test

import (
	"fmt"
	"math"
	"os"

	"github.com/podqa/podqa-go/fakeserver/internal/audio"
)

// Measure an MP3 file: the format comes from its bytes, the tags from its ID3v2 tag.
func ExampleMeasureFile() {
	f, err := os.Open("testdata/formats/tagged.mp3")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()
	m, err := audio.MeasureFile(f, "tagged.mp3")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s in %s, %d ch, %d Hz, %v, %d kbit/s\n", m.CodecName, m.FormatName, m.Channels, m.SampleRate, m.Duration, m.BitRate/1000)
	fmt.Printf("%.1f LUFS, %.1f dBTP\n", m.IntegratedLUFS, m.TruePeakDB)
	fmt.Printf("%q by %q, track %d, %d chapters, %dx%d %s cover\n", m.Tags.Title, m.Tags.Artist, m.Tags.Track,
		len(m.Tags.Chapters), m.Cover.Width, m.Cover.Height, m.Cover.MIMEType)
	// Output:
	// mp3 in mp3, 1 ch, 44100 Hz, 2s, 128 kbit/s
	// -24.2 LUFS, -20.4 dBTP
	// "Episode Title" by "The Artist", track 7, 2 chapters, 64x48 image/png cover
}

// Measure an M4A file: its AAC audio is decoded and trimmed to the edit list's two seconds.
func ExampleMeasure_aac() {
	f, err := os.Open("testdata/formats/tagged.m4a")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()
	m, err := audio.Measure(f)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(m.CodecName, m.Channels, m.SampleRate, m.Duration, math.Round(m.IntegratedLUFS))
	// Output:
	// aac 1 44100 2s -24
}
