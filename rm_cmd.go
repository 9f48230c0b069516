package main

import (
	"fmt"
	"os"

	"github.com/acpmux/acpmux-tui/client"
)

// remove deletes a chat (rm): a worktree chat's worktree first, refused
// while it holds work that would be lost unless force, its branch kept
// unless deleteBranch.
func (a *app) remove(ref string, force, deleteBranch bool) error {
	e, err := a.resolve(ref)
	if err != nil {
		return err
	}
	if e.Meta != nil {
		if err := a.refuseWorktreeRemoval(e.Meta, force); err != nil {
			return err
		}
	}
	// A chat a server runs is stopped first, on purpose, so it is not
	// started again; never for a removal that will be refused (a broken
	// file, a home folder with files and no --force), and no server is
	// started for it.
	files, _ := os.ReadDir(a.store.HomeDir(e.ID))
	if e.Meta != nil && (force || len(files) == 0) {
		if err := client.StopChat(a.store.Home(), e.ID); err != nil {
			return fmt.Errorf("remove chat %s: %w", e.ID, err)
		}
	}
	if e.Meta != nil && e.Meta.Worktree != nil {
		if err := removeWorktree(e.Meta, force, deleteBranch); err != nil {
			return err
		}
	}
	if err := a.store.Remove(e.ID, force); err != nil {
		return err
	}
	fmt.Fprintln(a.stdout, "removed", e.ID)
	return nil
}
