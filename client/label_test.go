package client

import "testing"

func TestReportListItemLabel(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		item ReportListItem
		want string
	}{
		{"episode title", ReportListItem{OriginalFilename: "ep1.mp3", Episode: &ReportEpisodeRef{Title: "Episode one"}}, "Episode one"},
		{"upload", ReportListItem{OriginalFilename: "take.wav"}, "take.wav"},
		{"episode without a title", ReportListItem{OriginalFilename: "ep2.mp3", Episode: &ReportEpisodeRef{}}, "ep2.mp3"},
	}
	for _, tt := range tests {
		if got := tt.item.Label(); got != tt.want {
			t.Errorf("%s: Label() = %q, want %q", tt.name, got, tt.want)
		}
	}
}
