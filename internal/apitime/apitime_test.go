package apitime

import (
	"encoding/json"
	"errors"
	"testing"
	"time"
)

func TestFormat(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   time.Time
		want string
	}{
		{time.Date(2026, 3, 4, 5, 6, 7, 891234567, time.UTC), "2026-03-04T05:06:07.891234+00:00"},
		{time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC), "2026-03-04T05:06:07.000000+00:00"},
		{time.Date(2026, 3, 4, 7, 6, 7, 0, time.FixedZone("x", 2*3600)), "2026-03-04T05:06:07.000000+00:00"},
	}
	for _, tt := range tests {
		if got := Format(tt.in); got != tt.want {
			t.Errorf("Format(%v) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestParseLenient(t *testing.T) {
	t.Parallel()
	want := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	tests := []struct {
		in      string
		want    time.Time
		wantErr bool
	}{
		{"2026-03-04T05:06:07.000000+00:00", want, false},
		{"2026-03-04T05:06:07Z", want, false},
		{"2026-03-04T07:06:07+02:00", want, false},
		{"2026-03-04T05:06:07", want, false},
		{"2026-03-04T05:06:07.5", want.Add(500 * time.Millisecond), false},
		{"2026-03-04", time.Date(2026, 3, 4, 0, 0, 0, 0, time.UTC), false},
		{"2026-03-04T05:06:07 00:00", time.Time{}, true}, // an unencoded + decoded to a space
		{"yesterday", time.Time{}, true},
		{"", time.Time{}, true},
	}
	for _, tt := range tests {
		got, err := ParseLenient(tt.in)
		if tt.wantErr {
			if !errors.Is(err, ErrInvalid) {
				t.Errorf("ParseLenient(%q) err = %v, want ErrInvalid", tt.in, err)
			}
			continue
		}
		if err != nil || !got.Equal(tt.want) || got.Location() != time.UTC {
			t.Errorf("ParseLenient(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
}

func TestParseRoundTrip(t *testing.T) {
	t.Parallel()
	in := time.Date(2026, 3, 4, 5, 6, 7, 891234000, time.UTC)
	got, err := Parse(Format(in))
	if err != nil || !got.Equal(in) {
		t.Fatalf("Parse(Format(%v)) = %v, %v", in, got, err)
	}
	if _, err := Parse("2026-03-04"); !errors.Is(err, ErrInvalid) {
		t.Fatalf("Parse of a date: %v", err)
	}
}

func FuzzParseLenient(f *testing.F) {
	for _, s := range []string{"2026-03-04T05:06:07Z", "2026-03-04", "2026-03-04T05:06:07.123456+00:00", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseLenient(s)
		if err != nil {
			return
		}
		if got.Location() != time.UTC {
			t.Fatalf("ParseLenient(%q) not in UTC", s)
		}
		// Whatever was accepted must survive the fixed form at microsecond precision.
		back, err := Parse(Format(got))
		if err != nil || !back.Equal(got.Truncate(time.Microsecond)) {
			t.Fatalf("round trip of %q: %v, %v", s, back, err)
		}
	})
}

func TestTimeJSON(t *testing.T) {
	t.Parallel()
	in := At(time.Date(2026, 3, 4, 5, 6, 7, 891234567, time.FixedZone("x", 3600)))
	b, err := json.Marshal(struct {
		At  Time  `json:"at"`
		Nil *Time `json:"nil"`
	}{At: in})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(b), `{"at":"2026-03-04T04:06:07.891234+00:00","nil":null}`; got != want {
		t.Fatalf("marshal = %s, want %s", got, want)
	}
	var back struct{ At Time }
	if err := json.Unmarshal([]byte(`{"At":"2026-03-04T04:06:07.891234+00:00"}`), &back); err != nil {
		t.Fatal(err)
	}
	if !back.At.Equal(in.Truncate(time.Microsecond)) {
		t.Fatalf("unmarshal = %v", back.At)
	}
	if err := json.Unmarshal([]byte(`{"At":"tomorrow"}`), &back); err == nil {
		t.Fatal("unmarshal of a bad time succeeded")
	}
	var bound Time
	if err := bound.Bind("2026-03-04T04:06:07"); err != nil || bound.String() != "2026-03-04T04:06:07.000000+00:00" {
		t.Fatalf("Bind = %v, %v", bound, err)
	}
	if Ptr(time.Time{}) != nil {
		t.Fatal("Ptr of the zero time is not nil")
	}
}
