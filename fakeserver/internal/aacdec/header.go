package aacdec

import "github.com/podqa/podqa-go/internal/aacheader"

// The headers are read by the SDK's leaf package aacheader (so that the SDK's prober links no
// decoder); the decoder starts from what it reads.

// Config is what a stream's AudioSpecificConfig or ADTS header says of it.
type Config = aacheader.Config

// ADTSHeader is the fixed and variable header of an ADTS frame (ISO/IEC 13818-7 6.2).
type ADTSHeader = aacheader.ADTSHeader

// ADTSHeaderSize is the number of bytes ParseADTSHeader needs.
const ADTSHeaderSize = aacheader.ADTSHeaderSize

// The audio object types the decoder names.
const (
	objectLC  = aacheader.ObjectLC
	objectSBR = aacheader.ObjectSBR
)

// ParseConfig reads an AudioSpecificConfig (see aacheader.ParseConfig).
func ParseConfig(asc []byte) (Config, error) { return aacheader.ParseConfig(asc) }

// ParseADTSHeader reads an ADTS header from the start of b (see aacheader.ParseADTSHeader).
func ParseADTSHeader(b []byte) (ADTSHeader, error) { return aacheader.ParseADTSHeader(b) }

// IsADTSSync reports whether b starts with an ADTS sync word.
func IsADTSSync(b []byte) bool { return aacheader.IsADTSSync(b) }

// Profile names an audio object type as ffprobe's profile field does ("LC", "HE-AAC", …).
func Profile(objectType int) string { return aacheader.Profile(objectType) }
