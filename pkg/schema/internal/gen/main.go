// Command gen writes docs/schemas: the JSON Schema of every document the
// binaries read and print (schema.Files) and the MCP tool list
// (mcp-tools.json, mcpserver.ToolsFile), and removes schema files no Go
// type generates any more. It is not a shipping binary: `go generate
// ./...` runs it from pkg/schema (the directive in pkg/schema/files.go),
// and the tests of pkg/schema and pkg/mcpserver fail while the files
// differ from what it would write.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/matrixx-dev/matrixx-tasks/pkg/mcpserver"
	"github.com/matrixx-dev/matrixx-tasks/pkg/schema"
)

func main() {
	dir := flag.String("dir", filepath.Join("..", "..", "docs", "schemas"), "the directory to write")
	flag.Parse()
	if err := write(*dir); err != nil {
		fmt.Fprintf(os.Stderr, "gen: %v\n", err)
		os.Exit(1)
	}
}

// write brings dir up to date, touching only the files that change.
func write(dir string) error {
	files, err := schema.Files()
	if err != nil {
		return err
	}
	tools, err := mcpserver.ToolsFile()
	if err != nil {
		return err
	}
	files[mcpserver.ToolsFileName] = tools
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for name, b := range files {
		path := filepath.Join(dir, name)
		if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, b) {
			continue
		}
		if err := os.WriteFile(path, b, 0o644); err != nil {
			return err
		}
		fmt.Printf("wrote %s\n", path)
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range ents {
		n := e.Name()
		if _, ok := files[n]; !ok && (strings.HasSuffix(n, ".input.json") || strings.HasSuffix(n, ".output.json")) {
			if err := os.Remove(filepath.Join(dir, n)); err != nil {
				return err
			}
			fmt.Printf("removed %s\n", filepath.Join(dir, n))
		}
	}
	return nil
}
