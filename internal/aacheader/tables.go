package aacheader

// sampleRates are the rates of the sampling-frequency indexes 0 to 12 (ISO/IEC 14496-3,
// Table 1.18); 13 and 14 are reserved and 15 means an explicit rate follows.
var sampleRates = [13]int{96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000, 7350}

// SampleRates returns the rates of the sampling-frequency indexes 0 to 12.
func SampleRates() [13]int { return sampleRates }

// rateIndex maps any sampling rate to the index whose tables it uses (Table 4.82's ranges), for
// an AudioSpecificConfig that states its rate explicitly.
func rateIndex(rate int) int {
	bounds := [12]int{92017, 75132, 55426, 46009, 37566, 27713, 23004, 18783, 13856, 11502, 9391, 0}
	for i, b := range bounds {
		if rate >= b {
			return i
		}
	}
	return 11
}

// FrameSamples is the number of samples per channel an AAC LC frame decodes to.
const FrameSamples = 1024
