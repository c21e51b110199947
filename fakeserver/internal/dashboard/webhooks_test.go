package dashboard

import (
	"testing"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
)

// TestWebhooksPageBoundedWhateverTenantsSend: a workspace's five webhook endpoints, each with
// a URL far past its cap in characters escaped to five bytes, make a page under its size that
// shows at most maxURL characters of each URL and counts the failing deliveries.
func TestWebhooksPageBoundedWhateverTenantsSend(t *testing.T) {
	t.Parallel()
	id := "00000000-0000-4000-8000-000000000000"
	wh := webhooksView{WorkspaceID: id}
	for range 5 {
		wh.Endpoints = append(wh.Endpoints, endpointRow(Endpoint{ID: id, URL: "http://" + fiveByteText(100<<10), Events: []string{"report.completed", "report.failed"}, Enabled: true, Source: "rest"},
			[]core.Delivery{{Status: "retrying"}, {Status: "succeeded"}, {Status: "abandoned"}}))
	}
	if e := wh.Endpoints[0]; len([]rune(e.URL)) != maxURL+1 || e.Deliveries != 3 || e.Failing != 2 {
		t.Errorf("an endpoint's row: %d characters of its URL, %d deliveries, %d failing", len([]rune(e.URL)), e.Deliveries, e.Failing)
	}
	got := renderSize(t, "webhooks", wh)
	t.Logf("webhooks page: %d bytes (bound %d)", got, maxWebhooksPageBytes)
	if got > maxWebhooksPageBytes {
		t.Errorf("webhooks page: %d bytes, over its bound of %d", got, maxWebhooksPageBytes)
	}
}
