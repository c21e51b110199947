package client

import (
	"fmt"
	"iter"
	"math"
)

// Page is one page of a listing. There is no total: HasMore is true only when another row
// exists past this page, so a short page is the last.
type Page[T any] struct {
	Items []T `json:"items"`
	// Limit is the page size the service applied.
	Limit int `json:"limit"`
	// Offset is where this page starts.
	Offset  int  `json:"offset"`
	HasMore bool `json:"has_more"`
}

// NextOffset is the offset of the page after this one.
func (p Page[T]) NextOffset() int { return p.Offset + len(p.Items) }

// ListParams pages a listing. Zero values take the service's defaults (50 rows from offset 0).
type ListParams struct {
	// Limit is the page size, 1 to 100.
	Limit int
	// Offset is the number of rows to skip. Offsets window a live listing and are not a stable
	// cursor; the All* iterators cope with rows moving between pages.
	Offset int
}

// iteratorPageSize is the page size of the All* iterators when none is given: the largest, to
// spend as few requests of the per-minute budget as possible.
const iteratorPageSize = 100

// int32Arg checks that n fits the API's int32 parameters; zero means "not given".
func int32Arg(name string, n int) (*int32, error) {
	if n == 0 {
		return nil, nil
	}
	if n < 0 || n > math.MaxInt32 {
		return nil, fmt.Errorf("%w: %s %d out of range", ErrInvalidArgument, name, n)
	}
	v := int32(n)
	return &v, nil
}

// paginate walks a listing from offset, page by page, until a page says there is no more. It
// skips rows already yielded: offsets window a live listing, so a row pushed down by a new one
// reappears at the top of the next page. A row moved up past the window by a deletion can be
// missed; no offset walk can prevent that.
func paginate[T any](offset int, fetch func(offset int) (Page[T], error), id func(*T) string) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		seen := make(map[string]struct{})
		for {
			page, err := fetch(offset)
			if err != nil {
				var zero T
				yield(zero, err)
				return
			}
			for i := range page.Items {
				item := &page.Items[i]
				k := id(item)
				if _, dup := seen[k]; dup {
					continue
				}
				seen[k] = struct{}{}
				if !yield(*item, nil) {
					return
				}
			}
			if !page.HasMore || len(page.Items) == 0 {
				return
			}
			offset += len(page.Items)
		}
	}
}
