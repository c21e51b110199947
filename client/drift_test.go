package client

import (
	"encoding/json"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestSchemaDrift checks that the JSON field names of every public type equal the properties of
// its schema in openapi.json, so that a field added to or renamed in the contract shows up here.
func TestSchemaDrift(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("../openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Components struct {
			Schemas map[string]struct {
				Properties map[string]json.RawMessage `json:"properties"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	types := map[string]any{
		"Me":                      Me{},
		"Workspace":               Workspace{},
		"ApiKeyRecord":            APIKey{},
		"Series":                  Series{},
		"Episode":                 Episode{},
		"ReportListItem":          ReportListItem{},
		"ReportSeriesRef":         ReportSeriesRef{},
		"ReportEpisodeRef":        ReportEpisodeRef{},
		"Report":                  Report{},
		"ReportSeries":            ReportSeries{},
		"ReportEpisode":           ReportEpisode{},
		"StandardRef":             StandardRef{},
		"Stats":                   Stats{},
		"ResultEntry":             Result{},
		"Hit":                     Hit{},
		"ExplicitFlagValue":       ExplicitFlag{},
		"ExpectedWordsEntry":      ExpectedWord{},
		"FileInfo":                FileInfo{},
		"Metadata":                Metadata{},
		"CoverImage":              CoverImage{},
		"Transcript":              Transcript{},
		"TranscriptEntry":         TranscriptEntry{},
		"UploadReservation":       UploadReservation{},
		"CreateReportResponse":    CreatedReport{},
		"Credits":                 Credits{},
		"TopupLot":                TopupLot{},
		"SeriesList":              Page[Series]{},
		"EpisodeList":             Page[Episode]{},
		"ReportList":              Page[ReportListItem]{},
		"WebhookSubscribeRequest": WebhookSubscribeParams{},
		"WebhookSubscription":     WebhookSubscription{},
		"ErrorDetail":             errorDetail{},
		"Error":                   errorEnvelope{},
	}
	for schema, v := range types {
		s, ok := doc.Components.Schemas[schema]
		if !ok {
			t.Errorf("openapi.json has no schema %s", schema)
			continue
		}
		var want []string
		for p := range s.Properties {
			want = append(want, p)
		}
		slices.Sort(want)
		got := jsonFields(reflect.TypeOf(v))
		if !slices.Equal(got, want) {
			t.Errorf("%s (%T): fields %v, schema properties %v", schema, v, got, want)
		}
	}
}

// jsonFields lists the JSON names of a struct's fields, sorted.
func jsonFields(t reflect.Type) []string {
	var names []string
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("json")
		name, _, _ := strings.Cut(tag, ",")
		switch name {
		case "-":
			continue
		case "":
			name = f.Name
		}
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}
