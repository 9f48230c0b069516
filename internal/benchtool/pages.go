package main

import (
	"bufio"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
)

// pageSize is the size of a page the kernel's pagemap describes.
const pageSize = 4096

// Bits of a /proc/PID/pagemap entry (see the kernel's pagemap docs).
const (
	pmPresent = 1 << 63
	pmFile    = 1 << 61 // file page or shared anon
)

// pageTotal is what pages counts for one package or section: the bytes of
// resident pages, split between the symbols that share each page, those
// of them still backed by the binary's file and those copied to anonymous
// memory (a written .data page).
type pageTotal struct {
	name       string
	file, anon int64
}

// pages is `benchtool pages PID BIN`: it reads which of the pages the
// process PID maps from the binary BIN are resident (the present bit of
// /proc/PID/pagemap) and prints their bytes by package and by ELF section.
// A resident page's 4,096 bytes are split between the symbols on it by
// the bytes each covers; bytes no symbol covers go to "(section NAME)".
func pages(pid int, bin string, w io.Writer) error {
	f, err := elf.Open(bin)
	if err != nil {
		return fmt.Errorf("pages: open binary: %w", err)
	}
	defer f.Close()
	syms, err := f.Symbols()
	if err != nil {
		return fmt.Errorf("pages: read symbols of %s: %w", bin, err)
	}
	sort.Slice(syms, func(i, j int) bool { return syms[i].Value < syms[j].Value })
	var secs []*elf.Section
	for _, s := range f.Sections {
		if s.Addr != 0 && s.Flags&elf.SHF_ALLOC != 0 {
			secs = append(secs, s)
		}
	}
	res, err := residentPages(pid, secs)
	if err != nil {
		return err
	}
	byPkg := map[string]*pageTotal{}
	bySec := map[string]*pageTotal{}
	add := func(m map[string]*pageTotal, name string, n int64, file bool) {
		t := m[name]
		if t == nil {
			t = &pageTotal{name: name}
			m[name] = t
		}
		if file {
			t.file += n
		} else {
			t.anon += n
		}
	}
	for _, p := range res {
		lo, hi := p.addr, p.addr+pageSize
		for _, s := range secs {
			slo, shi := s.Addr, s.Addr+s.Size
			if shi <= lo || slo >= hi {
				continue
			}
			a, b := max(lo, slo), min(hi, shi)
			add(bySec, s.Name, int64(b-a), p.file)
			covered := int64(0)
			i := sort.Search(len(syms), func(i int) bool { return syms[i].Value+syms[i].Size > a })
			for ; i < len(syms) && syms[i].Value < b; i++ {
				y := syms[i]
				if y.Size == 0 || y.Section >= elf.SectionIndex(len(f.Sections)) || f.Sections[y.Section] != s {
					continue
				}
				n := int64(min(b, y.Value+y.Size) - max(a, y.Value))
				if n > 0 {
					add(byPkg, symPackage(y.Name), n, p.file)
					covered += n
				}
			}
			if rest := int64(b-a) - covered; rest > 0 {
				add(byPkg, "(section "+s.Name+")", rest, p.file)
			}
		}
	}
	fmt.Fprintf(w, "pages pid=%d binary=%s resident_pages=%d resident_bytes=%d\n", pid, bin, len(res), int64(len(res))*pageSize)
	printTotals(w, "section", bySec)
	printTotals(w, "package", byPkg)
	return nil
}

// printTotals prints the totals largest first, with their sum.
func printTotals(w io.Writer, kind string, m map[string]*pageTotal) {
	ts := make([]*pageTotal, 0, len(m))
	var file, anon int64
	for _, t := range m {
		ts = append(ts, t)
		file += t.file
		anon += t.anon
	}
	sort.Slice(ts, func(i, j int) bool {
		a, b := ts[i].file+ts[i].anon, ts[j].file+ts[j].anon
		if a != b {
			return a > b
		}
		return ts[i].name < ts[j].name
	})
	fmt.Fprintf(w, "%-8s %10s %10s  %s\n", kind, "file_kB", "anon_kB", "name")
	for _, t := range ts {
		fmt.Fprintf(w, "%-8s %10.1f %10.1f  %s\n", kind, float64(t.file)/1024, float64(t.anon)/1024, t.name)
	}
	fmt.Fprintf(w, "%-8s %10.1f %10.1f  (total)\n", kind, float64(file)/1024, float64(anon)/1024)
}

// symPackage is the package a Go symbol belongs to: the text before the
// first dot after the last slash, with generic instantiations and the
// linker's prefixes (type:, go:) kept apart.
func symPackage(name string) string {
	for _, p := range []string{"type:", "go:", "gclocals·", "runtime.gcbits."} {
		if strings.HasPrefix(name, p) {
			return "(" + strings.TrimSuffix(p, ":") + ")"
		}
	}
	if i := strings.IndexByte(name, '['); i >= 0 {
		name = name[:i]
	}
	s := strings.LastIndexByte(name, '/')
	if d := strings.IndexByte(name[s+1:], '.'); d >= 0 {
		return name[:s+1+d]
	}
	return name
}

// residentPage is a page of the binary's image that is in memory.
type residentPage struct {
	addr uint64
	file bool // still the file's page, not an anonymous copy
}

// residentPages returns the resident pages of PID's mappings that overlap
// the sections secs, read from /proc/PID/maps and /proc/PID/pagemap.
func residentPages(pid int, secs []*elf.Section) ([]residentPage, error) {
	proc := "/proc/" + strconv.Itoa(pid)
	maps, err := os.Open(proc + "/maps")
	if err != nil {
		return nil, fmt.Errorf("pages: read maps: %w", err)
	}
	defer maps.Close()
	pm, err := os.Open(proc + "/pagemap")
	if err != nil {
		return nil, fmt.Errorf("pages: open pagemap: %w", err)
	}
	defer pm.Close()
	lo, hi := ^uint64(0), uint64(0)
	for _, s := range secs {
		lo, hi = min(lo, s.Addr), max(hi, s.Addr+s.Size)
	}
	var out []residentPage
	sc := bufio.NewScanner(maps)
	for sc.Scan() {
		rng, _, _ := strings.Cut(sc.Text(), " ")
		a, b, ok := strings.Cut(rng, "-")
		if !ok {
			continue
		}
		start, err1 := strconv.ParseUint(a, 16, 64)
		end, err2 := strconv.ParseUint(b, 16, 64)
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("pages: maps line %q not understood", sc.Text())
		}
		start, end = max(start, lo&^(pageSize-1)), min(end, hi)
		if start >= end {
			continue
		}
		n := (end - start + pageSize - 1) / pageSize
		buf := make([]byte, 8*n)
		if _, err := pm.ReadAt(buf, int64(start/pageSize*8)); err != nil {
			return nil, fmt.Errorf("pages: read pagemap at %#x: %w", start, err)
		}
		for i := range n {
			e := binary.LittleEndian.Uint64(buf[8*i:])
			if e&pmPresent != 0 {
				out = append(out, residentPage{addr: start + i*pageSize, file: e&pmFile != 0})
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("pages: read maps: %w", err)
	}
	return out, nil
}
