package sessions

import (
	"crypto/sha256"
	"errors"
	"io/fs"
	"os"
)

// FileSum is what a chat file holds, as List would read it, in a form that
// is compared: the SHA-256 of its bytes, or of the reason it cannot be read
// (a symbolic link, a FIFO, over the size limit). Watchers of the chats
// folder compare it to tell a real change from a write of the same bytes.
type FileSum [sha256.Size]byte

// ChatFileSum returns what chat id's file holds now, and false when there
// is no such file. It reads with List's limits: a link is never followed
// and a FIFO never opened for reading.
func (s *Store) ChatFileSum(id string) (FileSum, bool) {
	path := s.ChatPath(id)
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return FileSum{}, false
	}
	if err != nil {
		return sha256.Sum256([]byte("error: " + err.Error())), true
	}
	data, _, err := openChatFile(path, fi.Mode().Type())
	if errors.Is(err, fs.ErrNotExist) {
		return FileSum{}, false
	}
	if err != nil {
		return sha256.Sum256([]byte("error: " + err.Error())), true
	}
	return sha256.Sum256(data), true
}
