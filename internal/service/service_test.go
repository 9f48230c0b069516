package service

import (
	"strings"
	"testing"
)

func TestUnitsQuoting(t *testing.T) {
	units, err := Units(Options{
		Binary: `/opt/my tools/$bin/acpmux-tui`, Home: "/home/me/100%/acpmux",
		Config: `/home/me/"odd"\cfg.toml`, Path: "/usr/bin:/bin",
	})
	if err != nil {
		t.Fatal(err)
	}
	service, socket := units[0].Text, units[1].Text
	for _, want := range []string{
		`ExecStart="/opt/my tools/$$bin/acpmux-tui" server` + "\n",
		`Environment="ACPMUX_HOME=/home/me/100%%/acpmux"` + "\n",
		`Environment="ACPMUX_CONFIG=/home/me/\"odd\"\\cfg.toml"` + "\n",
		`Environment="PATH=/usr/bin:/bin"` + "\n",
		"Description=acpmux-tui server (/home/me/100%%/acpmux)\n",
	} {
		if !strings.Contains(service, want) {
			t.Errorf("service unit lacks %q:\n%s", want, service)
		}
	}
	if !strings.Contains(socket, "ListenStream=/home/me/100%%/acpmux/acpmux.sock\n") {
		t.Errorf("socket unit:\n%s", socket)
	}
}

func TestUnitsRefused(t *testing.T) {
	for _, tc := range []struct {
		name string
		o    Options
		want string
	}{
		{"long", Options{Binary: "/bin/x", Home: "/" + strings.Repeat("h", 120)}, "longer than the 107 bytes"},
		{"blank", Options{Binary: "/bin/x", Home: "/home/me/my home"}, "ListenStream= cannot take"},
		{"control", Options{Binary: "/bin/x\n[Service]", Home: "/home/me"}, "control character"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := Units(tc.o); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Units = %v, want %q", err, tc.want)
			}
		})
	}
}
