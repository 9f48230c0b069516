package bundle

import (
	"archive/tar"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/acpmux/acpmux-tui/sessions"
)

// copyBufferBytes is the one buffer a member streams through, writing or
// unpacking: a member is never held whole.
const copyBufferBytes = 32 << 10

// Writer writes one bundle: NewWriter writes the manifest, Add each member
// it lists, in order, and Close ends the archive.
type Writer struct {
	gz      *gzip.Writer
	tw      *tar.Writer
	members []string
	next    int
	total   int64
	mtime   time.Time
	buf     []byte
	err     error
}

// NewWriter starts a bundle on w and writes its manifest member. m.Members
// must list, in order, what the caller will Add: chat.toml first, then the
// conversation files. A zero m.Format is written as FormatVersion. The
// bundle is refused here if Unpack with DefaultLimits would refuse its
// manifest.
func NewWriter(w io.Writer, m Manifest) (*Writer, error) {
	if m.Format == 0 {
		m.Format = FormatVersion
	}
	if m.Format != FormatVersion {
		return nil, fmt.Errorf("write bundle: format %d is not the one this acpmux-tui writes (%d)", m.Format, FormatVersion)
	}
	if err := checkManifest(&m, DefaultLimits.Members-1); err != nil {
		return nil, fmt.Errorf("write bundle: %w", err)
	}
	data, err := encodeManifest(&m)
	if err != nil {
		return nil, fmt.Errorf("write bundle: %w", err)
	}
	// BestSpeed: on a 50 MB session log it writes 7 times faster than the
	// default level for a bundle 40% larger (BenchmarkWrite50MB), and an
	// export waits on it, often over ssh.
	gz, err := gzip.NewWriterLevel(w, gzip.BestSpeed)
	if err != nil {
		return nil, fmt.Errorf("write bundle: start gzip: %w", err)
	}
	bw := &Writer{
		gz:      gz,
		tw:      tar.NewWriter(gz),
		members: append([]string(nil), m.Members...),
		mtime:   headerTime(m.Exported),
	}
	if err := bw.header(ManifestName, int64(len(data))); err != nil {
		return nil, err
	}
	if _, err := bw.tw.Write(data); err != nil {
		return nil, fmt.Errorf("write bundle member %q: %w", ManifestName, err)
	}
	return bw, nil
}

// headerTime is t as a member's modification time: whole seconds, within
// what a USTAR header holds (1970 to 2242; a time outside is clamped).
func headerTime(t time.Time) time.Time {
	const maxUSTARSeconds = 1<<33 - 1
	switch s := t.Unix(); {
	case t.IsZero() || s < 0:
		return time.Unix(0, 0)
	case s > maxUSTARSeconds:
		return time.Unix(maxUSTARSeconds, 0)
	}
	return t.UTC().Truncate(time.Second)
}

// header writes the tar header of a regular member.
func (w *Writer) header(name string, size int64) error {
	hdr := &tar.Header{
		Typeflag: tar.TypeReg,
		Name:     name,
		Size:     size,
		Mode:     0o600,
		ModTime:  w.mtime,
		Format:   tar.FormatUSTAR,
	}
	if err := w.tw.WriteHeader(hdr); err != nil {
		return fmt.Errorf("write bundle member %q: header: %w", name, err)
	}
	return nil
}

// Add writes the next member the manifest lists: exactly size bytes read
// from r, streamed. If r ends before size bytes, Add fails and reads no
// more; it never reads past size bytes. After a failed Add the bundle is
// broken and every later call fails.
func (w *Writer) Add(name string, size int64, r io.Reader) error {
	if w.err != nil {
		return w.err
	}
	if err := w.add(name, size, r); err != nil {
		w.err = err
		return err
	}
	return nil
}

func (w *Writer) add(name string, size int64, r io.Reader) error {
	if w.next >= len(w.members) {
		return fmt.Errorf("write bundle member %q: the manifest lists no more members", name)
	}
	if want := w.members[w.next]; name != want {
		return fmt.Errorf("write bundle member %q: the manifest lists %q next", name, want)
	}
	if size < 0 {
		return fmt.Errorf("write bundle member %q: negative size %d", name, size)
	}
	if name == ChatName && size > sessions.MaxChatFileBytes {
		return fmt.Errorf("write bundle member %q: %d bytes, over the chat file limit of %d", name, size, sessions.MaxChatFileBytes)
	}
	if size > DefaultLimits.MemberBytes {
		return fmt.Errorf("write bundle member %q: %d bytes, over the %d a bundle member may hold", name, size, DefaultLimits.MemberBytes)
	}
	if w.total+size > DefaultLimits.TotalBytes {
		return fmt.Errorf("write bundle member %q: the bundle would unpack to %d bytes, over the limit of %d", name, w.total+size, DefaultLimits.TotalBytes)
	}
	if err := w.header(name, size); err != nil {
		return err
	}
	if w.buf == nil {
		w.buf = make([]byte, copyBufferBytes)
	}
	// The struct hides tar.Writer's ReadFrom, which would copy through a
	// buffer of its own on every call.
	n, err := io.CopyBuffer(struct{ io.Writer }{w.tw}, io.LimitReader(r, size), w.buf)
	if err != nil {
		return fmt.Errorf("write bundle member %q: after %d of %d bytes: %w", name, n, size, err)
	}
	if n < size {
		return fmt.Errorf("write bundle member %q: its source ended after %d of %d bytes", name, n, size)
	}
	w.next++
	w.total += size
	return nil
}

// Close checks that every member the manifest lists was added, then ends
// the tar archive and the gzip stream. It does not close the underlying
// writer.
func (w *Writer) Close() error {
	if w.err != nil {
		return w.err
	}
	if w.next < len(w.members) {
		w.err = fmt.Errorf("write bundle: member %q is listed in the manifest but was not added", w.members[w.next])
		return w.err
	}
	w.err = errors.New("write bundle: already closed")
	if err := w.tw.Close(); err != nil {
		return fmt.Errorf("write bundle: end tar: %w", err)
	}
	if err := w.gz.Close(); err != nil {
		return fmt.Errorf("write bundle: end gzip: %w", err)
	}
	return nil
}
