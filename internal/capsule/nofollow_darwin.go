package capsule

import "syscall"

// noFollow refuses to open a symbolic link, and nonBlocking a FIFO left
// where a log should be: darwin has both flags, as Linux does.
const noFollow = syscall.O_NOFOLLOW | syscall.O_NONBLOCK
