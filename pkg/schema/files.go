package schema

//go:generate go run ./internal/gen -dir ../../docs/schemas

import (
	"bytes"
	"encoding/json"

	"github.com/google/jsonschema-go/jsonschema"
)

// Files returns docs/schemas' content: "<name>.input.json" and
// "<name>.output.json" per Doc, each 2-space-indented JSON ending in a
// newline.
func Files() (map[string][]byte, error) {
	out := map[string][]byte{}
	for _, d := range Docs() {
		for suffix, s := range map[string]*jsonschema.Schema{".input.json": d.Input, ".output.json": d.Output} {
			if s == nil {
				continue
			}
			b, err := Marshal(s)
			if err != nil {
				return nil, err
			}
			out[d.Name+suffix] = b
		}
	}
	return out, nil
}

// Marshal renders a schema (or any document of docs/schemas, such as the
// MCP tool list) as the files hold it: indented by two spaces, ending in a
// newline.
func Marshal(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := json.Indent(&buf, b, "", "  "); err != nil {
		return nil, err
	}
	buf.WriteByte('\n')
	return buf.Bytes(), nil
}
