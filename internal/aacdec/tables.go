package aacdec

// sampleRates are the rates of the sampling-frequency indexes 0 to 12 (ISO/IEC 14496-3,
// Table 1.18); 13 and 14 are reserved and 15 means an explicit rate follows.
var sampleRates = [13]int{96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000, 7350}

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

// Scale-factor band offsets of long (1024) and short (128) windows (Tables 4.129 to 4.147), by
// table; bandTables maps a rate index to its tables.
var (
	swbLong96 = []uint16{0, 4, 8, 12, 16, 20, 24, 28, 32, 36, 40, 44, 48, 52, 56, 64, 72, 80, 88, 96,
		108, 120, 132, 144, 156, 172, 188, 212, 240, 276, 320, 384, 448, 512, 576, 640, 704, 768, 832,
		896, 960, 1024}
	swbLong64 = []uint16{0, 4, 8, 12, 16, 20, 24, 28, 32, 36, 40, 44, 48, 52, 56, 64, 72, 80, 88, 100,
		112, 124, 140, 156, 172, 192, 216, 240, 268, 304, 344, 384, 424, 464, 504, 544, 584, 624, 664,
		704, 744, 784, 824, 864, 904, 944, 984, 1024}
	swbLong48 = []uint16{0, 4, 8, 12, 16, 20, 24, 28, 32, 36, 40, 48, 56, 64, 72, 80, 88, 96, 108, 120,
		132, 144, 160, 176, 196, 216, 240, 264, 292, 320, 352, 384, 416, 448, 480, 512, 544, 576, 608,
		640, 672, 704, 736, 768, 800, 832, 864, 896, 928, 1024}
	swbLong32 = []uint16{0, 4, 8, 12, 16, 20, 24, 28, 32, 36, 40, 48, 56, 64, 72, 80, 88, 96, 108, 120,
		132, 144, 160, 176, 196, 216, 240, 264, 292, 320, 352, 384, 416, 448, 480, 512, 544, 576, 608,
		640, 672, 704, 736, 768, 800, 832, 864, 896, 928, 960, 992, 1024}
	swbLong24 = []uint16{0, 4, 8, 12, 16, 20, 24, 28, 32, 36, 40, 44, 52, 60, 68, 76, 84, 92, 100, 108,
		116, 124, 136, 148, 160, 172, 188, 204, 220, 240, 260, 284, 308, 336, 364, 396, 432, 468, 508,
		552, 600, 652, 704, 768, 832, 896, 960, 1024}
	swbLong16 = []uint16{0, 8, 16, 24, 32, 40, 48, 56, 64, 72, 80, 88, 100, 112, 124, 136, 148, 160,
		172, 184, 196, 212, 228, 244, 260, 280, 300, 320, 344, 368, 396, 424, 456, 492, 532, 572, 616,
		664, 716, 772, 832, 896, 960, 1024}
	swbLong8 = []uint16{0, 12, 24, 36, 48, 60, 72, 84, 96, 108, 120, 132, 144, 156, 172, 188, 204, 220,
		236, 252, 268, 288, 308, 328, 348, 372, 396, 420, 448, 476, 508, 544, 580, 620, 664, 712, 764,
		820, 880, 944, 1024}

	swbShort96 = []uint16{0, 4, 8, 12, 16, 20, 24, 32, 40, 48, 64, 92, 128}
	swbShort48 = []uint16{0, 4, 8, 12, 16, 20, 28, 36, 44, 56, 68, 80, 96, 112, 128}
	swbShort24 = []uint16{0, 4, 8, 12, 16, 20, 24, 28, 36, 44, 52, 64, 76, 92, 108, 128}
	swbShort16 = []uint16{0, 4, 8, 12, 16, 20, 24, 28, 32, 40, 48, 60, 72, 88, 108, 128}
	swbShort8  = []uint16{0, 4, 8, 12, 16, 20, 24, 28, 36, 44, 52, 60, 72, 88, 108, 128}
)

// bandTable is what a rate index decides: band offsets and the highest band TNS may filter.
type bandTable struct {
	long, short             []uint16
	tnsMaxLong, tnsMaxShort int // Table 4.156, AAC LC
}

var bandTables = [13]bandTable{
	{swbLong96, swbShort96, 31, 9},
	{swbLong96, swbShort96, 31, 9},
	{swbLong64, swbShort96, 34, 10},
	{swbLong48, swbShort48, 40, 14},
	{swbLong48, swbShort48, 42, 14},
	{swbLong32, swbShort48, 51, 14},
	{swbLong24, swbShort24, 46, 14},
	{swbLong24, swbShort24, 46, 14},
	{swbLong16, swbShort16, 42, 14},
	{swbLong16, swbShort16, 42, 14},
	{swbLong16, swbShort16, 42, 14},
	{swbLong8, swbShort8, 39, 14},
	{swbLong8, swbShort8, 39, 14},
}
