package client

import "github.com/acpmux/acpmux-tui/proto"

// This file is how the TUI moves a chat between homes over the wire: the
// server writes and reads the bundles (it owns the chats and the guard),
// the Remote only asks. As with the Remote's other calls, an error is the
// server's own sentence ("import refused: …"), which names what it did.

// Export has the server write chat id's bundle to path (absolute), and
// returns its report.
func (r *Remote) Export(id, path string) (proto.ExportReport, error) {
	var rep proto.ExportReport
	if err := r.call(proto.MethodExport, proto.ExportParams{ID: id, Path: path}, &rep); err != nil {
		return proto.ExportReport{}, err
	}
	return rep, nil
}

// Import has the server add a chat from the bundle at path (absolute),
// keeping its folders only inside roots; with dryRun it writes nothing and
// the report says what an import would keep and drop.
func (r *Remote) Import(path string, roots []string, dryRun bool) (proto.ImportReport, error) {
	var rep proto.ImportReport
	if roots == nil {
		roots = []string{}
	}
	if err := r.call(proto.MethodImport, proto.ImportParams{Path: path, Roots: roots, DryRun: dryRun}, &rep); err != nil {
		return proto.ImportReport{}, err
	}
	return rep, nil
}
