package vorbisdec

import "fmt"

// residue is a residue configuration of the setup header (specification section 8).
type residue struct {
	kind          int // 0, 1 or 2
	begin, end    int
	partitionSize int
	classes       int
	classBook     int
	books         [][8]int // per class and pass, the book or -1
	// classifs is scratch for the classification of each partition of each vector decoded,
	// sized at setup for the longest block.
	classifs [][]uint8
	// one and noSkip hold the single interleaved vector of a type 2 residue.
	one    [1][]float32
	noSkip [1]bool
}

func readResidue(b *bitReader, books []*codebook) (*residue, error) {
	r := &residue{kind: int(b.read(16))}
	if r.kind > 2 {
		return nil, fmt.Errorf("%w: residue type %d", ErrCorrupt, r.kind)
	}
	r.begin = int(b.read(24))
	r.end = int(b.read(24))
	r.partitionSize = int(b.read(24)) + 1
	r.classes = int(b.read(6)) + 1
	r.classBook = int(b.read(8))
	if r.classBook >= len(books) || books[r.classBook].dims < 1 {
		return nil, fmt.Errorf("%w: residue classification book %d", ErrCorrupt, r.classBook)
	}
	cascade := make([]uint32, r.classes)
	for i := range cascade {
		low := b.read(3)
		var high uint32
		if b.flag() {
			high = b.read(5)
		}
		cascade[i] = high<<3 | low
	}
	r.books = make([][8]int, r.classes)
	for i := range r.books {
		for j := range 8 {
			r.books[i][j] = -1
			if cascade[i]&(1<<j) == 0 {
				continue
			}
			book := int(b.read(8))
			if book >= len(books) || books[book].vq == nil {
				return nil, fmt.Errorf("%w: residue book %d has no vector lookup", ErrCorrupt, book)
			}
			r.books[i][j] = book
		}
	}
	if b.over {
		return nil, fmt.Errorf("%w: residue header cut short", ErrCorrupt)
	}
	return r, nil
}

// scratchSize is the classification scratch the residue needs for vectors of up to n values,
// ch at a time: rows of cols values.
func (r *residue) scratchSize(books []*codebook, ch, n int) (rows, cols int) {
	if r.kind == 2 {
		n *= ch
		ch = 1
	}
	return ch, min(r.end, n)/r.partitionSize + books[r.classBook].dims
}

// decode reads the residue vectors of the channels of one submap into vecs (each of n values,
// zero on entry); skip marks the channels whose floor is unused. interleaved is scratch of
// n×len(vecs) values for type 2.
func (r *residue) decode(b *bitReader, books []*codebook, vecs [][]float32, skip []bool, interleaved []float32) {
	if r.kind != 2 {
		r.decodeVectors(b, books, vecs, skip)
		return
	}
	any := false
	for _, s := range skip {
		any = any || !s
	}
	if !any {
		return
	}
	n := len(vecs[0])
	ch := len(vecs)
	all := interleaved[:n*ch]
	clear(all)
	r.one[0] = all
	r.decodeVectors(b, books, r.one[:], r.noSkip[:])
	if ch == 2 {
		l, rt := vecs[0][:n], vecs[1][:n]
		for i := range n {
			l[i] = all[2*i]
			rt[i] = all[2*i+1]
		}
		return
	}
	for j, v := range vecs {
		for i := range v {
			v[i] = all[i*ch+j]
		}
	}
}

// decodeVectors is the decode of residue types 0 and 1 (and 2 on its interleaved vector).
func (r *residue) decodeVectors(b *bitReader, books []*codebook, vecs [][]float32, skip []bool) {
	size := len(vecs[0])
	begin := min(r.begin, size)
	end := min(r.end, size)
	if end <= begin {
		return
	}
	cb := books[r.classBook]
	words := cb.dims
	parts := (end - begin) / r.partitionSize
	if parts == 0 {
		return
	}
	for pass := range 8 {
		for p := 0; p < parts; {
			if pass == 0 {
				for j := range vecs {
					if skip[j] {
						continue
					}
					t := cb.decode(b)
					if t < 0 {
						return
					}
					cl := r.classifs[j][p : p+words]
					for i := words - 1; i >= 0; i-- {
						cl[i] = uint8(t % r.classes)
						t /= r.classes
					}
				}
			}
			for i := 0; i < words && p < parts; i++ {
				for j, v := range vecs {
					if skip[j] {
						continue
					}
					book := r.books[r.classifs[j][p]][pass]
					if book < 0 {
						continue
					}
					off := begin + p*r.partitionSize
					if !r.partition(b, books[book], v[off:off+r.partitionSize]) {
						return
					}
				}
				p++
			}
		}
	}
}

// partition adds one partition's vectors to v; it returns false at the end of the packet.
// A vector that runs past the partition's end is cut there, as libvorbis does.
func (r *residue) partition(b *bitReader, c *codebook, v []float32) bool {
	dims := c.dims
	if r.kind == 0 {
		step := len(v) / dims
		for i := range step {
			e := c.decode(b)
			if e < 0 {
				return false
			}
			for j, x := range c.vector(e) {
				v[i+j*step] += x
			}
		}
		return true
	}
	if dims == 2 && len(v)%2 == 0 && c.fast != nil {
		// The codeword lookup of decode, inlined for the common case.
		fast, mask := c.fast, c.fastMask
		for i := 0; i < len(v); i += 2 {
			if b.n < 32 {
				b.refill()
			}
			var e int
			if x := fast[b.acc&mask]; x != 0 && uint(x&63) <= b.n {
				b.acc >>= x & 63
				b.n -= uint(x & 63)
				e = int(x >> 6)
			} else if e = c.decode(b); e < 0 {
				return false
			}
			vq := c.vq[2*e : 2*e+2]
			v[i] += vq[0]
			v[i+1] += vq[1]
		}
		return true
	}
	if len(v)%dims == 0 && c.fast != nil {
		// The same for other dimensions: the partition holds whole vectors.
		fast, mask := c.fast, c.fastMask
		for i := 0; i < len(v); i += dims {
			if b.n < 32 {
				b.refill()
			}
			var e int
			if x := fast[b.acc&mask]; x != 0 && uint(x&63) <= b.n {
				b.acc >>= x & 63
				b.n -= uint(x & 63)
				e = int(x >> 6)
			} else if e = c.decode(b); e < 0 {
				return false
			}
			dst := v[i : i+dims]
			for k, x := range c.vq[dims*e : dims*e+dims] {
				dst[k] += x
			}
		}
		return true
	}
	for i := 0; i < len(v); {
		e := c.decode(b)
		if e < 0 {
			return false
		}
		for _, x := range c.vector(e) {
			if i >= len(v) {
				break
			}
			v[i] += x
			i++
		}
	}
	return true
}
