package browser

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/acpmux/acpmux-tui/internal/testharness/wait"
)

// ArtifactsEnv names the variable that sets the folder screenshots go to;
// without it they go to test-artifacts/web/ at the module root, which git
// ignores.
const ArtifactsEnv = "ACPMUX_ARTIFACTS"

// Screenshot writes a PNG of the tab's window to the artifacts folder, as
// <test name>/<name>.png, and logs its path. Screenshots are for a person
// to look at (a CI run keeps them); no test compares them.
func (b *Browser) Screenshot(name string) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.tab, wait.Hang)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		b.fail("a screenshot "+name, err)
	}
	path, err := writeArtifact(b.t, name, png)
	if err != nil {
		b.t.Fatalf("screenshot %s: %v", name, err)
	}
	b.t.Logf("screenshot %s: %s", name, path)
}

// ArtifactsDir is the folder screenshots go to: $ACPMUX_ARTIFACTS, else
// test-artifacts/web/ at the module root (the first folder above the
// working one that holds go.mod).
func ArtifactsDir() (string, error) {
	if d := os.Getenv(ArtifactsEnv); d != "" {
		return filepath.Abs(d)
	}
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, "test-artifacts", "web"), nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working folder, and $" + ArtifactsEnv + " is not set")
		}
		dir = parent
	}
}

// writeArtifact writes png as <artifacts>/<test name>/<name>.png.
func writeArtifact(t testing.TB, name string, png []byte) (string, error) {
	root, err := ArtifactsDir()
	if err != nil {
		return "", err
	}
	dir := filepath.Join(root, fileName(t.Name()))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	path := filepath.Join(dir, fileName(name)+".png")
	return path, os.WriteFile(path, png, 0o644)
}

// fileName makes s a safe file name: letters, digits, '-', '_' and '.'
// stay, anything else (the '/' of a subtest) becomes '_'.
func fileName(s string) string {
	s = strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			return r
		}
		return '_'
	}, s)
	if s == "" || strings.Trim(s, ".") == "" {
		return "_"
	}
	return s
}
