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
	sum, _, ok := s.chatFileRead(id, false)
	return sum, ok
}

// ChatFileSumMeta is ChatFileSum that also returns the chat the file
// holds, as Load would read it, from the same read (nil when Load would
// fail): the server's chat-file watch needs both of each file it looks at.
func (s *Store) ChatFileSumMeta(id string) (FileSum, *Meta, bool) {
	return s.chatFileRead(id, true)
}

func (s *Store) chatFileRead(id string, parse bool) (FileSum, *Meta, bool) {
	path := s.ChatPath(id)
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return FileSum{}, nil, false
	}
	if err != nil {
		return sha256.Sum256([]byte("error: " + err.Error())), nil, true
	}
	data, _, err := openChatFile(pathFile(path), fi.Mode().Type(), nil)
	if errors.Is(err, fs.ErrNotExist) {
		return FileSum{}, nil, false
	}
	if err != nil {
		return sha256.Sum256([]byte("error: " + err.Error())), nil, true
	}
	var meta *Meta
	if parse && ValidID(id) {
		if m, err := ParseMeta(data); err == nil && checkFileID(id, m) == nil {
			meta = m
		}
	}
	return sha256.Sum256(data), meta, true
}
