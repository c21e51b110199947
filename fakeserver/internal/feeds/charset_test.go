package feeds

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf16"
)

// utf16Doc encodes s as UTF-16 with a byte order mark.
func utf16Doc(s string, bigEndian bool) string {
	var b []byte
	put := func(u uint16) {
		if bigEndian {
			b = append(b, byte(u>>8), byte(u))
		} else {
			b = append(b, byte(u), byte(u>>8))
		}
	}
	put(0xFEFF)
	for _, u := range utf16.Encode([]rune(s)) {
		put(u)
	}
	return string(b)
}

func TestParseCharsets(t *testing.T) {
	t.Parallel()
	const feed = `<rss version="2.0"><channel><title>%s</title></channel></rss>`
	doc := func(decl, title string) string {
		return decl + strings.Replace(feed, "%s", title, 1)
	}
	tests := []struct {
		name      string
		doc       string
		wantTitle string
		wantErr   string // the declared encoding Parse refuses, if any
	}{
		{"UTF-8 without declaration", doc("", "Café 🎙"), "Café 🎙", ""},
		{"UTF-8 declared", doc(`<?xml version="1.0" encoding="utf-8"?>`, "Café"), "Café", ""},
		{"UTF-8 alias", doc(`<?xml version="1.0" encoding="UTF8"?>`, "Café"), "Café", ""},
		{"US-ASCII reads as windows-1252", doc(`<?xml version="1.0" encoding="US-ASCII"?>`, "a\x80b"), "a€b", ""},
		{"ISO-8859-1 reads as windows-1252", doc(`<?xml version="1.0" encoding="iso-8859-1"?>`, "\xe9\x93\x94"), "é“”", ""},
		{"windows-1252 unassigned byte", doc(`<?xml version="1.0" encoding="windows-1252"?>`, "\x81\xff"), "\ufffdÿ", ""},
		{"UTF-16LE with BOM", utf16Doc(doc(`<?xml version="1.0" encoding="UTF-16"?>`, "Été 🎙"), false), "Été 🎙", ""},
		{"UTF-16BE with BOM", utf16Doc(doc(`<?xml version="1.0" encoding="utf-16be"?>`, "Été"), true), "Été", ""},
		{"UTF-16 with BOM, no declaration", utf16Doc(doc("", "x"), false), "x", ""},
		{"UTF-16 declared without BOM", doc(`<?xml version="1.0" encoding="UTF-16"?>`, "x"), "", "UTF-16"},
		{"Shift_JIS", doc(`<?xml version="1.0" encoding="Shift_JIS"?>`, "x"), "", "Shift_JIS"},
		{"ISO-8859-2", doc(`<?xml version="1.0" encoding="ISO-8859-2"?>`, "x"), "", "ISO-8859-2"},
		{"KOI8-R late in the document", doc("", "x") + `<?xml version="1.0" encoding="KOI8-R"?>`, "x", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, err := Parse(strings.NewReader(tt.doc))
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("Parse error: %v", err)
				}
				if p.Title != tt.wantTitle {
					t.Errorf("Title = %q, want %q", p.Title, tt.wantTitle)
				}
				return
			}
			var fe *Error
			var ce *UnsupportedCharsetError
			if !errors.As(err, &fe) || fe.Kind != KindParse || !errors.As(err, &ce) || ce.Charset != tt.wantErr || p != nil {
				t.Fatalf("Parse = %v, %v; want a KindParse error with an UnsupportedCharsetError for %q", p, err, tt.wantErr)
			}
			want := `the feed could not be parsed: the feed's character encoding "` + tt.wantErr + `" is not supported`
			if !strings.HasPrefix(fe.Message, want) {
				t.Errorf("Message = %q, want it to start %q", fe.Message, want)
			}
		})
	}
}

// TestParseDeepNesting checks that elements the reader skips or reads as
// extensions may nest deeply: they are walked with a counter, not recursion.
func TestParseDeepNesting(t *testing.T) {
	t.Parallel()
	const depth = 50_000
	nest := func(open, close string) string {
		return strings.Repeat(open, depth) + "v" + strings.Repeat(close, depth)
	}
	doc := `<rss xmlns:x="urn:x"><channel><title>Deep</title><x:ext>` + nest("<x:a>", "</x:a>") + `</x:ext>` +
		`<skipped>` + nest("<a>", "</a>") + `</skipped>` +
		`<item><x:ext>` + nest("<b>", "</b>") + `</x:ext><enclosure url="https://x.example/a.mp3"/></item></channel></rss>`
	p, err := Parse(strings.NewReader(doc))
	if err != nil {
		t.Fatalf("Parse error: %v", err)
	}
	if p.Title != "Deep" || len(p.Episodes) != 1 {
		t.Errorf("Parse = %q with %d episodes, want \"Deep\" with 1", p.Title, len(p.Episodes))
	}
}
