// Command linkfloor is a baseline of the start-up benchmarks: readstdin
// (a Go program that reads its stdin to EOF and exits 0) linked with the
// third-party libraries matrixx-hook and the task binaries link, so their
// package initialisers run and the binary is about as large. The gap
// between readstdin and linkfloor is what those libraries cost at every
// process start; the gap between linkfloor and a binary of ours is what
// our own code costs.
//
//	linkfloor < event.json
package main

import (
	"io"
	"os"

	_ "github.com/alecthomas/kong"
	_ "github.com/go-json-experiment/json"
	_ "github.com/gofrs/flock"
	_ "github.com/google/uuid"
	_ "github.com/natefinch/atomic"
	_ "github.com/tailscale/hujson"
	_ "golang.org/x/sys/unix"
	_ "golang.org/x/term"
	_ "mvdan.cc/sh/v3/syntax"
)

func main() {
	if _, err := io.Copy(io.Discard, os.Stdin); err != nil {
		os.Exit(1)
	}
}
