package main

import (
	"fmt"

	"github.com/acpmux/acpmux-tui/proto"
)

// removeOptions are rm's flags.
type removeOptions struct {
	ref                 string
	force, deleteBranch bool
	host                string
}

// removeRun deletes a chat on the target (chatsvc.Service.Remove): a
// worktree chat's worktree first, refused while it holds work that would
// be lost unless force, its branch kept unless deleteBranch. A chat a
// server runs is stopped first, on purpose, so it is not started again;
// never for a removal that will be refused.
func removeRun(a *app, o removeOptions) error {
	// A typo in the config does not stop a removal.
	if err := a.openDespiteConfig(); err != nil {
		return err
	}
	return a.onTarget(o.host, func(t *target) error {
		e, err := t.chats.Resolve(o.ref)
		if err != nil {
			return err
		}
		if _, err := t.chats.RemoveChat(proto.RemoveParams{ID: e.ID, Force: o.force, DeleteBranch: o.deleteBranch}); err != nil {
			return err
		}
		fmt.Fprintln(a.stdout, "removed", e.ID)
		return nil
	})
}
