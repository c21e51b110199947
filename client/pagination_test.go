package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
)

// liveListing serves GET /reports over a list that changes while it is walked: before serving
// each page after the first, it puts newShifts new reports at the top, pushing every row down,
// as new reports do on the service.
type liveListing struct {
	mu        sync.Mutex
	ids       []string
	newShifts int
	next      int
	pages     int
	offsets   []int
	failAt    int // 1-based page that answers 500; 0 for none
}

func reportIDN(n int) string { return fmt.Sprintf("00000000-0000-4000-8000-%012d", n) }

func (l *liveListing) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.pages++
	if l.pages == l.failAt {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte(`{"error":{"code":"validation_error","message":"offset: out of range"}}`))
		return
	}
	if l.pages > 1 {
		for range l.newShifts {
			l.next++
			l.ids = append([]string{reportIDN(1000 + l.next)}, l.ids...)
		}
	}
	q := r.URL.Query()
	limit, _ := strconv.Atoi(q.Get("limit"))
	offset, _ := strconv.Atoi(q.Get("offset"))
	if limit == 0 {
		limit = 50
	}
	l.offsets = append(l.offsets, offset)
	page := Page[ReportListItem]{Items: []ReportListItem{}, Limit: limit, Offset: offset}
	for i := offset; i < len(l.ids) && i < offset+limit; i++ {
		page.Items = append(page.Items, ReportListItem{ID: l.ids[i], Status: StatusComplete, OriginalFilename: "x.mp3"})
	}
	page.HasMore = offset+limit < len(l.ids)
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(page)
}

func newLiveListing(n, shifts int) *liveListing {
	l := &liveListing{newShifts: shifts}
	for i := range n {
		l.ids = append(l.ids, reportIDN(i))
	}
	return l
}

func TestAllReportsDeduplicatesShiftedRows(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name          string
		rows, shifts  int
		limit         int
		wantPages     int
		wantOffsets   []int
		wantFirstRows int
	}{
		{"stable listing", 7, 0, 3, 3, []int{0, 3, 6}, 7},
		{"one new row per page", 7, 1, 3, 3, []int{0, 3, 6}, 7},
		{"two new rows per page", 6, 2, 3, 4, []int{0, 3, 6, 9}, 6},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			l := newLiveListing(tt.rows, tt.shifts)
			srv := httptest.NewServer(l)
			t.Cleanup(srv.Close)
			c, _ := newTestClient(t, srv.URL)
			seen := map[string]int{}
			var order []string
			for r, err := range c.AllReports(context.Background(), ListReportsParams{Limit: tt.limit}) {
				if err != nil {
					t.Fatal(err)
				}
				seen[r.ID]++
				order = append(order, r.ID)
			}
			for id, n := range seen {
				if n != 1 {
					t.Errorf("%s yielded %d times", id, n)
				}
			}
			// Every row present when the walk began is yielded, in listing order.
			for i := range tt.wantFirstRows {
				if seen[reportIDN(i)] != 1 {
					t.Errorf("row %d missing", i)
				}
			}
			if l.pages != tt.wantPages || fmt.Sprint(l.offsets) != fmt.Sprint(tt.wantOffsets) {
				t.Errorf("pages %d offsets %v, want %d %v", l.pages, l.offsets, tt.wantPages, tt.wantOffsets)
			}
			if order[0] != reportIDN(0) {
				t.Errorf("first row %s", order[0])
			}
		})
	}
}

func TestAllReportsStopsEarly(t *testing.T) {
	t.Parallel()
	l := newLiveListing(10, 0)
	srv := httptest.NewServer(l)
	t.Cleanup(srv.Close)
	c, _ := newTestClient(t, srv.URL)
	n := 0
	for _, err := range c.AllReports(context.Background(), ListReportsParams{Limit: 3}) {
		if err != nil {
			t.Fatal(err)
		}
		n++
		if n == 4 {
			break
		}
	}
	if l.pages != 2 {
		t.Fatalf("pages fetched = %d, want 2", l.pages)
	}
}

func TestAllReportsYieldsError(t *testing.T) {
	t.Parallel()
	l := newLiveListing(10, 0)
	l.failAt = 2
	srv := httptest.NewServer(l)
	t.Cleanup(srv.Close)
	c, _ := newTestClient(t, srv.URL)
	var got []string
	var gotErr error
	for r, err := range c.AllReports(context.Background(), ListReportsParams{Limit: 4}) {
		if err != nil {
			gotErr = err
			continue
		}
		got = append(got, r.ID)
	}
	if len(got) != 4 || !errors.Is(gotErr, ErrValidation) {
		t.Fatalf("got %d rows, err %v", len(got), gotErr)
	}
}

// TestAllReportsDefaultPageSize: the iterators ask for the largest page unless told otherwise,
// and keep the filters on every page.
func TestAllReportsDefaultPageSize(t *testing.T) {
	t.Parallel()
	srv, s := serve(t, jsonReply(200, `{"items":[],"limit":100,"offset":0,"has_more":false}`))
	c, _ := newTestClient(t, srv.URL)
	for _, err := range c.AllReports(context.Background(), ListReportsParams{Status: StatusComplete}) {
		t.Fatal(err)
	}
	if q := s.Requests()[0].query; q != "status=COMPLETE&limit=100" {
		t.Fatalf("query %q", q)
	}
}

func TestAllSeriesAndEpisodes(t *testing.T) {
	t.Parallel()
	pages := map[string]string{
		"/api/rest/v1/series?limit=2":                                       `{"items":[{"id":"` + reportIDN(1) + `"},{"id":"` + reportIDN(2) + `"}],"limit":2,"offset":0,"has_more":true}`,
		"/api/rest/v1/series?limit=2&offset=2":                              `{"items":[{"id":"` + reportIDN(2) + `"},{"id":"` + reportIDN(3) + `"}],"limit":2,"offset":2,"has_more":false}`,
		"/api/rest/v1/series/" + seriesID1 + "/episodes?limit=100":          `{"items":[{"id":"` + reportIDN(7) + `","audio_url":"https://x/7.mp3","published_on":"2025-03-01"}],"limit":100,"offset":0,"has_more":true}`,
		"/api/rest/v1/series/" + seriesID1 + "/episodes?limit=100&offset=1": `{"items":[],"limit":100,"offset":1,"has_more":true}`,
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := pages[r.URL.RequestURI()]
		if !ok {
			t.Errorf("unexpected request %s", r.URL.RequestURI())
			w.WriteHeader(404)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	c, _ := newTestClient(t, srv.URL)
	var series []string
	for s, err := range c.AllSeries(context.Background(), ListParams{Limit: 2}) {
		if err != nil {
			t.Fatal(err)
		}
		series = append(series, s.ID)
	}
	if fmt.Sprint(series) != fmt.Sprint([]string{reportIDN(1), reportIDN(2), reportIDN(3)}) {
		t.Fatalf("series %v", series)
	}
	var episodes []Episode
	// An empty page ends the walk even if it claims more.
	for e, err := range c.AllEpisodes(context.Background(), seriesID1, ListParams{}) {
		if err != nil {
			t.Fatal(err)
		}
		episodes = append(episodes, e)
	}
	if len(episodes) != 1 || episodes[0].PublishedOn.String() != "2025-03-01" {
		t.Fatalf("episodes %+v", episodes)
	}
}

func TestPageNextOffset(t *testing.T) {
	t.Parallel()
	p := Page[Series]{Items: make([]Series, 3), Limit: 3, Offset: 6, HasMore: true}
	if p.NextOffset() != 9 {
		t.Fatalf("NextOffset = %d", p.NextOffset())
	}
}
