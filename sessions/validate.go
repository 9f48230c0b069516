package sessions

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/acpmux/acpmux-tui/proto"
)

// MaxFolders is the largest number of additional folders a chat may have.
const MaxFolders = 64

// maxPathBytes is the longest path the validator looks at. Linux refuses longer
// paths (PATH_MAX is 4096 including the NUL), so a longer entry is refused
// without asking the file system.
const maxPathBytes = 4095

// maxGivenFolders and maxGivenBytes bound the list the validator reads at
// all. A longer list, or one whose paths add up to more bytes, is refused
// before any file-system call, so hostile input stays cheap: resolving a path
// costs a system call per component, and the byte bound keeps the worst case
// where the old bound of MaxFolders entries of the longest path had it. A
// list within both is resolved, and MaxFolders applies to the distinct
// folders it keeps, so 70 entries that are 64 folders spelt several ways are
// accepted.
const (
	maxGivenFolders = 16 * MaxFolders
	maxGivenBytes   = MaxFolders * (maxPathBytes + 1)
)

// maxListedProblems bounds how many bad entries one refusal spells out, so a
// hostile list of 100,000 entries yields a short error; the rest are counted.
const maxListedProblems = 100

// MaxFiles is the largest number of single files a chat may have.
const MaxFiles = 64

// FolderError is a refusal of a folder list. It carries JSON-RPC code -32602
// (invalid params) and every bad entry, so the CLI, the TUI and the ACP side
// all show the same explanation.
type FolderError struct {
	// Count is the number of entries given.
	Count int
	// Kept is the number of distinct folders the good entries resolved to;
	// zero when the list was refused on its length alone, unread.
	Kept int
	// TooMany is set when the entries resolved to more than MaxFolders
	// distinct folders, or when more than maxGivenFolders entries were given.
	TooMany bool
	// Problems lists the refused entries in list order, at most
	// maxListedProblems of them.
	Problems []proto.FolderProblem
	// Unlisted counts the refused entries left out of Problems.
	Unlisted int

	// Field is FieldFiles when the list refused is of files; empty for
	// folders.
	Field string
	// Also is the refusal of the other list given in the same call (the
	// files given with these folders), whose entries are in Problems too.
	Also *FolderError

	// overBytes is set when the list was refused unread for the bytes of
	// its paths rather than for its length.
	overBytes bool
}

// fieldName is the list's name in JSON.
func (e *FolderError) fieldName() string {
	if e.Field == proto.FieldFiles {
		return proto.FieldFiles
	}
	return "additionalDirectories"
}

// noun is what the list holds, for the count lines.
func (e *FolderError) noun() string {
	if e.Field == proto.FieldFiles {
		return "files"
	}
	return "folders"
}

// Fields names the lists the refusal is about: "additionalDirectories",
// "additionalFiles", or both joined with " and ".
func (e *FolderError) Fields() string {
	if e.Also != nil {
		return e.fieldName() + " and " + e.Also.fieldName()
	}
	return e.fieldName()
}

// JoinRefusals returns one refusal naming the bad entries of both a folder
// list and a file list given in the same call, or whichever of the two is
// not nil. Either may be nil.
func JoinRefusals(folders, files *FolderError) *FolderError {
	switch {
	case folders == nil:
		return files
	case files == nil:
		return folders
	}
	j := *folders
	j.Problems = append(append([]proto.FolderProblem(nil), folders.Problems...), files.Problems...)
	j.Unlisted += files.Unlisted
	j.Also = files
	return &j
}

// Code returns the JSON-RPC error code of the refusal, -32602.
func (e *FolderError) Code() int { return proto.CodeInvalidParams }

// Error spells out the refusal on several lines: a header, then one line per
// bad entry with its index, its text as given and the reason.
func (e *FolderError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "invalid params (%d): %s refused", proto.CodeInvalidParams, e.Fields())
	e.countLine(&b)
	if e.Also != nil {
		e.Also.countLine(&b)
	}
	for _, p := range e.Problems {
		// Where both lists are refused, each entry says which it is in.
		list := ""
		if e.Also != nil {
			list = "additionalDirectories"
			if p.Field == proto.FieldFiles {
				list = proto.FieldFiles
			}
		}
		fmt.Fprintf(&b, "\n  %s[%d] %s: %s", list, p.Index, quotePath(p.Path), p.Reason)
	}
	if e.Unlisted > 0 {
		fmt.Fprintf(&b, "\n  … and %d more bad entries", e.Unlisted)
	}
	return b.String()
}

// countLine says, when the list was refused for its length, how long it was.
func (e *FolderError) countLine(b *strings.Builder) {
	noun := e.noun()
	switch {
	case e.overBytes:
		fmt.Fprintf(b, "\n  %d %s given, with more than %d bytes of paths in all; at most %d %s allowed", e.Count, noun, maxGivenBytes, MaxFolders, noun)
	case e.TooMany && (e.Kept == 0 || e.Kept == e.Count):
		fmt.Fprintf(b, "\n  %d %s given, at most %d allowed", e.Count, noun, MaxFolders)
	case e.TooMany:
		fmt.Fprintf(b, "\n  %d %s given, %d distinct, at most %d allowed", e.Count, noun, e.Kept, MaxFolders)
	}
}

// RPCError returns the refusal as a JSON-RPC error object: code, message and
// data.entries with every listed bad entry.
func (e *FolderError) RPCError() json.RawMessage {
	type data struct {
		Count    int                   `json:"count"`
		Kept     int                   `json:"kept,omitempty"`
		Max      int                   `json:"max"`
		Entries  []proto.FolderProblem `json:"entries"`
		Unlisted int                   `json:"unlisted,omitempty"`
	}
	entries := e.Problems
	if entries == nil {
		entries = []proto.FolderProblem{}
	}
	out, _ := json.Marshal(struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
		Data    data   `json:"data"`
	}{proto.CodeInvalidParams, "Invalid params: " + e.Fields(), data{e.Count, e.Kept, MaxFolders, entries, e.Unlisted}})
	return out
}

func (e *FolderError) add(i int, given, reason string) {
	if len(e.Problems) >= maxListedProblems {
		e.Unlisted++
		return
	}
	e.Problems = append(e.Problems, proto.FolderProblem{Index: i, Path: clip(given), Reason: reason, Field: e.Field})
}

// clip keeps a hostile 1 MB entry from turning into a 1 MB error message.
func clip(s string) string {
	keep := 200
	if len(s) <= keep {
		return s
	}
	for keep > 0 && !utf8.RuneStart(s[keep]) {
		keep--
	}
	return s[:keep] + fmt.Sprintf("…(%d bytes)", len(s))
}

func quotePath(p string) string {
	if strings.ContainsAny(p, "\"\\\x00\n\t") || strings.ContainsFunc(p, func(r rune) bool { return r < 0x20 }) || !utf8.ValidString(p) {
		return fmt.Sprintf("%q", p)
	}
	return `"` + p + `"`
}

// AsFolderError reports whether err is (or wraps) a folder refusal.
func AsFolderError(err error) (*FolderError, bool) {
	var fe *FolderError
	ok := errors.As(err, &fe)
	return fe, ok
}

// PathSyntaxProblem says what is wrong with p as an absolute path, checked
// without the file system ("contains a NUL byte", "not an absolute path",
// ...), or "" when nothing is: the first reason a user should read.
func PathSyntaxProblem(p string) string { return syntaxProblem(p) }

// syntaxProblem checks what can be checked without the file system.
func syntaxProblem(p string) string {
	switch {
	case p == "":
		return "empty path"
	case strings.IndexByte(p, 0) >= 0:
		return "contains a NUL byte"
	case len(p) > maxPathBytes:
		return fmt.Sprintf("path is %d bytes, longer than the system allows (%d)", len(p), maxPathBytes)
	case !utf8.ValidString(p):
		// A chat file is TOML and the ACP field is JSON: neither can hold it.
		return "not valid UTF-8"
	case !filepath.IsAbs(p):
		return "not an absolute path"
	}
	return ""
}

// Canonical returns the symlink-resolved, clean form of an absolute path to an
// existing directory, or the reason it is not one.
func Canonical(p string) (string, error) { return canonicalOf(p, notADirectory) }

func notADirectory(mode fs.FileMode) string {
	if !mode.IsDir() {
		return "not a directory"
	}
	return ""
}

// canonicalOf resolves p, an absolute path, to its symlink-resolved clean
// form, refusing it with kindProblem's reason when what it names is not of
// the kind wanted (a folder, or a regular file).
func canonicalOf(p string, kindProblem func(fs.FileMode) string) (string, error) {
	if reason := syntaxProblem(p); reason != "" {
		return "", errors.New(reason)
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return "", errors.New(existenceReason(p, err))
	}
	info, err := os.Stat(real)
	if err != nil {
		return "", errors.New(existenceReason(p, err))
	}
	if reason := kindProblem(info.Mode()); reason != "" {
		return "", errors.New(reason)
	}
	// EvalSymlinks drops a ".." or "." after a regular file lexically; the
	// kernel refuses "file/..", and so does the validator.
	if real != filepath.Clean(p) {
		if _, err := os.Stat(p); err != nil {
			return "", errors.New(existenceReason(p, err))
		}
	}
	return filepath.Clean(real), nil
}

func existenceReason(p string, err error) string {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if lfi, lerr := os.Lstat(filepath.Clean(p)); lerr == nil && lfi.Mode()&fs.ModeSymlink != 0 {
			return "dangling symlink: its target does not exist"
		}
		return "does not exist"
	case errors.Is(err, fs.ErrPermission):
		return "permission denied"
	case strings.Contains(err.Error(), "not a directory"):
		return "does not exist (a parent is not a directory)"
	case strings.Contains(err.Error(), "too many links"):
		return "symlink loop"
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// ValidateFolders is the one folder validator behind every entry point: launch
// flags, new, add-dir, the folder picker, imports and protocol endpoints. Given
// the chat's own folder and the folders as given, it returns their canonical
// forms in order, each listed once (first place kept), or a *FolderError naming
// every bad entry. The chat's own folder is compared canonically, so a symlink
// to it is caught too. At most MaxFolders distinct folders are kept; a refusal
// for too many still names every bad entry. A list longer than
// maxGivenFolders is refused before any file-system call, so hostile input
// stays cheap. Folders under /proc and /sys are refused (OffLimits). Where
// the agent home is known, use Store.ValidateFolders, which also refuses the
// agent home and everything inside it.
func ValidateFolders(cwd string, dirs []string) ([]string, error) {
	return validateFolders("", cwd, dirs)
}

// ValidateFolders is the one folder validator (the package's
// ValidateFolders) with the agent home's rule: the agent home and anything
// inside it is refused, so an agent given such a folder could never reach
// the chat files or the socket (a chat's own home folder is its cwd, never
// one of its folders).
func (s *Store) ValidateFolders(cwd string, dirs []string) ([]string, error) {
	return validateFolders(s.home, cwd, dirs)
}

// ValidateFoldersNoRepeats is ValidateFolders for an endpoint whose
// protocol refuses a repeated entry rather than listing it once (the ACP
// door's session/new): an entry that is the same folder as an earlier one
// after canonicalisation is a bad entry too, named with the others.
func (s *Store) ValidateFoldersNoRepeats(cwd string, dirs []string) ([]string, error) {
	return validateList(s.home, cwd, dirs, "", true)
}

func validateFolders(home, cwd string, dirs []string) ([]string, error) {
	return validateList(home, cwd, dirs, "", false)
}

// validateList is the validator of both lists: folders (field "") and
// single files (field FieldFiles). The rules are the same but for what an
// entry must be (a directory, or a regular file) and that a file can never
// be the chat's own folder (a file inside it is fine). With noRepeats, an
// entry that is the same as an earlier one is refused instead of dropped.
func validateList(home, cwd string, dirs []string, field string, noRepeats bool) ([]string, error) {
	ferr := &FolderError{Count: len(dirs), Field: field}
	if len(dirs) > maxGivenFolders || pathBytes(dirs) > maxGivenBytes {
		ferr.TooMany, ferr.overBytes = true, len(dirs) <= maxGivenFolders
		for i, d := range dirs {
			if reason := syntaxProblem(d); reason != "" {
				ferr.add(i, d, reason)
			}
		}
		return nil, ferr
	}
	canonical := Canonical
	if field == proto.FieldFiles {
		canonical = CanonicalFile
	}
	own := canonicalOwn(cwd)
	agentHome := canonicalOwn(home)
	out := make([]string, 0, min(len(dirs), MaxFolders))
	seen := make(map[string]int, len(dirs)) // canonical → index of its first entry
	// An entry given twice, byte for byte, is resolved once.
	type resolved struct {
		canonical string
		err       error
		// offLimits is why the agent home's rule refuses it (OffLimits).
		offLimits string
	}
	asked := make(map[string]resolved, len(dirs))
	for i, d := range dirs {
		r, ok := asked[d]
		if !ok {
			r.canonical, r.err = canonical(d)
			if r.err == nil {
				r.offLimits = OffLimits(agentHome, "", r.canonical)
			}
			asked[d] = r
		}
		switch c := r.canonical; {
		case r.err != nil:
			ferr.add(i, d, r.err.Error())
		case c == own:
			ferr.add(i, d, "is the chat's own folder")
		case r.offLimits != "":
			ferr.add(i, d, r.offLimits)
		case seenAt(seen, c) >= 0 && noRepeats:
			ferr.add(i, d, fmt.Sprintf("is the same folder as entry %d", seen[c]))
		case seenAt(seen, c) >= 0:
			// The same entry spelt another way: listed once, first place kept.
		default:
			seen[c] = i
			out = append(out, c)
		}
	}
	ferr.Kept = len(out)
	ferr.TooMany = len(out) > MaxFolders
	if ferr.TooMany || len(ferr.Problems) > 0 || ferr.Unlisted > 0 {
		return nil, ferr
	}
	return out, nil
}

// seenAt is the index of c's first entry, -1 when it has none.
func seenAt(seen map[string]int, c string) int {
	if i, ok := seen[c]; ok {
		return i
	}
	return -1
}

// IsWithin reports whether p lies below root, component by component
// (/a/bc is not inside /a/b); both are clean absolute paths.
func IsWithin(root, p string) bool {
	if len(p) <= len(root) || !strings.HasPrefix(p, root) {
		return false
	}
	if strings.HasSuffix(root, "/") {
		return true // the root folder: p is longer, so below it
	}
	return p[len(root)] == '/' && len(p) > len(root)+1
}

// pathBytes adds up the lengths of the entries the file system would be
// asked about (one longer than maxPathBytes is refused unasked), stopping
// once past maxGivenBytes. MaxFolders entries never pass the bound.
func pathBytes(dirs []string) int {
	n := 0
	for _, d := range dirs {
		if len(d) > maxPathBytes {
			continue
		}
		if n += len(d); n > maxGivenBytes {
			break
		}
	}
	return n
}

// canonicalOwn resolves the chat's own folder; a folder that cannot be
// resolved is still compared in its clean form.
func canonicalOwn(cwd string) string {
	if cwd == "" {
		return ""
	}
	if c, err := Canonical(cwd); err == nil {
		return c
	}
	return filepath.Clean(cwd)
}

// CheckStoredFolders checks a chat's stored folders again before a start. It
// returns the folders that are no longer usable (gone, not a directory, or
// resolving to somewhere else now) with the reason for each; an empty result
// means the start may go ahead with the stored list as it is.
func CheckStoredFolders(cwd string, dirs []string) []proto.FolderProblem {
	var bad []proto.FolderProblem
	own := canonicalOwn(cwd)
	for i, d := range dirs {
		c, err := Canonical(d)
		switch {
		case err != nil:
			bad = append(bad, proto.FolderProblem{Index: i, Path: d, Reason: err.Error()})
		case c == own:
			bad = append(bad, proto.FolderProblem{Index: i, Path: d, Reason: "now resolves to the chat's own folder"})
		case c != filepath.Clean(d):
			bad = append(bad, proto.FolderProblem{Index: i, Path: d, Reason: "now resolves to " + quotePath(c)})
		}
	}
	return bad
}

// CanonicalOr is the canonical form of a folder, or the folder as given
// when it cannot be resolved.
func CanonicalOr(dir string) string {
	if c, err := Canonical(dir); err == nil {
		return c
	}
	return dir
}
