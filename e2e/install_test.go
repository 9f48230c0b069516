package e2e

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"debug/elf"
	"debug/macho"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// installModule is the module path `go install` is given.
const installModule = "github.com/acpmux/acpmux-tui"

// TestGoModHasNoReplace: go.mod replaces nothing, or `go install
// MODULE@VERSION` would refuse the module.
func TestGoModHasNoReplace(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(moduleRoot, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	block := false
	for line := range strings.Lines(string(data)) {
		line, _, _ = strings.Cut(line, "//")
		f := strings.Fields(line)
		switch {
		case len(f) == 0:
		case block && f[0] == ")":
			block = false
		case block || f[0] == "replace" && (len(f) < 2 || f[1] != "("):
			t.Errorf("go.mod replaces a module (%s): go install refuses a module that does", strings.TrimSpace(line))
		case f[0] == "replace":
			block = true
		}
	}
}

// TestGoInstallFromAProxy: `go install MODULE@VERSION` builds this module
// as a user's machine gets it: the module's zip (its committed files) served
// by a file proxy, its requirements by the usual one, in a folder outside
// the repository; the binary it installs runs.
func TestGoInstallFromAProxy(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the whole module again")
	}
	files, err := exec.Command("git", "-C", moduleRoot, "ls-files", "-z").Output()
	if err != nil {
		t.Skipf("not a git checkout (%v): the module's files are the committed ones", err)
	}
	// A version of its own each run, so the module cache never holds an
	// older zip under it.
	version := "v0.0.0-" + time.Now().UTC().Format("20060102150405") + "-000000000000"
	proxy := t.TempDir()
	dir := filepath.Join(proxy, installModule, "@v")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	gomod, err := os.ReadFile(filepath.Join(moduleRoot, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	var zbuf bytes.Buffer
	zw := zip.NewWriter(&zbuf)
	for _, name := range strings.Split(strings.TrimRight(string(files), "\x00"), "\x00") {
		data, err := os.ReadFile(filepath.Join(moduleRoot, name))
		if os.IsNotExist(err) {
			continue // deleted in the work tree, not yet committed
		}
		if err != nil {
			t.Fatal(err)
		}
		w, err := zw.Create(installModule + "@" + version + "/" + name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(data)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{
		"list":            []byte(version + "\n"),
		version + ".info": fmt.Appendf(nil, `{"Version":%q,"Time":%q}`, version, time.Now().UTC().Format(time.RFC3339)),
		version + ".mod":  gomod,
		version + ".zip":  zbuf.Bytes(),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	upstream, err := exec.Command("go", "env", "GOPROXY").Output()
	if err != nil {
		t.Fatal(err)
	}
	cache, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	modcache := strings.TrimSpace(string(cache))
	t.Cleanup(func() {
		// The zip and the files it unpacked, read-only in the cache.
		for _, p := range []string{filepath.Join(modcache, installModule+"@"+version), filepath.Join(modcache, "cache", "download", installModule, "@v")} {
			filepath.Walk(p, func(path string, info os.FileInfo, err error) error {
				if err == nil && info.IsDir() {
					os.Chmod(path, 0o755)
				}
				return nil
			})
		}
		os.RemoveAll(filepath.Join(modcache, installModule+"@"+version))
		matches, _ := filepath.Glob(filepath.Join(modcache, "cache", "download", installModule, "@v", version+".*"))
		for _, m := range matches {
			os.Remove(m)
		}
	})
	bin := t.TempDir()
	cmd := exec.Command("go", "install", installModule+"@"+version)
	cmd.Dir = t.TempDir() // outside any module
	cmd.Env = append(os.Environ(), "GOPROXY=file://"+proxy+","+strings.TrimSpace(string(upstream)),
		"GONOSUMDB="+installModule, "GOFLAGS=", "GOBIN="+bin, "GOTOOLCHAIN=local", "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go install %s@%s: %v\n%s", installModule, version, err, out)
	}
	out, err := exec.Command(filepath.Join(bin, "acpmux-tui"), "version").CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "acpmux-tui ") {
		t.Fatalf("the installed binary: %v\n%s", err, out)
	}
}

// TestReleaseSnapshot: scripts/release builds a binary for each target
// into its archive, with SHA256SUMS over them: linux ones static ELF of
// their machine, darwin ones Mach-O of their CPU linking the system's
// libraries only (every Go program on darwin links libSystem); the binary
// for this machine runs and says the version it was given. The darwin
// ones are only read, never run: this machine cannot.
func TestReleaseSnapshot(t *testing.T) {
	if testing.Short() {
		t.Skip("cross-builds the whole module for each target")
	}
	out := t.TempDir()
	cmd := exec.Command(filepath.Join(moduleRoot, "scripts", "release"), "--snapshot", "--out", out)
	cmd.Dir = moduleRoot
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("scripts/release --snapshot: %v\n%s", err, b)
	}
	sums, err := os.ReadFile(filepath.Join(out, "SHA256SUMS"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"linux_amd64": true, "linux_arm64": true, "darwin_amd64": true, "darwin_arm64": true}
	lines := strings.Split(strings.TrimSpace(string(sums)), "\n")
	if len(lines) != len(want) {
		t.Fatalf("SHA256SUMS: want %d archives:\n%s", len(want), sums)
	}
	for _, l := range lines {
		sum, name, ok := strings.Cut(l, "  ")
		if !ok {
			t.Fatalf("SHA256SUMS line %q", l)
		}
		target := releaseTarget(name)
		if !want[target] {
			t.Fatalf("SHA256SUMS: %s is not one of the targets (or twice)", name)
		}
		delete(want, target)
		data, err := os.ReadFile(filepath.Join(out, name))
		if err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprintf("%x", sha256.Sum256(data)); got != sum {
			t.Errorf("%s: sha256 %s, SHA256SUMS says %s", name, got, sum)
		}
		bin := untarBinary(t, data)
		goos, goarch, _ := strings.Cut(target, "_")
		if goos == "darwin" {
			checkMachO(t, name, bin, goarch)
			continue
		}
		checkStaticELF(t, name, bin, goarch)
		if goarch != runtime.GOARCH {
			continue
		}
		path := filepath.Join(t.TempDir(), "acpmux-tui")
		if err := os.WriteFile(path, bin, 0o755); err != nil {
			t.Fatal(err)
		}
		v, err := exec.Command(path, "version").CombinedOutput()
		if err != nil || !strings.HasPrefix(string(v), "acpmux-tui 0.0.0-snapshot-") {
			t.Errorf("%s version: %v\n%s", name, err, v)
		}
	}
}

// releaseTarget is an archive's OS_ARCH: acpmux-tui_VERSION_OS_ARCH.tar.gz.
func releaseTarget(name string) string {
	f := strings.Split(strings.TrimSuffix(name, ".tar.gz"), "_")
	if len(f) < 2 {
		return ""
	}
	return f[len(f)-2] + "_" + f[len(f)-1]
}

// checkStaticELF: bin is ELF for goarch without an interpreter (static).
func checkStaticELF(t *testing.T, name string, bin []byte, goarch string) {
	t.Helper()
	f, err := elf.NewFile(bytes.NewReader(bin))
	if err != nil {
		t.Fatalf("%s: the binary is not ELF: %v", name, err)
	}
	if want := map[string]elf.Machine{"amd64": elf.EM_X86_64, "arm64": elf.EM_AARCH64}[goarch]; f.Machine != want {
		t.Errorf("%s: ELF for %v, want %v", name, f.Machine, want)
	}
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Errorf("%s: the binary is dynamically linked (it has an interpreter)", name)
		}
	}
}

// checkMachO: bin is a Mach-O executable for goarch whose libraries are
// all the system's (/usr/lib, /System/Library), libSystem among them:
// what a Go program built without cgo links on darwin, present on every
// Mac.
func checkMachO(t *testing.T, name string, bin []byte, goarch string) {
	t.Helper()
	f, err := macho.NewFile(bytes.NewReader(bin))
	if err != nil {
		t.Fatalf("%s: the binary is not Mach-O: %v", name, err)
	}
	if want := map[string]macho.Cpu{"amd64": macho.CpuAmd64, "arm64": macho.CpuArm64}[goarch]; f.Cpu != want {
		t.Errorf("%s: Mach-O for %v, want %v", name, f.Cpu, want)
	}
	if f.Type != macho.TypeExec {
		t.Errorf("%s: Mach-O of type %v, not an executable", name, f.Type)
	}
	libs, err := f.ImportedLibraries()
	if err != nil {
		t.Fatalf("%s: its libraries: %v", name, err)
	}
	system := false
	for _, l := range libs {
		if !strings.HasPrefix(l, "/usr/lib/") && !strings.HasPrefix(l, "/System/Library/") {
			t.Errorf("%s: links %s, not a library of the system", name, l)
		}
		system = system || strings.HasPrefix(l, "/usr/lib/libSystem")
	}
	if !system {
		t.Errorf("%s: does not link libSystem (%v): not a Go darwin build", name, libs)
	}
}

// untarBinary is the acpmux-tui in a release archive.
func untarBinary(t *testing.T, archive []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(archive))
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err != nil {
			t.Fatalf("no acpmux-tui in the archive: %v", err)
		}
		if filepath.Base(h.Name) == "acpmux-tui" {
			b, err := io.ReadAll(tr)
			if err != nil {
				t.Fatal(err)
			}
			return b
		}
	}
}
