// Package hostile holds the hostile GraphQL documents of issue 32 (D1 to D3) and the builders
// of documents past each bound of the GraphQL front, for the tests of the front and of the fake
// over HTTP.
package hostile

import (
	"fmt"
	"strings"
)

// RepeatedWithArguments is D1 of issue 32: one field repeated with different arguments and no
// aliases, which the field-merging rule compares pairwise.
func RepeatedWithArguments(n int) string {
	var b strings.Builder
	b.WriteString("{")
	for i := range n {
		fmt.Fprintf(&b, ` report(id:"a%d"){id}`, i)
	}
	b.WriteString(" }")
	return b.String()
}

// DoublingFragments is D2: a chain of fragments where each spreads the next twice.
func DoublingFragments(levels int) string {
	var b strings.Builder
	b.WriteString("query { ...F0 }")
	for i := range levels {
		fmt.Fprintf(&b, " fragment F%d on Query { ...F%d ...F%d }", i, i+1, i+1)
	}
	fmt.Fprintf(&b, " fragment F%d on Query { user { id } }", levels)
	return b.String()
}

// RepeatedField is D3: one field repeated n times under report(id).
func RepeatedField(n int) string {
	return `{ report(id:"7f1d2c3b-0000-4000-8000-000000000001"){` + strings.Repeat(" id", n) + ` } }`
}

// Document is a hostile document: its name, its text, and a word the front's refusal of it holds.
type Document struct {
	Name, Query, Refusal string
}

// Documents are D1 to D3 at the sizes issue 32 measured, and documents past each other bound.
func Documents() []Document {
	return []Document{
		{"D1 1,000 fields", RepeatedWithArguments(1_000), "comparisons"},
		{"D1 4,000 fields", RepeatedWithArguments(4_000), "tokens"},
		{"D1 10,400 fields", RepeatedWithArguments(10_400), "bytes"},
		{"D2 40 levels", DoublingFragments(40), "fragment spreads"},
		{"D2 80 levels", DoublingFragments(80), "fragment spreads"},
		{"D3 2,000 fields", RepeatedField(2_000), "comparisons"},
		{"D3 10,000 fields", RepeatedField(10_000), "selections"},
		{"D3 100,000 fields", RepeatedField(100_000), "bytes"},
		{"a field list past the token limit", `{ user {` + strings.Repeat(" id", 20_000) + ` } }`, "tokens"},
		{"nesting past the depth", strings.Repeat("{ a ", 40) + strings.Repeat("}", 40), "nests"},
		{"nesting through fragments", DeepFragments(40), "nests"},
		{"many spreads of distinct fragments", DistinctSpreads(200), "comparisons"},
		{"selections past the bound", DistinctFields(6_000), "selections"},
	}
}

// DeepFragments nests n fragments, each selecting the next inside user.
func DeepFragments(n int) string {
	var b strings.Builder
	b.WriteString("query { ...F0 }")
	for i := range n {
		fmt.Fprintf(&b, " fragment F%d on Query { user { ...F%d } }", i, i+1)
	}
	fmt.Fprintf(&b, " fragment F%d on Query { user { id } }", n)
	return b.String()
}

// DistinctSpreads spreads n distinct fragments, each one aliased field.
func DistinctSpreads(n int) string {
	var b strings.Builder
	b.WriteString("query {")
	for i := range n {
		fmt.Fprintf(&b, " ...F%d", i)
	}
	b.WriteString(" }")
	for i := range n {
		fmt.Fprintf(&b, " fragment F%d on Query { f%d: user { id } }", i, i)
	}
	return b.String()
}

// DistinctFields selects n distinct fields under user.
func DistinctFields(n int) string {
	var b strings.Builder
	b.WriteString("{ user {")
	for i := range n {
		fmt.Fprintf(&b, " f%d", i)
	}
	b.WriteString(" } }")
	return b.String()
}
