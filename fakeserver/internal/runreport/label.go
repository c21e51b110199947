package runreport

import (
	"strings"
	"time"
)

// MaxLabel bounds a label's length in bytes, so that a file name with it stays far under the
// 255 bytes file systems allow.
const MaxLabel = 100

// Label turns a test's name (t.Name(): "TestUpload/too_large#01") into a part of a file name:
// each "/" becomes "-", every byte but ASCII letters, digits, ".", "_" and "-" becomes "_", and
// it is cut at MaxLabel bytes. Different names may share a label; the run id's random part keeps
// their files apart.
func Label(name string) string {
	var b strings.Builder
	for i := 0; i < len(name) && b.Len() < MaxLabel; i++ {
		switch c := name[i]; {
		case c == '/':
			b.WriteByte('-')
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '.', c == '_', c == '-':
			b.WriteByte(c)
		default:
			b.WriteByte('_')
		}
	}
	return b.String()
}

// NewLabelledRunID is NewRunID with Label(name) in front, so that the files of a test's run
// (podqa-fake-report-TestUpload-too_large-<start>-<random>.json) name the test; without a name it
// is NewRunID.
func NewLabelledRunID(name string, started time.Time) string {
	id := NewRunID(started)
	if label := Label(name); label != "" {
		id = label + "-" + id
	}
	return id
}
