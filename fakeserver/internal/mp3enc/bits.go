package mp3enc

// bitWriter appends bits, most significant first.
type bitWriter struct {
	buf  []byte
	acc  uint64
	nacc int
}

func (w *bitWriter) reset() { w.buf, w.acc, w.nacc = w.buf[:0], 0, 0 }

// put appends the n low bits of v (n at most 32).
func (w *bitWriter) put(v, n int) {
	if n == 0 {
		return
	}
	w.acc = w.acc<<uint(n) | uint64(v)&(1<<uint(n)-1)
	w.nacc += n
	for w.nacc >= 8 {
		w.nacc -= 8
		w.buf = append(w.buf, byte(w.acc>>uint(w.nacc)))
	}
}

// bytes returns what was written, the last byte padded with zero bits.
func (w *bitWriter) bytes() []byte {
	if w.nacc > 0 {
		w.buf = append(w.buf, byte(w.acc<<uint(8-w.nacc)))
		w.nacc = 0
	}
	return w.buf
}
