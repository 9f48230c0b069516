package bundle

import (
	"archive/tar"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/acpmux/acpmux-tui/sessions"
)

// maxTrailingBytes is how much may follow the end of the tar archive inside
// the gzip stream (tar tools pad the archive to a 10240-byte record); it is
// read to the end, so a cut in the gzip trailer is seen.
const maxTrailingBytes = 64 << 10

// memberOverheadBytes is the most tar data one member may bring beside its
// own bytes: its header block, padding, and the extended headers before it
// (archive/tar reads a PAX or GNU long-name header of at most 1 MiB each).
const memberOverheadBytes = 2<<20 + 4*512

// errTarTooLong stops a tar stream longer than its members' limits allow,
// such as one endless run of extended headers that archive/tar would read
// through looking for a member.
var errTarTooLong = errors.New("tar stream longer than its limits allow")

// streamCap is the most decompressed tar data Unpack reads under lim.
func streamCap(lim Limits) int64 {
	return lim.TotalBytes + int64(lim.Members+1)*memberOverheadBytes + maxTrailingBytes
}

// cappedReader reads r until n bytes were read, then fails with
// errTarTooLong.
type cappedReader struct {
	r io.Reader
	n int64
}

func (c *cappedReader) Read(p []byte) (int, error) {
	if c.n <= 0 {
		return 0, errTarTooLong
	}
	if int64(len(p)) > c.n {
		p = p[:c.n]
	}
	n, err := c.r.Read(p)
	c.n -= int64(n)
	return n, err
}

// Unpacked is a bundle Unpack accepted.
type Unpacked struct {
	// Manifest is the bundle's manifest, checked.
	Manifest Manifest
	// Chat is chat.toml's bytes, as exported.
	Chat []byte
	// Dir is the staging folder the conversation files were unpacked into.
	Dir string
	// Conversation names the conversation files, relative to Dir
	// ("conversation/session.jsonl"), in the bundle's order.
	Conversation []string
}

// Unpack reads a bundle from r and unpacks its conversation files into dir,
// an empty folder the caller made (mode 0700, inside the agent home's
// staging area); the manifest and chat.toml are returned, not written.
//
// Unpack writes only inside dir: each file is created with O_CREATE|O_EXCL|
// O_NOFOLLOW, mode 0600, relative to an open folder, and no symbolic link is
// followed. It refuses, with an *Error naming the member and the reason:
// a member that is not a regular file (but the conversation/ folder entry),
// an unsafe name or one not in the allowed set, a member listed twice, out
// of the manifest's order or not listed, the manifest not first or not
// valid, a newer format, a missing chat.toml, a truncated or corrupt gzip or
// tar, more members than lim.Members, and a member or total size over lim
// (counted while copying). On any refusal it removes what it wrote in dir;
// the caller removes dir itself.
func Unpack(r io.Reader, dir string, lim Limits) (*Unpacked, error) {
	st, err := openStage(dir)
	if err != nil {
		return nil, err
	}
	p := &unpacker{st: st, lim: lim.withDefaults(), u: &Unpacked{Dir: dir}}
	if err := p.run(r); err != nil {
		st.remove()
		return nil, err
	}
	if err := st.sync(); err != nil {
		st.remove()
		return nil, err
	}
	st.close()
	return p.u, nil
}

// unpacker is one Unpack's state.
type unpacker struct {
	st     *stage
	lim    Limits
	u      *Unpacked
	gz     *gzip.Reader
	tr     *tar.Reader
	buf    []byte
	count  int   // tar members read
	total  int64 // bytes of all members so far
	next   int   // index in Manifest.Members of the member expected next
	sawDir bool  // the conversation/ folder entry was seen
}

func (p *unpacker) run(r io.Reader) error {
	gz, err := gzip.NewReader(r)
	switch {
	case errors.Is(err, io.EOF):
		return refuse("", "bundle is empty", err)
	case errors.Is(err, gzip.ErrHeader):
		return refuse("", "bundle is not a gzip file (a bundle is a tar.gz)", err)
	case err != nil:
		return readError("", err)
	}
	p.gz = gz
	p.tr = tar.NewReader(&cappedReader{r: gz, n: streamCap(p.lim)})
	p.buf = make([]byte, copyBufferBytes)
	for {
		hdr, err := p.tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil && !(errors.Is(err, tar.ErrInsecurePath) && hdr != nil) {
			return readError("", err)
		}
		if err := p.member(hdr); err != nil {
			return err
		}
	}
	if p.count == 0 {
		return refuse("", "bundle holds no members (it should start with manifest.json)", nil)
	}
	if members := p.u.Manifest.Members; p.next < len(members) {
		return refuse(members[p.next], "listed in the manifest but missing from the bundle", nil)
	}
	n, err := io.CopyBuffer(io.Discard, io.LimitReader(gz, maxTrailingBytes+1), p.buf)
	if err != nil {
		return readError("", err)
	}
	if n > maxTrailingBytes {
		return refuse("", fmt.Sprintf("bundle has more than %d bytes after the end of its tar archive", maxTrailingBytes), nil)
	}
	return nil
}

// member takes one tar member.
func (p *unpacker) member(hdr *tar.Header) error {
	name := hdr.Name
	p.count++
	if p.count > p.lim.Members {
		return refuse(name, fmt.Sprintf("more than %d members in the bundle: refused", p.lim.Members), nil)
	}
	if why := unsafeName(name); why != "" {
		return refuse(name, why, nil)
	}
	if p.count == 1 && name != ManifestName {
		return refuse(name, "the manifest must come first: the first member is not manifest.json", nil)
	}
	if hdr.Typeflag == tar.TypeDir && isConversationDir(name) {
		if p.sawDir {
			return refuse(name, "appears twice in the bundle", nil)
		}
		p.sawDir = true
		return nil
	}
	if why := typeReason(hdr); why != "" {
		return refuse(name, why, nil)
	}
	if why := allowedName(name); why != "" {
		return refuse(name, why, nil)
	}
	if p.count == 1 {
		return p.manifest(hdr)
	}
	if err := p.inOrder(name); err != nil {
		return err
	}
	if hdr.Size > p.lim.MemberBytes {
		return refuse(name, fmt.Sprintf("%d bytes, over the limit of %d bytes a member may hold", hdr.Size, p.lim.MemberBytes), nil)
	}
	if hdr.Size > p.lim.TotalBytes-p.total {
		return refuse(name, fmt.Sprintf("the bundle would unpack to more than the limit of %d bytes", p.lim.TotalBytes), nil)
	}
	if name == ChatName {
		return p.chat(hdr)
	}
	f, err := p.st.create(name)
	if err != nil {
		return refuse(name, "could not be unpacked", err)
	}
	_, cerr := p.copy(f, name, p.lim.MemberBytes)
	if cerr == nil {
		if err := f.Sync(); err != nil {
			cerr = refuse(name, "could not be synced to disk", err)
		}
	}
	if err := f.Close(); err != nil && cerr == nil {
		cerr = refuse(name, "could not be written", err)
	}
	if cerr != nil {
		return cerr
	}
	p.u.Conversation = append(p.u.Conversation, name)
	return nil
}

// inOrder refuses name unless it is the member the manifest lists next.
func (p *unpacker) inOrder(name string) error {
	members := p.u.Manifest.Members
	if p.next < len(members) && members[p.next] == name {
		p.next++
		return nil
	}
	if name == ManifestName {
		return refuse(name, "appears twice in the bundle", nil)
	}
	for i, m := range members {
		if m != name {
			continue
		}
		if i < p.next {
			return refuse(name, "appears twice in the bundle", nil)
		}
		return refuse(name, fmt.Sprintf("out of order: the manifest lists %q next", members[p.next]), nil)
	}
	return refuse(name, "not listed in the manifest", nil)
}

// manifest reads and checks manifest.json.
func (p *unpacker) manifest(hdr *tar.Header) error {
	if hdr.Size > MaxManifestBytes {
		return refuse(ManifestName, fmt.Sprintf("%d bytes, over the 1 MiB limit", hdr.Size), nil)
	}
	var data bytes.Buffer
	if _, err := p.copy(&data, ManifestName, MaxManifestBytes); err != nil {
		return err
	}
	var version struct {
		Format int `json:"format"`
	}
	if err := json.Unmarshal(data.Bytes(), &version); err == nil && version.Format > FormatVersion {
		return checkManifest(&Manifest{Format: version.Format}, 0)
	}
	var m Manifest
	if err := json.Unmarshal(data.Bytes(), &m); err != nil {
		return refuse(ManifestName, "not a valid manifest: "+err.Error(), err)
	}
	if err := checkManifest(&m, p.lim.Members-1); err != nil {
		return err
	}
	p.u.Manifest = m
	return nil
}

// chat reads chat.toml, at most sessions.MaxChatFileBytes.
func (p *unpacker) chat(hdr *tar.Header) error {
	if hdr.Size > sessions.MaxChatFileBytes {
		return refuse(ChatName, fmt.Sprintf("%d bytes, over the chat file limit of %d", hdr.Size, sessions.MaxChatFileBytes), nil)
	}
	var data bytes.Buffer
	if _, err := p.copy(&data, ChatName, sessions.MaxChatFileBytes); err != nil {
		return err
	}
	p.u.Chat = data.Bytes()
	return nil
}

// copy streams the current member to dst through the one buffer, counting
// every byte: a member over limit (or p.lim.MemberBytes) or a bundle over
// p.lim.TotalBytes is refused before the byte that crosses it is written,
// whatever its header said.
func (p *unpacker) copy(dst io.Writer, name string, limit int64) (int64, error) {
	limit = min(limit, p.lim.MemberBytes)
	var n int64
	for {
		nr, rerr := p.tr.Read(p.buf)
		if nr > 0 {
			if n+int64(nr) > limit {
				return n, refuse(name, fmt.Sprintf("more than %d bytes, over the limit a member may hold: refused while unpacking", limit), nil)
			}
			if p.total+int64(nr) > p.lim.TotalBytes {
				return n, refuse(name, fmt.Sprintf("the bundle unpacks to more than the limit of %d bytes: refused while unpacking", p.lim.TotalBytes), nil)
			}
			if _, err := dst.Write(p.buf[:nr]); err != nil {
				return n, refuse(name, "could not be written", err)
			}
			n += int64(nr)
			p.total += int64(nr)
		}
		if errors.Is(rerr, io.EOF) {
			return n, nil
		}
		if rerr != nil {
			return n, readError(name, rerr)
		}
	}
}

// typeReason says why a member of hdr's type is refused, or "" for a
// regular file.
func typeReason(hdr *tar.Header) string {
	switch hdr.Typeflag {
	case tar.TypeReg:
		return ""
	case tar.TypeDir:
		return "directory refused (only conversation/ may be a folder)"
	case tar.TypeSymlink:
		return fmt.Sprintf("symbolic link refused (to %s)", quoteShort(hdr.Linkname))
	case tar.TypeLink:
		return fmt.Sprintf("hard link refused (to %s)", quoteShort(hdr.Linkname))
	case tar.TypeChar:
		return "character device refused"
	case tar.TypeBlock:
		return "block device refused"
	case tar.TypeFifo:
		return "FIFO refused"
	case tar.TypeGNUSparse:
		return "sparse file refused"
	default:
		return fmt.Sprintf("tar member of type %q refused (only regular files)", string(hdr.Typeflag))
	}
}

// readError is a failure to read the bundle while at member name: a cut or
// damaged stream says "truncated or corrupt".
func readError(name string, err error) error {
	if errors.Is(err, errTarTooLong) {
		return refuse(name, "bundle's tar data runs past what its member limits allow (a decompression bomb?): refused", err)
	}
	var corrupt flate.CorruptInputError
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, gzip.ErrChecksum) || errors.Is(err, gzip.ErrHeader) ||
		errors.Is(err, tar.ErrHeader) || errors.As(err, &corrupt) {
		if name == "" {
			return refuse("", "bundle is truncated or corrupt: "+err.Error(), err)
		}
		return refuse(name, "truncated or corrupt bundle: "+err.Error(), err)
	}
	if name == "" {
		return refuse("", "reading the bundle: "+err.Error(), err)
	}
	return refuse(name, "reading the bundle: "+err.Error(), err)
}
