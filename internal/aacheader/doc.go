// Package aacheader reads the headers of AAC streams, an MP4 esds box's AudioSpecificConfig and
// the ADTS frame header, without decoding any audio: what the SDK's upload prober needs to read
// a duration, and what the fake's AAC decoder starts from. It imports nothing of the repository.
package aacheader
