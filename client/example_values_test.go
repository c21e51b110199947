package client_test

import (
	"fmt"
	"time"

	"github.com/podqa/podqa-go/client"
)

// Read a check's limit from its words; the service writes negative numbers with U+2212.
func ExampleParseLimit() {
	l, err := client.ParseLimit("between −17 and −15 LUFS")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(l.Min, l.Max, l.Unit, l.Contains(-16.2))
	// Output: -17 -15 LUFS true
}

// Estimate the cost of a 37-minute episode before uploading it.
func ExampleEstimateCredits() {
	fmt.Println(client.EstimateCredits(37 * time.Minute))
	fmt.Println(client.EstimateCredits(3 * time.Minute)) // the ten-minute minimum
	// Output:
	// 370
	// 100
}

// A polling watermark in the service's fixed form compares correctly as a string.
func ExampleFormatTime() {
	t := time.Date(2026, 1, 5, 10, 30, 0, 0, time.FixedZone("CET", 3600))
	fmt.Println(client.FormatTime(t))
	// Output: 2026-01-05T09:30:00.000000+00:00
}
