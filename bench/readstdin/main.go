// Command readstdin is the benchmarks' baseline process: a Go program that
// reads its stdin to EOF and exits 0. With one argument PATH it then also
// writes what it read to PATH the durable way every task write uses
// (temp file, fsync, rename, fsync of the directory), the floor under
// task-create's cost.
//
//	readstdin < event.json
//	readstdin DIR/out.json < record.json
package main

import (
	"io"
	"os"
	"path/filepath"
)

func main() {
	data, err := io.ReadAll(os.Stdin)
	if err != nil {
		os.Exit(1)
	}
	if len(os.Args) == 2 {
		if err := write(os.Args[1], data); err != nil {
			os.Stderr.WriteString(err.Error() + "\n")
			os.Exit(1)
		}
	}
}

func write(path string, data []byte) error {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, ".readstdin.tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return err
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
