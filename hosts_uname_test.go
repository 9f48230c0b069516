package main

import "testing"

func TestUnameOf(t *testing.T) {
	for _, tc := range []struct{ goos, goarch, want string }{
		{"linux", "amd64", "Linux x86_64"},
		{"linux", "arm64", "Linux aarch64"},
		{"darwin", "arm64", "Darwin arm64"},
		{"darwin", "amd64", "Darwin x86_64"},
	} {
		if got := unameOf(tc.goos, tc.goarch); got != tc.want {
			t.Errorf("unameOf(%s, %s) = %q, want %q", tc.goos, tc.goarch, got, tc.want)
		}
	}
}
