package feeds

import (
	"bytes"
	"testing"
)

func BenchmarkParse(b *testing.B) {
	doc := Render(bigFeed(300))
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	for b.Loop() {
		p, err := Parse(bytes.NewReader(doc))
		if err != nil {
			b.Fatal(err)
		}
		if len(p.Episodes) != 300 {
			b.Fatalf("Parse found %d episodes, want 300", len(p.Episodes))
		}
	}
}

func BenchmarkRender(b *testing.B) {
	f := bigFeed(300)
	b.ReportAllocs()
	for b.Loop() {
		Render(f)
	}
}
