package input

import "github.com/matrixx-dev/matrixx-tasks/pkg/errcode"

// MaxDepth is how deeply a stdin document may nest arrays and objects: 64
// levels, the document's own braces being the first. Deeper documents are
// refused before they are decoded: decoding 10,000 levels took seconds and
// hundreds of MB, and a record nested 1,000 levels deep grows a thousand
// times when written indented (a 2 KB document became a 2 MB file).
const MaxDepth = 64

// CheckDepth refuses data whose arrays and objects nest more than max
// levels (validation_error naming the limit). It only counts brackets
// outside strings, in one pass without allocating: it is not a validator,
// malformed JSON is left to the decoder.
func CheckDepth(data []byte, max int) error {
	depth := 0
	inString, escaped := false, false
	for _, c := range data {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '[' || c == '{':
			if depth++; depth > max {
				return errcode.New(errcode.ValidationError, "the document nests arrays and objects more than %d levels deep (the cap on nesting); nothing was written", max)
			}
		case c == ']' || c == '}':
			depth--
		}
	}
	return nil
}
