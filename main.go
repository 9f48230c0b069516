// Command acpmux-tui is a terminal session manager for AI coding agents. This
// file holds flag parsing and the subcommands only (a chat command's flags
// make one options struct for one run function, whichever host it runs
// on); the work is done by the chat service (chatsvc) and the sessions,
// config, harness and mux packages.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"

	// `acpmux-tui hook` runs and exits in this package's init, before the
	// inits of the TUI's libraries (tens of milliseconds), which a harness
	// would wait for at every tool call.
	_ "github.com/acpmux/acpmux-tui/internal/hookearly"
	_ "github.com/acpmux/acpmux-tui/internal/sandboxearly"
	// Keeps bubbletea's init from asking the terminal for its background
	// in every command (ls in a terminal waited for the answer).
	_ "github.com/acpmux/acpmux-tui/internal/quietterm"
	"github.com/acpmux/acpmux-tui/sessions"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "0.1.0-dev"

// Exit statuses.
const (
	exitOK    = 0
	exitError = 1
	exitUsage = 2 // bad usage or refused input (-32602)
)

func main() {
	stop := startCPUProfile(os.Getenv(envCPUProfile))
	stopTrace := startTrace(os.Getenv(envTrace))
	if os.Getenv(envHeapProfile) != "" {
		runtime.MemProfileRate = 4096 // every few pages, not every 512 KiB
	} else {
		// No one reads the heap profile: sampling would only walk stacks
		// and fill the runtime's profile buckets, for the life of a
		// long-lived server or TUI.
		runtime.MemProfileRate = 0
	}
	code := run(os.Args[1:], os.Stdout, os.Stderr)
	stopTrace()
	stop()
	writeHeapProfile(os.Getenv(envHeapProfile))
	os.Exit(code)
}

// usageError is bad command-line usage: printed with a hint, exit status 2.
// When flags is set (a flag the command does not take, a flag without its
// value), the command's usage follows the error, once.
type usageError struct {
	msg   string
	flags *flag.FlagSet
}

func (e usageError) Error() string { return e.msg }

// helpError is -h or --help: the command's usage goes to stdout, exit 0.
type helpError struct{ flags *flag.FlagSet }

func (e helpError) Error() string { return "help requested" }

func usagef(format string, args ...any) error {
	return usageError{msg: fmt.Sprintf(format, args...)}
}

type command struct {
	name, args, help string
	run              func(a *app, args []string) error
}

func commands() []command {
	return []command{
		{"new", "[--dir DIR]... [--file FILE]... [--cwd DIR] [--harness NAME] [--name NAME] [--worktree [--base REF]] [--sandbox[=false]] [--host NAME] [--json]", "create a chat", cmdNew},
		{"ls", "[--host NAME] [--json]", "list chats", cmdLs},
		{"show", "ID [--host NAME] [--json]", "show one chat", cmdShow},
		{"add-dir", "ID DIR... [--host NAME]", "add folders to a chat", cmdAddDir},
		{"rm-dir", "ID DIR... [--host NAME]", "remove folders from a chat", cmdRmDir},
		{"add-file", "ID FILE...", "add single files to a chat", cmdAddFile},
		{"rm-file", "ID FILE...", "remove single files from a chat", cmdRmFile},
		{"fork", "ID [--cwd DIR] [--worktree[=false]] [--sandbox[=false]] [--host NAME] [--json]", "fork a chat: same folders, the conversation so far", cmdFork},
		{"side", "ID [--host NAME] [--json]", "a side chat: same folders, a fresh conversation", cmdSide},
		{"handoff", "ID --to HARNESS [--edit] [--host NAME] [--json]", "hand a chat off to another harness, with its folders and a capsule of what was said", cmdHandoff},
		{"rm", "ID [--force] [--delete-branch] [--host NAME]", "delete a chat (never its project folder)", cmdRm},
		{"rename", "ID NAME", "give a chat a new name", cmdRename},
		{"diff", "ID [--stat] [--json] [--base REF|--parent]", "what a chat changed: its folder since its base, and each added folder", cmdDiff},
		{"commit", "ID [-m MESSAGE] [--host NAME] [--json]", "commit everything in a worktree chat's worktree on its branch", cmdCommit},
		{"push", "ID [--host NAME] [--json]", "push a worktree chat's branch to its upstream, else to origin", cmdPush},
		{"merge", "ID [--host NAME] [--json]", "merge a worktree chat's branch into the branch it came from (refused on a conflict)", cmdMerge},
		{"export", "ID [-o FILE|-]", "write a chat's bundle (its file and conversation) to move it to another home or machine", cmdExport},
		{"import", "FILE|- --root DIR [--root DIR]... [--dry-run] [--json]", "add a bundle's chat here, keeping only the folders inside the roots", cmdImport},
		{"attach", "ID [--host NAME]", "run a chat's harness in this terminal (ctrl+] detaches)", cmdAttach},
		{"prompt", "ID TEXT [--link FILE]... [--host NAME]", "send one prompt to an ACP chat and print the reply", cmdPrompt},
		{"set", "ID [OPTION VALUE] [--host NAME] [--json]", "show or set an ACP chat's mode or a config option (model...) through its agent", cmdSet},
		{"sign-in", "ID [METHOD] [--host NAME] [--json]", "sign in to a failed ACP chat's agent with a way it offered (show lists them)", cmdSignIn},
		{"search", "WORDS [--host NAME] [--json]", "find chats whose name, title, folders, conversation or screen hold every word", cmdSearch},
		{"acp", "[--harness NAME]", "an ACP agent on stdin/stdout, backed by the server (for Zed, acpx...)", cmdACP},
		{"web", "[--listen ADDR] [--new-token] [--json]", "open the web door and print the page's address with its token", cmdWeb},
		{"proxy", "", "stdin/stdout bridged to the server's socket, starting it (what ssh runs for --host)", cmdProxy},
		{"usage", "[--host NAME] [--json]", "context and cost per chat, summed per harness, per host and in all", cmdUsage},
		{"hosts", "[--json] | install NAME", "list the [host.NAME] entries and whether each answers; install copies this binary to one", cmdHosts},
		{"harnesses", "[--json]", "list the harness table and which harnesses are installed", cmdHarnesses},
		{"version", "[--json]", "print the version (also acpmux-tui --version)", cmdVersion},
		{"server", "[--ready-fd N]", "run the server in the foreground", cmdServer},
		{"kill-server", "[--host NAME]", "stop the server and every harness it runs", cmdKillServer},
		{"doctor", "[--json]", "check the config, harnesses, server, sandbox and hosts: each ok, warn or fail, with the fix", cmdDoctor},
		{"service", "install|uninstall|status [--dry-run]", "the systemd user units that start the server on the first connection (socket activation)", cmdService},
	}
}

func run(args []string, stdout, stderr io.Writer) int {
	a := &app{stdout: stdout, stderr: stderr, getenv: os.Getenv}
	err := dispatch(a, args)
	if err == nil {
		return exitOK
	}
	var he helpError
	if errors.As(err, &he) {
		printCommandUsage(stdout, he.flags)
		return exitOK
	}
	fmt.Fprintln(stderr, "acpmux-tui:", err)
	var ue usageError
	switch {
	case errors.As(err, &ue):
		if ue.flags != nil {
			printCommandUsage(stderr, ue.flags)
		}
		return exitUsage
	case isRefusal(err):
		return exitUsage
	}
	return exitError
}

func dispatch(a *app, args []string) error {
	if len(args) > 0 && (args[0] == "--version" || args[0] == "-version") {
		return cmdVersion(a, args[1:])
	}
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		for _, c := range commands() {
			if c.name == args[0] {
				return c.run(a, args[1:])
			}
		}
		if args[0] == "help" {
			printUsage(a.stdout)
			return nil
		}
		return usagef("unknown command %q (try acpmux-tui help)", args[0])
	}
	return cmdLaunch(a, args)
}

func printUsage(w io.Writer) {
	fmt.Fprintln(w, "usage: acpmux-tui [--dir DIR]... [--file FILE]... [--cwd DIR] [--harness NAME] [--name NAME]")
	fmt.Fprintln(w, "       acpmux-tui COMMAND [ARGS]")
	fmt.Fprintln(w, "\ncommands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-12s %s\n", c.name, c.help)
		if c.args != "" {
			fmt.Fprintf(w, "  %-12s   acpmux-tui %s %s\n", "", c.name, c.args)
		}
	}
}

// printCommandUsage prints a command's usage and its flags, each in the
// --flag form: the whole list of commands for the bare command.
func printCommandUsage(w io.Writer, fs *flag.FlagSet) {
	if fs.Name() == "acpmux-tui" {
		printUsage(w)
		fmt.Fprintln(w, "\nflags (they create a chat, then open the TUI on it):")
	} else {
		for _, c := range commands() {
			if c.name == fs.Name() {
				fmt.Fprintf(w, "usage: %s\n\n%s\n", strings.TrimSpace("acpmux-tui "+c.name+" "+c.args), c.help)
			}
		}
		n := 0
		fs.VisitAll(func(*flag.Flag) { n++ })
		if n == 0 {
			return
		}
		fmt.Fprintln(w, "\nflags:")
	}
	fs.VisitAll(func(f *flag.Flag) {
		arg := ""
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); !ok || !b.IsBoolFlag() {
			arg = " " + flagArg(f.Name)
		}
		dash := "--"
		if len(f.Name) == 1 {
			dash = "-" // -o FILE
		}
		fmt.Fprintf(w, "  %-18s %s\n", dash+f.Name+arg, f.Usage)
	})
}

// flagArg is what a flag's value is called in the usage: --dir DIR.
func flagArg(name string) string {
	switch name {
	case "dir", "cwd", "root":
		return "DIR"
	case "o":
		return "FILE"
	case "m":
		return "MESSAGE"
	case "to":
		return "HARNESS"
	case "harness", "host":
		return "NAME"
	case "ready-fd":
		return "FD"
	}
	return strings.ToUpper(name)
}

// newFlags returns a flag set that reports its errors instead of exiting,
// and prints nothing itself: run prints the error once, and the usage.
func newFlags(a *app, name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

// flagError says what the flag package refused in the --flag form users
// type: "unknown flag --bogus", "flag --dir needs an argument".
func flagError(err error) string {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		return "unknown flag --" + name
	}
	if name, ok := strings.CutPrefix(msg, "flag needs an argument: -"); ok {
		return "flag --" + name + " needs an argument"
	}
	return strings.Replace(msg, " flag -", " flag --", 1)
}

// parseInterleaved parses flags that may come before, between or after the
// positional arguments (`show ID --json`), and returns the positionals.
// Everything after "--" is positional.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, helpError{fs}
			}
			return nil, usageError{flagError(err), fs}
		}
		rest := fs.Args()
		consumed := len(args) - len(rest)
		if consumed > 0 && args[consumed-1] == "--" {
			return append(pos, rest...), nil
		}
		if len(rest) == 0 {
			return pos, nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// stringList is a repeatable string flag (--dir A --dir B).
type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, ",") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }

// chatFlags are the flags that describe a new chat, shared by the bare
// command and `new`.
type chatFlags struct {
	dirs    stringList
	files   stringList
	cwd     string
	harness string
	name    string
	// worktree is --worktree: a git worktree of the chat's own; unset
	// takes the config's default.
	worktree optBool
	base     string
	// sandbox is --sandbox: the chat writes only in its folders (Landlock);
	// unset takes the config's default.
	sandbox optBool
}

func (c *chatFlags) register(fs *flag.FlagSet) {
	fs.Var(&c.dirs, "dir", "an additional folder the chat can see (repeat for more)")
	fs.Var(&c.files, "file", "a single file the chat can see and edit (repeat for more)")
	fs.StringVar(&c.cwd, "cwd", "", "the chat's project folder (default: none, an empty folder of its own)")
	fs.StringVar(&c.harness, "harness", "", "the harness to run (see acpmux-tui harnesses)")
	fs.StringVar(&c.name, "name", "", "the chat's name")
	fs.Var(&c.worktree, "worktree", "give the chat a git worktree of its own, on a new branch (default: the config's worktree setting)")
	fs.StringVar(&c.base, "base", "", "with --worktree: the ref the worktree's branch starts from (default: HEAD)")
	fs.Var(&c.sandbox, "sandbox", "start the chat's harness sandboxed: it writes only in its folders and files (Landlock; default: the config's sandbox setting)")
}

func (c *chatFlags) any() bool {
	return len(c.dirs) > 0 || len(c.files) > 0 || c.cwd != "" || c.harness != "" || c.name != "" || c.worktree.set || c.base != "" || c.sandbox.set
}

// optBool is a boolean flag that knows whether it was given.
type optBool struct{ v, set bool }

func (b *optBool) String() string   { return strconv.FormatBool(b.v) }
func (b *optBool) IsBoolFlag() bool { return true }
func (b *optBool) Set(s string) error {
	v, err := strconv.ParseBool(s)
	if err != nil {
		return err
	}
	b.v, b.set = v, true
	return nil
}

// cmdLaunch is the bare command: it opens the TUI. With chat flags it first
// creates the chat they describe (validated before the screen opens, so a
// refusal exits 2) and opens the TUI on it with its harness started.
func cmdLaunch(a *app, args []string) error {
	fs := newFlags(a, "acpmux-tui")
	var cf chatFlags
	cf.register(fs)
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("unexpected argument %q", pos[0])
	}
	if !cf.any() {
		return a.launch(nil)
	}
	e, err := a.createChat(cf)
	if err != nil {
		return err
	}
	return a.launch(&e)
}

func cmdNew(a *app, args []string) error {
	fs := newFlags(a, "new")
	var cf chatFlags
	cf.register(fs)
	host := hostFlag(fs)
	asJSON := fs.Bool("json", false, "print the chat as JSON")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("new: unexpected argument %q", pos[0])
	}
	return newRun(a, newOptions{chat: cf, host: *host, asJSON: *asJSON})
}

func cmdLs(a *app, args []string) error {
	fs := newFlags(a, "ls")
	asJSON := fs.Bool("json", false, "print an array of chats as JSON")
	host := hostFlag(fs)
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("ls: unexpected argument %q", pos[0])
	}
	if err := a.openDespiteConfig(); err != nil {
		return err
	}
	if *host != "" {
		return a.onHost(*host, func(on *hostLink) error { return on.list(a, *asJSON) })
	}
	return a.list(*asJSON)
}

func cmdShow(a *app, args []string) error {
	fs := newFlags(a, "show")
	asJSON := fs.Bool("json", false, "print the chat as JSON")
	host := hostFlag(fs)
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("usage: acpmux-tui show ID [--host NAME] [--json]")
	}
	if err := a.openDespiteConfig(); err != nil {
		return err
	}
	if *host != "" {
		return a.onHost(*host, func(on *hostLink) error { return on.show(a, pos[0], *asJSON) })
	}
	e, err := a.resolve(pos[0])
	if err != nil {
		return err
	}
	if e.Broken != nil {
		// A broken file is an error (exit 1); --json still prints the
		// object, with its broken field, for scripts.
		if *asJSON {
			if err := a.printChat(e, true); err != nil {
				return err
			}
		}
		return fmt.Errorf("%w (the file is left as it is: fix or move it by hand)", e.Broken)
	}
	return a.printChat(e, *asJSON)
}

func cmdAddDir(a *app, args []string) error {
	fs := newFlags(a, "add-dir")
	host := hostFlag(fs)
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) < 2 {
		return usagef("usage: acpmux-tui add-dir ID DIR... [--host NAME]")
	}
	return foldersRun(a, foldersOptions{ref: pos[0], dirs: pos[1:], host: *host})
}

func cmdRmDir(a *app, args []string) error {
	fs := newFlags(a, "rm-dir")
	host := hostFlag(fs)
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) < 2 {
		return usagef("usage: acpmux-tui rm-dir ID DIR... [--host NAME]")
	}
	return foldersRun(a, foldersOptions{ref: pos[0], dirs: pos[1:], remove: true, host: *host})
}

func cmdAddFile(a *app, args []string) error {
	pos, err := parseInterleaved(newFlags(a, "add-file"), args)
	if err != nil {
		return err
	}
	if len(pos) < 2 {
		return usagef("usage: acpmux-tui add-file ID FILE...")
	}
	return filesRun(a, filesOptions{ref: pos[0], files: pos[1:]})
}

func cmdRmFile(a *app, args []string) error {
	pos, err := parseInterleaved(newFlags(a, "rm-file"), args)
	if err != nil {
		return err
	}
	if len(pos) < 2 {
		return usagef("usage: acpmux-tui rm-file ID FILE...")
	}
	return filesRun(a, filesOptions{ref: pos[0], files: pos[1:], remove: true})
}

func cmdFork(a *app, args []string) error {
	fs := newFlags(a, "fork")
	cwd := fs.String("cwd", "", "the fork's project folder (default: the parent's)")
	var wt, sb optBool
	fs.Var(&wt, "worktree", "give the fork a git worktree of its own (default: when the parent has one), with the parent's uncommitted work")
	fs.Var(&sb, "sandbox", "sandbox the fork, or with =false not (default: as its parent)")
	asJSON := fs.Bool("json", false, "print the new chat as JSON")
	host := hostFlag(fs)
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("usage: acpmux-tui fork ID [--cwd DIR] [--worktree] [--sandbox[=false]] [--host NAME] [--json]")
	}
	if wt.v && *cwd != "" {
		return usagef("fork: --worktree and --cwd do not go together (the worktree is the fork's folder)")
	}
	d := sessions.Derivation{Origin: sessions.OriginFork, Cwd: *cwd}
	if wt.set {
		d.Worktree = &wt.v
	}
	if sb.set {
		d.Sandbox = &sb.v
	}
	return deriveRun(a, deriveOptions{ref: pos[0], d: d, host: *host, asJSON: *asJSON})
}

func cmdSide(a *app, args []string) error {
	fs := newFlags(a, "side")
	asJSON := fs.Bool("json", false, "print the new chat as JSON")
	host := hostFlag(fs)
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("usage: acpmux-tui side ID [--host NAME] [--json]")
	}
	d := sessions.Derivation{Origin: sessions.OriginSide}
	return deriveRun(a, deriveOptions{ref: pos[0], d: d, host: *host, asJSON: *asJSON})
}

func cmdHandoff(a *app, args []string) error {
	fs := newFlags(a, "handoff")
	to := fs.String("to", "", "the harness to hand the chat to")
	asJSON := fs.Bool("json", false, "print the new chat as JSON, with its capsule")
	edit := fs.Bool("edit", false, "edit the capsule in $EDITOR before the chat is made")
	host := hostFlag(fs)
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 || *to == "" {
		return usagef("usage: acpmux-tui handoff ID --to HARNESS [--edit] [--host NAME] [--json]")
	}
	// The capsule is written where the chat runs: a host's server writes
	// it from what it holds.
	d := sessions.Derivation{Origin: sessions.OriginHandoff, Harness: *to}
	return deriveRun(a, deriveOptions{ref: pos[0], d: d, host: *host, asJSON: *asJSON, edit: *edit})
}

func cmdRm(a *app, args []string) error {
	fs := newFlags(a, "rm")
	force := fs.Bool("force", false, "also delete a home folder that has files in it, or a worktree with uncommitted or unmerged work")
	deleteBranch := fs.Bool("delete-branch", false, "also delete a worktree chat's branch (kept by default)")
	host := hostFlag(fs)
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("usage: acpmux-tui rm ID [--force] [--delete-branch] [--host NAME]")
	}
	return removeRun(a, removeOptions{ref: pos[0], force: *force, deleteBranch: *deleteBranch, host: *host})
}

func cmdRename(a *app, args []string) error {
	pos, err := parseInterleaved(newFlags(a, "rename"), args)
	if err != nil {
		return err
	}
	if len(pos) < 2 {
		return usagef("usage: acpmux-tui rename ID NAME")
	}
	return renameRun(a, renameOptions{ref: pos[0], name: strings.Join(pos[1:], " ")})
}

func cmdAttach(a *app, args []string) error {
	fs := newFlags(a, "attach")
	host := hostFlag(fs)
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("usage: acpmux-tui attach ID [--host NAME]")
	}
	if *host != "" {
		return a.onHost(*host, func(on *hostLink) error { return on.attach(a, pos[0]) })
	}
	return a.attach(pos[0])
}

func cmdPrompt(a *app, args []string) error {
	fs := newFlags(a, "prompt")
	host := hostFlag(fs)
	var files stringList
	fs.Var(&files, "link", "a file the prompt links, sent as a resource_link after its text (repeat for more; with --host, a path of that host)")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) < 2 {
		return usagef("usage: acpmux-tui prompt ID TEXT [--link FILE]... [--host NAME]")
	}
	links, err := a.promptLinks(files, *host != "")
	if err != nil {
		return err
	}
	if *host != "" {
		return a.onHost(*host, func(on *hostLink) error { return on.prompt(a, pos[0], strings.Join(pos[1:], " "), links) })
	}
	return a.prompt(pos[0], strings.Join(pos[1:], " "), links)
}

func cmdHarnesses(a *app, args []string) error {
	fs := newFlags(a, "harnesses")
	asJSON := fs.Bool("json", false, "print the table as a JSON array")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("usage: acpmux-tui harnesses [--json]")
	}
	return a.harnesses(*asJSON)
}

// cmdVersion is `version` and `--version`.
func cmdVersion(a *app, args []string) error {
	fs := newFlags(a, "version")
	asJSON := fs.Bool("json", false, "print the version as a JSON object")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("usage: acpmux-tui version [--json]")
	}
	return a.printVersion(*asJSON)
}

// cmdExport is `export ID [-o FILE|-]` (export_cmd.go).
func cmdExport(a *app, args []string) error {
	fs := newFlags(a, "export")
	out := fs.String("o", "", "the bundle to write (default <name>-<id>.acpmux.tgz here; - for stdout)")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("usage: acpmux-tui export ID [-o FILE|-]")
	}
	return a.export(pos[0], *out)
}

// cmdImport is `import FILE|- --root DIR [--root DIR]... [--dry-run]
// [--json]` (import_cmd.go).
func cmdImport(a *app, args []string) error {
	fs := newFlags(a, "import")
	var roots stringList
	fs.Var(&roots, "root", "a folder the imported chat may see, with all inside it (repeat for more)")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	dryRun := fs.Bool("dry-run", false, "write nothing: say what would be kept and dropped")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("usage: acpmux-tui import FILE|- --root DIR [--root DIR]... [--json]")
	}
	if len(roots) == 0 {
		return usagef("import: at least one --root DIR is needed: the chat keeps only what lies inside the roots")
	}
	return a.importBundle(pos[0], a.absPaths(roots), *dryRun, *asJSON)
}
