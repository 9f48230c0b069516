package bundle

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// The crafted bundles of these tests are built here with archive/tar
// directly, never with Writer, so they can break every rule Writer keeps.

// member is one tar member of a crafted bundle: a header and its data, or
// raw bytes (already block-aligned) for what archive/tar will not write.
type member struct {
	hdr  tar.Header
	data []byte
	raw  []byte
}

// regular is a regular-file member.
func regular(name string, data []byte) member {
	return member{hdr: tar.Header{Name: name, Typeflag: tar.TypeReg, Mode: 0o600, Size: int64(len(data))}, data: data}
}

// special is a member of another tar type, with no data.
func special(name string, typeflag byte, linkname string) member {
	return member{hdr: tar.Header{Name: name, Typeflag: typeflag, Linkname: linkname, Mode: 0o600, Devmajor: 1, Devminor: 3}}
}

// testChat is a chat file as the store writes it.
var testChat = []byte(`version = 1
id = "k3x9q2"
name = "fix the parser"
harness = "claude"
cwd = "/home/me/src/app"
additional_directories = ["/home/me/src/lib"]
created = 2026-11-30T22:00:00Z
agent_session_id = "0b5e7c1e-5d2a-4c8e-9a51-3f2d6c7b8a90"
`)

// testManifest is a valid manifest listing chat.toml and then conv, the
// conversation members.
func testManifest(conv ...string) Manifest {
	return Manifest{
		Format:       FormatVersion,
		Producer:     "acpmux-tui test",
		Host:         "box",
		Exported:     time.Date(2026, 12, 1, 10, 30, 0, 0, time.UTC),
		ChatID:       "k3x9q2",
		Harness:      "claude",
		Conversation: KindExact,
		Source:       SourceClaudeSession,
		Members:      append([]string{ChatName}, conv...),
	}
}

// manifestMember is m as the manifest.json member.
func manifestMember(t testing.TB, m any) member {
	t.Helper()
	data, err := json.Marshal(m)
	if err != nil {
		t.Fatalf("encode manifest: %v", err)
	}
	return regular(ManifestName, data)
}

// craftTar is members as a tar archive, not compressed.
func craftTar(t testing.TB, members ...member) []byte {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, m := range members {
		if m.raw != nil {
			if err := tw.Flush(); err != nil {
				t.Fatalf("flush tar: %v", err)
			}
			buf.Write(m.raw)
			continue
		}
		hdr := m.hdr
		if err := tw.WriteHeader(&hdr); err != nil {
			t.Fatalf("write tar header %q: %v", hdr.Name, err)
		}
		if _, err := tw.Write(m.data); err != nil {
			t.Fatalf("write tar member %q: %v", hdr.Name, err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatalf("close tar: %v", err)
	}
	return buf.Bytes()
}

// gzipped is data as a gzip stream.
func gzipped(t testing.TB, data []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	if _, err := gz.Write(data); err != nil {
		t.Fatalf("gzip: %v", err)
	}
	if err := gz.Close(); err != nil {
		t.Fatalf("gzip: %v", err)
	}
	return buf.Bytes()
}

// craft is members as a bundle: a gzipped tar.
func craft(t testing.TB, members ...member) []byte {
	t.Helper()
	return gzipped(t, craftTar(t, members...))
}

// rawHeader is a hand-made USTAR header block of any typeflag followed by
// data padded to a block: what archive/tar refuses to write (PAX records
// with a NUL byte in a path, a GNU sparse file).
func rawHeader(t testing.TB, name string, typeflag byte, data []byte) []byte {
	t.Helper()
	format := tar.FormatUSTAR
	if typeflag == tar.TypeGNUSparse {
		format = tar.FormatGNU
	}
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	if err := tw.WriteHeader(&tar.Header{Name: name, Typeflag: tar.TypeReg, Size: int64(len(data)), Mode: 0o600, Format: format}); err != nil {
		t.Fatalf("raw tar header %q: %v", name, err)
	}
	blk := buf.Bytes()[:512]
	blk[156] = typeflag
	copy(blk[148:156], "        ")
	sum := 0
	for _, b := range blk {
		sum += int(b)
	}
	copy(blk[148:156], fmt.Sprintf("%06o\x00 ", sum))
	out := append([]byte(nil), blk...)
	out = append(out, data...)
	if pad := len(data) % 512; pad != 0 {
		out = append(out, make([]byte, 512-pad)...)
	}
	return out
}

// paxRecord is one PAX extended-header record, its length counted in.
func paxRecord(key, value string) string {
	body := " " + key + "=" + value + "\n"
	n := len(body) + 1
	for len(fmt.Sprint(n))+len(body) != n {
		n = len(fmt.Sprint(n)) + len(body)
	}
	return fmt.Sprint(n) + body
}

// mustBeEmpty fails unless dir holds nothing.
func mustBeEmpty(t testing.TB, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatalf("read staging folder: %v", err)
	}
	for _, e := range entries {
		t.Errorf("after a refusal the staging folder still holds %s", filepath.Join(dir, e.Name()))
	}
}

// refusal unpacks data into a fresh folder, fails unless Unpack refuses it
// with an *Error, checks the folder was left empty, and returns the error.
func refusal(t testing.TB, data []byte, lim Limits) *Error {
	t.Helper()
	return refusalFrom(t, bytes.NewReader(data), lim)
}

func refusalFrom(t testing.TB, r io.Reader, lim Limits) *Error {
	t.Helper()
	dir := t.TempDir()
	u, err := Unpack(r, dir, lim)
	if err == nil {
		t.Fatalf("Unpack accepted the bundle: %+v", u.Manifest)
	}
	var be *Error
	if !errors.As(err, &be) {
		t.Fatalf("Unpack refused with %T %v, want a *bundle.Error", err, err)
	}
	mustBeEmpty(t, dir)
	return be
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// zeros reads as an endless run of zero bytes.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}
