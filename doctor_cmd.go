package main

import (
	"context"
	"errors"
	"os"

	"github.com/acpmux/acpmux-tui/config"
	"github.com/acpmux/acpmux-tui/internal/doctor"
)

// This file is doctor: every check of internal/doctor, printed as lines
// or as JSON; exit 1 when one fails.

// errDoctorFailed is doctor's exit 1: the report already said why.
var errDoctorFailed = errors.New("doctor: a check failed (the lines marked fail say why and what to do)")

// cmdDoctor is `doctor [--json]`.
func cmdDoctor(a *app, args []string) error {
	fs := newFlags(a, "doctor")
	asJSON := fs.Bool("json", false, "print {checks: [{name, status, detail, fix}]} as JSON")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("usage: acpmux-tui doctor [--json]")
	}
	dir, _ := os.Getwd()
	report := doctor.Run(context.Background(), doctor.Options{
		Getenv: a.getenv, Version: version, Dir: dir,
		ProbeHost: func(name string, h config.HostConfig) doctor.HostAnswer {
			// The probe `hosts` makes, on the hosts of the config the
			// doctor read (which may be the defaults when it does not
			// read: then there are none).
			on := &app{cfg: &config.Config{Host: map[string]config.HostConfig{name: h}}}
			r := on.probeHost(name)
			return doctor.HostAnswer{Answers: r.Answers, Version: r.Version, Chats: r.Chats, Err: r.Error}
		},
	})
	if *asJSON {
		err = a.printJSON(report)
	} else {
		err = report.Write(a.stdout)
	}
	if err != nil {
		return err
	}
	if report.Failed() {
		return errDoctorFailed
	}
	return nil
}
