package integrity

import (
	"bytes"
	"errors"
	"io"
	"strconv"

	"github.com/go-json-experiment/json/jsontext"
)

// errSessionRecord is a session record that is not the shape Sessions
// writes.
var errSessionRecord = errors.New("damaged session record")

// decodeSessionRecord reads a session record, the JSON document Sessions
// writes:
//
//	{"session":"…","spans":[{"from":<ns>,"last":<ns>,"end":true},…]}
//
// It walks the tokens instead of calling json.Unmarshal: a hook reads one
// record at every tool call, and building json's decoder for the record's
// types cost about half a millisecond of each call's start. It accepts
// what json.Unmarshal into sessionRecord accepts: the document must be one
// object; a duplicate or mistyped member, a number that is not an integer
// in range, or anything after the object is an error (the record counts
// as damaged); members it does not know are skipped; "spans" may be null
// or absent (no spans); "end" may be false or absent.
func decodeSessionRecord(data []byte) (sessionRecord, error) {
	var rec sessionRecord
	dec := jsontext.NewDecoder(bytes.NewReader(data))
	switch tok, err := dec.ReadToken(); {
	case err != nil || (tok.Kind() != '{' && tok.Kind() != 'n'):
		return rec, errSessionRecord
	case tok.Kind() == 'n': // null: no record, as json reads it
		if _, err := dec.ReadToken(); err != io.EOF {
			return rec, errSessionRecord
		}
		return rec, nil
	}
	for dec.PeekKind() != '}' { // the decoder refuses duplicate names
		tok, err := dec.ReadToken()
		if err != nil || tok.Kind() != '"' {
			return rec, errSessionRecord
		}
		switch name := tok.String(); name { // a token is void after the next read
		case "session":
			tok, err := dec.ReadToken()
			switch {
			case err != nil || (tok.Kind() != '"' && tok.Kind() != 'n'):
				return rec, errSessionRecord
			case tok.Kind() == '"':
				rec.Session = tok.String()
			}
		case "spans":
			if rec.Spans, err = decodeSpans(dec); err != nil {
				return rec, err
			}
		default: // a member of a later version: skipped, as json would
			if dec.SkipValue() != nil {
				return rec, errSessionRecord
			}
		}
	}
	if _, err := dec.ReadToken(); err != nil { // the closing '}'
		return rec, errSessionRecord
	}
	if _, err := dec.ReadToken(); err != io.EOF {
		return rec, errSessionRecord // something after the object
	}
	return rec, nil
}

// decodeSpans reads the "spans" member: null or an array of span objects.
func decodeSpans(dec *jsontext.Decoder) ([]spanRecord, error) {
	tok, err := dec.ReadToken()
	switch {
	case err != nil:
		return nil, errSessionRecord
	case tok.Kind() == 'n':
		return nil, nil
	case tok.Kind() != '[':
		return nil, errSessionRecord
	}
	spans := []spanRecord{}
	for dec.PeekKind() != ']' {
		var sp spanRecord
		tok, err := dec.ReadToken()
		switch {
		case err != nil || (tok.Kind() != '{' && tok.Kind() != 'n'):
			return nil, errSessionRecord
		case tok.Kind() == 'n':
			spans = append(spans, sp)
			continue
		}
		for dec.PeekKind() != '}' {
			tok, err := dec.ReadToken()
			if err != nil || tok.Kind() != '"' {
				return nil, errSessionRecord
			}
			name := tok.String() // a token is void after the next read
			if name != "from" && name != "last" && name != "end" {
				if dec.SkipValue() != nil {
					return nil, errSessionRecord
				}
				continue
			}
			val, err := dec.ReadToken()
			if err != nil {
				return nil, errSessionRecord
			}
			if val.Kind() == 'n' {
				continue // null leaves the member's zero value, as json does
			}
			switch name {
			case "from", "last":
				if val.Kind() != '0' {
					return nil, errSessionRecord
				}
				n, err := strconv.ParseInt(val.String(), 10, 64)
				if err != nil {
					return nil, errSessionRecord
				}
				if name == "from" {
					sp.From = n
				} else {
					sp.Last = n
				}
			case "end":
				switch val.Kind() {
				case 't':
					sp.End = true
				case 'f':
				default:
					return nil, errSessionRecord
				}
			default:
				return nil, errSessionRecord
			}
		}
		if _, err := dec.ReadToken(); err != nil {
			return nil, errSessionRecord
		}
		spans = append(spans, sp)
	}
	if _, err := dec.ReadToken(); err != nil {
		return nil, errSessionRecord
	}
	return spans, nil
}
