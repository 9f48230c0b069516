// Command sockhold holds connections to the server's socket, for tests of
// who the server lets in and whom it believes. It is small on purpose: a
// test starts hundreds at once. Its modes:
//
//	crowd SOCKET WAIT  connect, make one _acpmux/hello call, write one line
//	                   to stdout — "held PID" once the call is answered
//	                   within WAIT (a Go duration), "refused PID: WHY"
//	                   otherwise — and keep the connection open, saying
//	                   nothing more, until stdin ends. A line under
//	                   PIPE_BUF is written whole: a crowd may share one
//	                   stdout pipe.
//	handoff SOCKET     connect, make one hello call, start `sockhold hold`
//	                   with the connection as its fd 3 and this process's
//	                   stdin and stdout, write "handed PID CHILD-PID", and
//	                   wait to be killed: the connection outlives the
//	                   process that made it.
//	hold               send each line of stdin on fd 3's connection and
//	                   write the line the server answers, until stdin ends.
package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"time"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	switch os.Args[1] {
	case "crowd":
		if len(os.Args) != 4 {
			usage()
		}
		crowd(os.Args[2], os.Args[3])
	case "handoff":
		if len(os.Args) != 3 {
			usage()
		}
		handoff(os.Args[2])
	case "hold":
		hold()
	default:
		usage()
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: sockhold crowd SOCKET WAIT | handoff SOCKET | hold")
	os.Exit(2)
}

func crowd(socket, waitFor string) {
	wait, err := time.ParseDuration(waitFor)
	if err != nil {
		fmt.Fprintln(os.Stderr, "sockhold:", err)
		os.Exit(2)
	}
	nc, why := hello(socket, wait)
	if why != "" {
		fmt.Printf("refused %d: %s\n", os.Getpid(), why)
	} else {
		fmt.Printf("held %d\n", os.Getpid())
	}
	io.Copy(io.Discard, os.Stdin)
	if nc != nil {
		nc.Close()
	}
}

func handoff(socket string) {
	nc, why := hello(socket, time.Minute)
	if why != "" {
		fmt.Printf("failed: %s\n", why)
		os.Exit(1)
	}
	f, err := nc.(*net.UnixConn).File()
	if err != nil {
		fmt.Printf("failed: %v\n", err)
		os.Exit(1)
	}
	killed := make(chan os.Signal, 1)
	signal.Notify(killed, syscall.SIGTERM)
	self, err := os.Executable()
	if err != nil {
		fmt.Printf("failed: %v\n", err)
		os.Exit(1)
	}
	child := exec.Command(self, "hold")
	child.Stdin, child.Stdout, child.Stderr, child.ExtraFiles = os.Stdin, os.Stdout, os.Stderr, []*os.File{f}
	if err := child.Start(); err != nil {
		fmt.Printf("failed: %v\n", err)
		os.Exit(1)
	}
	fmt.Printf("handed %d %d\n", os.Getpid(), child.Process.Pid)
	<-killed
}

func hold() {
	nc, err := net.FileConn(os.NewFile(3, "the connection"))
	if err != nil {
		fmt.Printf("failed: %v\n", err)
		os.Exit(1)
	}
	answers := bufio.NewReader(nc)
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 64<<10), 1<<20)
	for in.Scan() {
		fmt.Fprintf(nc, "%s\n", in.Text())
		line, err := answers.ReadString('\n')
		if err != nil {
			fmt.Printf("failed: %v\n", err)
			continue
		}
		fmt.Print(line)
	}
}

// hello connects and makes the call; why is "" when it was answered.
func hello(socket string, wait time.Duration) (nc net.Conn, why string) {
	nc, err := net.Dial("unix", socket)
	if err != nil {
		return nil, err.Error()
	}
	nc.SetDeadline(time.Now().Add(wait))
	if _, err := io.WriteString(nc, `{"jsonrpc":"2.0","id":1,"method":"_acpmux/hello"}`+"\n"); err != nil {
		return nc, err.Error()
	}
	line, err := bufio.NewReader(nc).ReadString('\n')
	if err != nil {
		return nc, err.Error()
	}
	if !strings.Contains(line, `"result"`) {
		return nc, strings.TrimSpace(line)
	}
	nc.SetDeadline(time.Time{})
	return nc, ""
}
