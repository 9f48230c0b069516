package main

import (
	"bufio"
	"io"
	"os"
)

// init takes the process over before the SDK starts when
// ACPMUX_FAKE_INIT asks for an agent that never gets through initialize:
//
//	mute  read stdin to its end and never answer
//	exit  read the initialize request, write two stderr lines (one with
//	      escape sequences and control characters), exit with status 3
func init() {
	switch os.Getenv("ACPMUX_FAKE_INIT") {
	case "mute":
		logf("acpfake: mute: never answering initialize")
		_, _ = io.Copy(io.Discard, os.Stdin)
		os.Exit(0)
	case "exit":
		_, _ = bufio.NewReader(os.Stdin).ReadString('\n')
		logf("acpfake: reading the config")
		logf("\x1b[31mfatal:\x1b[0m no config\a\u009b found\r")
		os.Exit(3)
	}
}
