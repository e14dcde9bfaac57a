//go:build !linux

package durable

import "errors"

var errUnsupported = errors.New("not supported here")

func exchange(a, b string) error        { return errUnsupported }
func renameNoReplace(a, b string) error { return errUnsupported }

func uint32ToMode(m uint32) uint16 { return uint16(m) }
