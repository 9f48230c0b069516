// Package flood writes the standard terminal-throughput input of the
// benchmarks: lines of 12 words mixing plain words, ANSI colour, CJK and
// emoji, drawn by a fixed-seed generator, so every run on every machine
// measures the same bytes. `benchtool flood OUT [MB]` writes it to a file.
package flood

import (
	"bufio"
	"io"
)

// Words are the words a flood line is made of: plain words, SGR colour,
// CJK, a Greek letter and an emoji, as a coding agent's output mixes them.
// They are the words of the project's first flood generator, so figures
// measured on either input are alike.
var Words = []string{
	"alpha", "beta", "gamma", "delta", "\x1b[31mred\x1b[0m", "\x1b[1;32mbold-green\x1b[0m",
	"func", "return", "{}", "λ", "日本語", "emoji🙂",
}

// WordsPerLine is how many words each line holds, joined by spaces. The
// widest line is 131 columns, so no line wraps in a 160-column pane.
const WordsPerLine = 12

// seed is the fixed seed: every run writes the same bytes.
const seed = 1

// splitMix64 is the SplitMix64 generator. It is written out here rather
// than taken from math/rand so the flood stays byte-for-byte the same on
// every Go release.
type splitMix64 struct{ state uint64 }

// next returns the next 64 random bits.
func (s *splitMix64) next() uint64 {
	s.state += 0x9e3779b97f4a7c15
	z := s.state
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// Write writes whole flood lines ("\n"-terminated) to w until at least size
// bytes are written, and returns the number written. The bytes depend only
// on size, and a shorter flood is a prefix of a longer one.
func Write(w io.Writer, size int64) (int64, error) {
	rng := splitMix64{state: seed}
	bw := bufio.NewWriterSize(w, 1<<20)
	var n int64
	line := make([]byte, 0, 256)
	for n < size {
		line = line[:0]
		for i := range WordsPerLine {
			if i > 0 {
				line = append(line, ' ')
			}
			line = append(line, Words[rng.next()%uint64(len(Words))]...)
		}
		line = append(line, '\n')
		m, err := bw.Write(line)
		n += int64(m)
		if err != nil {
			return n, err
		}
	}
	return n, bw.Flush()
}
