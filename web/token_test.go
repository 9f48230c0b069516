package web

import (
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/acpmux/acpmux-tui/internal/testharness/lockedbuf"
)

var tokenFileText = regexp.MustCompile(`^[0-9a-f]{64}\n$`)

// openToken opens and closes a listener on path, and returns the token
// the file holds after, having checked the file is private and well
// formed and the log never names the token.
func openToken(t *testing.T, path string, fresh bool) string {
	t.Helper()
	logs := &lockedbuf.Buffer{}
	ln, err := Open(Options{
		TokenFile: path, NewToken: fresh, Serve: func(net.Conn) {},
		Logger: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
	})
	if err != nil {
		t.Fatalf("open a listener on %s: %v", path, err)
	}
	ln.Close()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode() != 0o600 {
		t.Fatalf("the token file's mode is %v, want a regular file 0600", fi.Mode())
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !tokenFileText.Match(b) {
		t.Fatalf("the token file holds %d bytes that are not 64 hex digits and a newline", len(b))
	}
	tok := strings.TrimSpace(string(b))
	if strings.Contains(logs.String(), tok) {
		t.Fatalf("the log names the token:\n%s", logs.String())
	}
	if ln.TokenFile() != path {
		t.Fatalf("TokenFile() = %q, want %q", ln.TokenFile(), path)
	}
	return tok
}

func TestTokenMadeAndReused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "home", "web.token") // its folder is made too
	first := openToken(t, path, false)
	if again := openToken(t, path, false); again != first {
		t.Fatalf("a good token file was not reused")
	}
	if fresh := openToken(t, path, true); fresh == first {
		t.Fatalf("NewToken kept the old token")
	}
	// A file without its newline is still a good one.
	tok := strings.Repeat("ab", 32)
	if err := os.WriteFile(path, []byte(tok), 0o600); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	if got, _ := readToken(path); got != tok || string(b) != tok {
		t.Fatalf("a token file without a newline was not taken")
	}
}

// TestTokenReplacedWhenUntrusted plants a token file each way it must not
// be trusted and checks Open makes a new one in its place.
func TestTokenReplacedWhenUntrusted(t *testing.T) {
	planted := strings.Repeat("5a", 32)
	cases := []struct {
		name  string
		plant func(t *testing.T, path string)
	}{
		{"mode 0644", func(t *testing.T, path string) { write(t, path, planted+"\n", 0o644) }},
		{"mode 0400", func(t *testing.T, path string) { write(t, path, planted+"\n", 0o400) }},
		{"garbage", func(t *testing.T, path string) { write(t, path, "hello\n", 0o600) }},
		{"empty", func(t *testing.T, path string) { write(t, path, "", 0o600) }},
		{"capitals", func(t *testing.T, path string) { write(t, path, strings.ToUpper(planted)+"\n", 0o600) }},
		{"a hex digit short", func(t *testing.T, path string) { write(t, path, planted[1:]+"\n", 0o600) }},
		{"a hex digit long", func(t *testing.T, path string) { write(t, path, planted+"a\n", 0o600) }},
		{"two newlines", func(t *testing.T, path string) { write(t, path, planted+"\n\n", 0o600) }},
		{"a symlink to a good token", func(t *testing.T, path string) {
			target := filepath.Join(filepath.Dir(path), "elsewhere")
			write(t, target, planted+"\n", 0o600)
			if err := os.Symlink(target, path); err != nil {
				t.Fatal(err)
			}
		}},
		{"a FIFO", func(t *testing.T, path string) {
			if err := syscall.Mkfifo(path, 0o600); err != nil {
				t.Skipf("mkfifo: %v", err)
			}
		}},
		{"another user's file", func(t *testing.T, path string) {
			if os.Getuid() != 0 {
				t.Skip("needs root to give a file to another user")
			}
			write(t, path, planted+"\n", 0o600)
			if err := os.Chown(path, 65534, 65534); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "web.token")
			tc.plant(t, path)
			if got := openToken(t, path, false); got == planted {
				t.Fatalf("the planted token was kept")
			}
			if b, err := os.ReadFile(filepath.Join(dir, "elsewhere")); err == nil && string(b) != planted+"\n" {
				t.Fatalf("the symlink's target was written through")
			}
		})
	}
}

// TestTokenFileThatCannotBeWritten checks the error names the file and
// not a token.
func TestTokenFileThatCannotBeWritten(t *testing.T) {
	path := filepath.Join(t.TempDir(), "web.token")
	if err := os.Mkdir(path, 0o700); err != nil { // a folder where the file goes
		t.Fatal(err)
	}
	_, err := Open(Options{TokenFile: path, Serve: func(net.Conn) {}})
	if err == nil || !strings.Contains(err.Error(), path) {
		t.Fatalf("Open with a folder at the token's path: %v, want an error naming the path", err)
	}
	if regexp.MustCompile(`[0-9a-f]{64}`).MatchString(err.Error()) {
		t.Fatalf("the error names a token: %v", err)
	}
}

func write(t *testing.T, path, text string, mode os.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}
