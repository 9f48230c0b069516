package bundle

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/acpmux/acpmux-tui/sessions"
)

// Every crafted bundle is refused with a *bundle.Error that names the
// member and says why, and leaves the staging folder empty.
func TestUnpackRefusesCraftedBundles(t *testing.T) {
	conv := SessionMember
	good := func(t *testing.T, extra ...member) []byte {
		return craft(t, append([]member{manifestMember(t, testManifest(conv)), regular(ChatName, testChat)}, extra...)...)
	}
	withManifest := func(edit func(*Manifest)) func(*testing.T) []byte {
		return func(t *testing.T) []byte {
			m := testManifest(conv)
			edit(&m)
			return craft(t, manifestMember(t, m), regular(ChatName, testChat), regular(conv, []byte("{}\n")))
		}
	}
	head := func(t *testing.T) []member {
		return []member{manifestMember(t, testManifest(conv)), regular(ChatName, testChat)}
	}
	tests := []struct {
		name       string
		bundle     func(*testing.T) []byte
		lim        Limits
		wantMember string
		want       string // the whole message, or a part of it
	}{
		{"absolute name", func(t *testing.T) []byte { return good(t, regular("/etc/passwd", []byte("x"))) }, Limits{},
			"/etc/passwd", `bundle member "/etc/passwd": absolute name refused`},
		{"climbing name", func(t *testing.T) []byte { return good(t, regular("../../etc/passwd", []byte("x"))) }, Limits{},
			"../../etc/passwd", `bundle member "../../etc/passwd": climbing name refused`},
		{"climbing inside conversation", func(t *testing.T) []byte { return good(t, regular("conversation/../../x", nil)) }, Limits{},
			"conversation/../../x", "climbing name refused"},
		{"climbing first member", func(t *testing.T) []byte { return craft(t, regular("../manifest.json", nil)) }, Limits{},
			"../manifest.json", "climbing name refused"},
		{"dot slash name", func(t *testing.T) []byte { return good(t, regular("./x", nil)) }, Limits{},
			"./x", "name not allowed"},
		{"dot slash chat", func(t *testing.T) []byte {
			return craft(t, manifestMember(t, testManifest()), regular("./chat.toml", testChat))
		}, Limits{}, "./chat.toml", "name not allowed"},
		{"dot conversation name", func(t *testing.T) []byte { return good(t, regular("conversation/.hidden", nil)) }, Limits{},
			"conversation/.hidden", "name not allowed"},
		{"conversation name too long", func(t *testing.T) []byte {
			return good(t, regular("conversation/"+strings.Repeat("a", 65), nil))
		}, Limits{}, "conversation/" + strings.Repeat("a", 65), "name not allowed"},
		{"nested conversation file", func(t *testing.T) []byte { return good(t, regular("conversation/a/b", nil)) }, Limits{},
			"conversation/a/b", "name not allowed"},
		{"backslash", func(t *testing.T) []byte { return good(t, regular(`conversation\..\..\x`, nil)) }, Limits{},
			`conversation\..\..\x`, "backslash in name refused"},
		{"NUL in a PAX path", func(t *testing.T) []byte {
			rec := paxRecord("path", "conversation/a\x00b")
			return craft(t, append(head(t), member{raw: rawHeader(t, "PaxHeaders/a", tar.TypeXHeader, []byte(rec))},
				regular("conversation/a", []byte("x")))...)
		}, Limits{}, "", "bundle is truncated or corrupt"},
		{"NUL in a listed name", withManifest(func(m *Manifest) { m.Members = append(m.Members, "conversation/a\x00b") }), Limits{},
			ManifestName, "NUL byte in name refused"},
		{"backslash in a listed name", withManifest(func(m *Manifest) { m.Members[1] = `conversation\x` }), Limits{},
			ManifestName, "backslash in name refused"},
		{"climbing listed name", withManifest(func(m *Manifest) { m.Members[1] = "conversation/../../x" }), Limits{},
			ManifestName, "climbing name refused"},
		{"symlink member", func(t *testing.T) []byte { return good(t, special(conv, tar.TypeSymlink, "/etc/passwd")) }, Limits{},
			conv, `symbolic link refused (to "/etc/passwd")`},
		{"symlink as manifest", func(t *testing.T) []byte { return craft(t, special(ManifestName, tar.TypeSymlink, "/etc/passwd")) }, Limits{},
			ManifestName, "symbolic link refused"},
		{"symlink folder", func(t *testing.T) []byte { return good(t, special("conversation", tar.TypeSymlink, "/tmp")) }, Limits{},
			"conversation", "symbolic link refused"},
		{"hard link member", func(t *testing.T) []byte { return good(t, special(conv, tar.TypeLink, "chat.toml")) }, Limits{},
			conv, `hard link refused (to "chat.toml")`},
		{"hard link out", func(t *testing.T) []byte { return good(t, special(conv, tar.TypeLink, "/etc/shadow")) }, Limits{},
			conv, "hard link refused"},
		{"char device", func(t *testing.T) []byte { return good(t, special(conv, tar.TypeChar, "")) }, Limits{},
			conv, "character device refused"},
		{"block device", func(t *testing.T) []byte { return good(t, special(conv, tar.TypeBlock, "")) }, Limits{},
			conv, "block device refused"},
		{"FIFO", func(t *testing.T) []byte { return good(t, special(conv, tar.TypeFifo, "")) }, Limits{},
			conv, "FIFO refused"},
		{"GNU sparse", func(t *testing.T) []byte {
			return craft(t, append(head(t), member{raw: rawHeader(t, conv, tar.TypeGNUSparse, nil)})...)
		}, Limits{}, conv, "sparse file refused"},
		{"other directory", func(t *testing.T) []byte { return good(t, special("etc/", tar.TypeDir, "")) }, Limits{},
			"etc/", "directory refused (only conversation/ may be a folder)"},
		{"directory inside conversation", func(t *testing.T) []byte { return good(t, special("conversation/sub/", tar.TypeDir, "")) }, Limits{},
			"conversation/sub/", "directory refused"},
		{"conversation folder twice", func(t *testing.T) []byte {
			return good(t, special("conversation/", tar.TypeDir, ""), special("conversation/", tar.TypeDir, ""))
		}, Limits{}, "conversation/", "appears twice"},
		{"member twice", func(t *testing.T) []byte {
			return good(t, regular(conv, []byte("a\n")), regular(conv, []byte("b\n")))
		}, Limits{}, conv, "appears twice in the bundle"},
		{"chat twice", func(t *testing.T) []byte { return good(t, regular(ChatName, testChat)) }, Limits{},
			ChatName, "appears twice in the bundle"},
		{"manifest twice", func(t *testing.T) []byte { return good(t, manifestMember(t, testManifest(conv))) }, Limits{},
			ManifestName, "appears twice in the bundle"},
		{"unlisted member", func(t *testing.T) []byte {
			return good(t, regular(conv, []byte("a\n")), regular(ScrollbackMember, []byte("b\n")))
		}, Limits{}, ScrollbackMember, "not listed in the manifest"},
		{"out of order", func(t *testing.T) []byte {
			return craft(t, manifestMember(t, testManifest(conv, CapsuleMember)), regular(ChatName, testChat),
				regular(CapsuleMember, nil), regular(conv, nil))
		}, Limits{}, CapsuleMember, `out of order: the manifest lists "conversation/session.jsonl" next`},
		{"listed member missing", func(t *testing.T) []byte { return good(t) }, Limits{},
			conv, "listed in the manifest but missing from the bundle"},
		{"manifest not first", func(t *testing.T) []byte {
			return craft(t, regular(ChatName, testChat), manifestMember(t, testManifest()))
		}, Limits{}, ChatName, "the manifest must come first"},
		{"folder before manifest", func(t *testing.T) []byte {
			return craft(t, special("conversation/", tar.TypeDir, ""), manifestMember(t, testManifest()), regular(ChatName, testChat))
		}, Limits{}, "conversation/", "the manifest must come first"},
		{"manifest over 1 MiB", func(t *testing.T) []byte {
			data := []byte(`{"format":1}` + strings.Repeat(" ", MaxManifestBytes))
			return craft(t, regular(ManifestName, data), regular(ChatName, testChat))
		}, Limits{}, ManifestName, "over the 1 MiB limit"},
		{"manifest not JSON", func(t *testing.T) []byte {
			return craft(t, regular(ManifestName, []byte("format = 1\n")), regular(ChatName, testChat))
		}, Limits{}, ManifestName, "not a valid manifest"},
		{"manifest JSON with trailing data", func(t *testing.T) []byte {
			m := manifestMember(t, testManifest())
			return craft(t, regular(ManifestName, append(m.data, "{}"...)), regular(ChatName, testChat))
		}, Limits{}, ManifestName, "not a valid manifest"},
		{"manifest of the wrong shape", func(t *testing.T) []byte {
			return craft(t, regular(ManifestName, []byte(`{"format":1,"members":"chat.toml"}`)), regular(ChatName, testChat))
		}, Limits{}, ManifestName, "not a valid manifest"},
		{"newer format", withManifest(func(m *Manifest) { m.Format = 2 }), Limits{},
			"", "bundle format 2 is newer than this acpmux-tui reads (1): update acpmux-tui"},
		{"newer format of another shape", func(t *testing.T) []byte {
			return craft(t, regular(ManifestName, []byte(`{"format":7,"members":{"chat":"chat.toml"}}`)), regular(ChatName, testChat))
		}, Limits{}, "", "bundle format 7 is newer than this acpmux-tui reads (1): update acpmux-tui"},
		{"format zero", withManifest(func(m *Manifest) { m.Format = 0 }), Limits{},
			ManifestName, "format 0 is not a bundle format"},
		{"chat id with slash", withManifest(func(m *Manifest) { m.ChatID = "a/b" }), Limits{},
			ManifestName, `chatId "a/b" is not a chat id`},
		{"chat id dot dot", withManifest(func(m *Manifest) { m.ChatID = ".." }), Limits{},
			ManifestName, `chatId ".." is not a chat id`},
		{"chat id climbing", withManifest(func(m *Manifest) { m.ChatID = "../../etc" }), Limits{},
			ManifestName, "is not a chat id"},
		{"chat id upper case", withManifest(func(m *Manifest) { m.ChatID = "K3X9Q2" }), Limits{},
			ManifestName, "is not a chat id"},
		{"chat id empty", withManifest(func(m *Manifest) { m.ChatID = "" }), Limits{},
			ManifestName, "is not a chat id"},
		{"unknown conversation kind", withManifest(func(m *Manifest) { m.Conversation = "partial" }), Limits{},
			ManifestName, `conversation "partial" is not exact, capsule or none`},
		{"unknown source", withManifest(func(m *Manifest) { m.Source = "gemini-session" }), Limits{},
			ManifestName, `source "gemini-session" is not one`},
		{"manifest without chat.toml", withManifest(func(m *Manifest) { m.Members = []string{conv} }), Limits{},
			ManifestName, "missing chat.toml"},
		{"manifest listing nothing", withManifest(func(m *Manifest) { m.Members = nil }), Limits{},
			ManifestName, "missing chat.toml"},
		{"manifest listing itself", withManifest(func(m *Manifest) { m.Members = append(m.Members, ManifestName) }), Limits{},
			ManifestName, "lists manifest.json"},
		{"manifest listing a name twice", withManifest(func(m *Manifest) { m.Members = append(m.Members, conv) }), Limits{},
			ManifestName, "listed twice"},
		{"manifest listing too many", withManifest(func(m *Manifest) {
			for i := range 20 {
				m.Members = append(m.Members, fmt.Sprintf("conversation/f%d", i))
			}
		}), Limits{}, ManifestName, "lists 22 members, over the limit of 15"},
		{"chat.toml missing", func(t *testing.T) []byte { return craft(t, manifestMember(t, testManifest())) }, Limits{},
			ChatName, "listed in the manifest but missing from the bundle"},
		{"chat.toml over the chat file limit", func(t *testing.T) []byte {
			return craft(t, manifestMember(t, testManifest()), regular(ChatName, bytes.Repeat([]byte("#"), sessions.MaxChatFileBytes+1)))
		}, Limits{}, ChatName, "over the chat file limit of 1048576"},
		{"member over the member limit", func(t *testing.T) []byte { return good(t, regular(conv, make([]byte, 4097))) },
			Limits{MemberBytes: 4096}, conv, "4097 bytes, over the limit of 4096 bytes a member may hold"},
		{"bundle over the total limit", func(t *testing.T) []byte {
			return craft(t, manifestMember(t, testManifest(conv, CapsuleMember)), regular(ChatName, testChat),
				regular(conv, make([]byte, 3000)), regular(CapsuleMember, make([]byte, 3000)))
		}, Limits{TotalBytes: 5000}, CapsuleMember, "the bundle would unpack to more than the limit of 5000 bytes"},
		{"more members than the limit", func(t *testing.T) []byte {
			return good(t, special("conversation/", tar.TypeDir, ""), regular(conv, nil))
		}, Limits{Members: 3}, conv, "more than 3 members in the bundle"},
		{"not gzip at all", func(*testing.T) []byte { return []byte("this is not a bundle\n") }, Limits{},
			"", "bundle is not a gzip file"},
		{"a plain tar", func(t *testing.T) []byte {
			return craftTar(t, manifestMember(t, testManifest()), regular(ChatName, testChat))
		}, Limits{}, "", "bundle is not a gzip file"},
		{"empty input", func(*testing.T) []byte { return nil }, Limits{}, "", "bundle is empty"},
		{"gzip of nothing", func(t *testing.T) []byte { return gzipped(t, nil) }, Limits{},
			"", "bundle holds no members"},
		{"an empty tar", func(t *testing.T) []byte { return craft(t) }, Limits{},
			"", "bundle holds no members"},
		{"gzip of junk", func(t *testing.T) []byte { return gzipped(t, []byte("not a tar archive at all")) }, Limits{},
			"", "bundle is truncated or corrupt"},
		{"junk after the archive", func(t *testing.T) []byte {
			return gzipped(t, append(craftTar(t, append(head(t), regular(conv, nil))...), make([]byte, maxTrailingBytes+1)...))
		}, Limits{}, "", "bytes after the end of its tar archive"},
		{"junk after the gzip stream", func(t *testing.T) []byte {
			return append(good(t, regular(conv, nil)), "trailing junk"...)
		}, Limits{}, "", "bundle is truncated or corrupt"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := refusal(t, tc.bundle(t), tc.lim)
			if e.Member != tc.wantMember {
				t.Errorf("refusal names member %q, want %q (%v)", e.Member, tc.wantMember, e)
			}
			if !strings.Contains(e.Error(), tc.want) {
				t.Errorf("refusal says %q, want it to say %q", e.Error(), tc.want)
			}
		})
	}
}

// A crafted bundle with 100,000 members is refused at the member limit's
// next one, long before the rest is read.
func TestUnpackRefusesManyMembersEarly(t *testing.T) {
	listed := []string{}
	for i := range DefaultLimits.Members - 2 {
		listed = append(listed, fmt.Sprintf("conversation/f%05d", i))
	}
	members := []member{manifestMember(t, testManifest(listed...)), regular(ChatName, testChat)}
	for i := range 100_000 - 2 {
		members = append(members, regular(fmt.Sprintf("conversation/f%05d", i), nil))
	}
	data := craft(t, members...)
	in := &countingReader{r: bytes.NewReader(data)}
	e := refusalFrom(t, in, DefaultLimits)
	want := fmt.Sprintf(`bundle member "conversation/f%05d": more than 16 members in the bundle: refused`, DefaultLimits.Members-2)
	if e.Error() != want {
		t.Errorf("refusal says %q, want %q", e.Error(), want)
	}
	if in.n*10 > int64(len(data)) {
		t.Errorf("Unpack read %d of the bundle's %d bytes before refusing its 17th member; want under a tenth", in.n, len(data))
	}
}

// A decompression bomb (1 GiB of zeros in one member, about 1 MB
// compressed) is refused at the limit having read little of it, and
// writes nothing that stays.
func TestUnpackRefusesDecompressionBomb(t *testing.T) {
	var tarred bytes.Buffer
	gz, err := gzip.NewWriterLevel(&tarred, gzip.BestSpeed)
	if err != nil {
		t.Fatal(err)
	}
	tw := tar.NewWriter(gz)
	write := func(name string, size int64, r io.Reader) {
		if err := tw.WriteHeader(&tar.Header{Name: name, Typeflag: tar.TypeReg, Mode: 0o600, Size: size}); err != nil {
			t.Fatalf("write bomb header %s: %v", name, err)
		}
		if _, err := io.CopyN(tw, r, size); err != nil {
			t.Fatalf("write bomb member %s: %v", name, err)
		}
	}
	m := manifestMember(t, testManifest(SessionMember))
	write(ManifestName, int64(len(m.data)), bytes.NewReader(m.data))
	write(ChatName, int64(len(testChat)), bytes.NewReader(testChat))
	write(SessionMember, 1<<30, zeros{})
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	data := tarred.Bytes()
	t.Logf("the bomb: 1 GiB of zeros in %d bytes", len(data))
	for _, lim := range []Limits{DefaultLimits, {MemberBytes: 1 << 20}, {TotalBytes: 1 << 20}} {
		in := &countingReader{r: bytes.NewReader(data)}
		e := refusalFrom(t, in, lim)
		if e.Member != SessionMember || !strings.Contains(e.Error(), "limit") {
			t.Errorf("with %+v the bomb was refused with %v, want a limit on %s", lim, e, SessionMember)
		}
		if in.n > 64<<10 {
			t.Errorf("with %+v Unpack read %d compressed bytes of the bomb's %d before refusing it; want at most 64 KiB", lim, in.n, len(data))
		}

		// What reached the disk before the refusal: the bytes the
		// unpacker counted, less the manifest and chat it keeps in memory.
		st, err := openStage(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		p := &unpacker{st: st, lim: lim.withDefaults(), u: &Unpacked{}}
		if err := p.run(bytes.NewReader(data)); err == nil {
			t.Fatal("the bomb was accepted")
		}
		st.remove()
		written := p.total - int64(len(m.data)+len(testChat))
		t.Logf("with %+v: %d bytes of the bomb reached the disk before the refusal", lim, written)
		if bound := min(p.lim.MemberBytes, p.lim.TotalBytes); written > bound || lim != DefaultLimits && written > 1<<20 {
			t.Errorf("with %+v %d bytes of the bomb were written before the refusal; want at most the limit", lim, written)
		}
	}
}

// The size limits hold while copying, whatever the tar header says: the
// byte that crosses a limit is never written.
func TestCopyCountsWhatItWrites(t *testing.T) {
	data := craftTar(t, regular(SessionMember, bytes.Repeat([]byte("x"), 100_000)))
	for _, tc := range []struct {
		name  string
		lim   Limits
		limit int64
		want  string
	}{
		{"member limit", Limits{MemberBytes: 1 << 30, TotalBytes: 1 << 30}, 40_000, "more than 40000 bytes, over the limit a member may hold"},
		{"member limit from Limits", Limits{MemberBytes: 50_000, TotalBytes: 1 << 30}, 1 << 30, "more than 50000 bytes"},
		{"total limit", Limits{MemberBytes: 1 << 30, TotalBytes: 70_000}, 1 << 30, "the bundle unpacks to more than the limit of 70000 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := tar.NewReader(bytes.NewReader(data))
			if _, err := tr.Next(); err != nil {
				t.Fatal(err)
			}
			p := &unpacker{lim: tc.lim, tr: tr, buf: make([]byte, copyBufferBytes)}
			var out bytes.Buffer
			n, err := p.copy(&out, SessionMember, tc.limit)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("copy of 100000 bytes returned %v, want %q", err, tc.want)
			}
			bound := min(tc.limit, tc.lim.MemberBytes, tc.lim.TotalBytes)
			if n != int64(out.Len()) || n > bound {
				t.Errorf("copy wrote %d bytes (says %d); want at most the limit, %d", out.Len(), n, bound)
			}
		})
	}
}

// A bundle cut anywhere is refused as truncated or corrupt, never taken
// in part, and leaves nothing behind.
func TestUnpackRefusesTruncated(t *testing.T) {
	session := bytes.Repeat([]byte(`{"type":"user","message":{"content":"a line of a session"}}`+"\n"), 4000)
	data := craft(t, manifestMember(t, testManifest(SessionMember, CapsuleMember)), regular(ChatName, testChat),
		regular(SessionMember, session), regular(CapsuleMember, []byte("# capsule\n")))
	if _, err := Unpack(bytes.NewReader(data), t.TempDir(), DefaultLimits); err != nil {
		t.Fatalf("the whole bundle is refused: %v", err)
	}
	for _, cut := range []int{1, 5, 9, 10, 11, 100, len(data) / 4, len(data) / 2, len(data) - 100, len(data) - 9, len(data) - 8, len(data) - 4, len(data) - 1} {
		t.Run(fmt.Sprint(cut), func(t *testing.T) {
			e := refusal(t, data[:cut], Limits{})
			if !strings.Contains(e.Error(), "truncated or corrupt") {
				t.Errorf("bundle cut at %d of %d bytes was refused with %q, want truncated or corrupt", cut, len(data), e)
			}
		})
	}
	// One damaged byte in the compressed data is refused too, whatever
	// the damage decodes to.
	for _, at := range []int{len(data) / 3, len(data) / 2, len(data) - 6} {
		bad := append([]byte(nil), data...)
		bad[at] ^= 0x5a
		refusal(t, bad, Limits{})
	}
}

// The names a bundle may hold, and the reasons for those it may not.
func TestCheckName(t *testing.T) {
	for name, want := range map[string]string{
		"manifest.json":                           "",
		"chat.toml":                               "",
		"conversation/session.jsonl":              "",
		"conversation/a":                          "",
		"conversation/" + strings.Repeat("a", 64): "",
		"conversation/" + strings.Repeat("a", 65): "name not allowed",
		"":                           "empty name refused",
		"conversation/a\x00b":        "NUL byte in name refused",
		"\x00":                       "NUL byte in name refused",
		`a\b`:                        "backslash in name refused",
		"/chat.toml":                 "absolute name refused",
		"..":                         "climbing name refused",
		"conversation/..":            "climbing name refused",
		"a/../../b":                  "climbing name refused",
		"./chat.toml":                "name not allowed",
		"conversation/.":             "name not allowed",
		"conversation/":              "name not allowed",
		"conversation//a":            "name not allowed",
		"conversation/-a":            "name not allowed",
		"conversation/a b":           "name not allowed",
		"Chat.toml":                  "name not allowed",
		"conversation/a/b":           "name not allowed",
		"conversation/\u00e9t\u00e9": "name not allowed",
	} {
		got := checkName(name)
		if want == "" && got != "" || want != "" && !strings.Contains(got, want) {
			t.Errorf("checkName(%q) = %q, want %q", name, got, want)
		}
	}
}

// A run of extended headers with no member after them (archive/tar reads
// through every one looking for a member) is refused once the tar data
// passes what the limits allow, having read little of the compressed
// input.
func TestUnpackRefusesEndlessExtendedHeaders(t *testing.T) {
	lim := Limits{Members: 4, MemberBytes: 1 << 20, TotalBytes: 1 << 20}
	rec := []byte(paxRecord("comment", strings.Repeat("a", 60<<10)))
	x := rawHeader(t, "PaxHeaders/x", tar.TypeXHeader, rec)
	var tarred bytes.Buffer
	gz, err := gzip.NewWriterLevel(&tarred, gzip.BestSpeed)
	if err != nil {
		t.Fatal(err)
	}
	m := craftTar(t, manifestMember(t, testManifest(SessionMember)), regular(ChatName, testChat))
	if _, err := gz.Write(m[:len(m)-1024]); err != nil { // without the end-of-archive blocks
		t.Fatal(err)
	}
	for written := 0; written < 4*int(streamCap(lim)); written += len(x) {
		if _, err := gz.Write(x); err != nil {
			t.Fatal(err)
		}
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	in := &countingReader{r: bytes.NewReader(tarred.Bytes())}
	e := refusalFrom(t, in, lim)
	if !strings.Contains(e.Error(), "runs past what its member limits allow") {
		t.Errorf("endless extended headers refused with %q, want the stream limit", e)
	}
	if in.n*2 > int64(tarred.Len()) {
		t.Errorf("Unpack read %d of %d compressed bytes before refusing; want under half", in.n, tarred.Len())
	}
}
