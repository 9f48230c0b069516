package mux

// awaitExit returns at once: darwin has no pidfd, so Wait blocks a thread
// for the child's life, as on a Linux too old to poll one.
func awaitExit(int) {}
