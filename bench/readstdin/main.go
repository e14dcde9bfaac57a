// Command readstdin is the benchmarks' baseline process: a Go program that
// reads its stdin to EOF and exits 0. With one argument PATH it then also
// writes what it read to PATH the durable way every task write uses
// (temp file, fsync, rename, fsync of the directory), the floor under
// task-create's cost. With -lock first it does so holding the store's
// lock the minimal way (flock on the directory, an exclusive .lock file
// created and removed): the durable-write floor of one record under the
// lock, which task-create and task-update are judged against.
//
//	readstdin < event.json
//	readstdin DIR/out.json < record.json
//	readstdin -lock DIR/out.json < record.json
package main

import (
	"io"
	"os"
	"path/filepath"
	"syscall"
)

func main() {
	data, err := io.ReadAll(os.Stdin)
	if err != nil {
		os.Exit(1)
	}
	args := os.Args[1:]
	locked := len(args) == 2 && args[0] == "-lock"
	if locked {
		args = args[1:]
	}
	if len(args) == 1 {
		var err error
		if locked {
			err = lockedWrite(args[0], data)
		} else {
			err = write(args[0], data)
		}
		if err != nil {
			os.Stderr.WriteString(err.Error() + "\n")
			os.Exit(1)
		}
	}
}

// lockedWrite is write under flock(dir) and an exclusive dir/.lock.
func lockedWrite(path string, data []byte) error {
	dir := filepath.Dir(path)
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := syscall.Flock(int(d.Fd()), syscall.LOCK_EX); err != nil {
		return err
	}
	defer syscall.Flock(int(d.Fd()), syscall.LOCK_UN)
	lock := filepath.Join(dir, ".lock")
	f, err := os.OpenFile(lock, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	_, err = f.WriteString(`{"id":"00000000-0000-4000-8000-000000000000","timestamp":0}`)
	f.Close()
	if err != nil {
		return err
	}
	defer os.Remove(lock)
	return write(path, data)
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
