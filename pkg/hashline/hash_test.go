package hashline

import (
	"testing"
)

// The anchors of DESIGN D17 and issue 4.
func TestIDVectors(t *testing.T) {
	for _, tc := range []struct {
		line string
		n    int
		want string
	}{
		{"function hello() {", 1, "VRRM"},
		{"", 1, "XSKM"},
		{"", 2, "KBKM"},
		{"}", 1, "KZPS"},
		{"}", 3, "NHRZ"},
		{"const alpha = 1", 1, "SBST"},
		{`  console.log("hi");`, 7, "KPYH"},
		// normalization: "\r" and trailing whitespace do not count
		{"function hello() {\r", 1, "VRRM"},
		{"function hello() {  \t", 1, "VRRM"},
		{"function hello() {\u00a0\u3000\ufeff", 1, "VRRM"},
		{"const \ralpha = 1", 1, "SBST"},
		{"   ", 2, "KBKM"},
		{"\r", 1, "XSKM"},
		// lines with a letter or digit ignore their number
		{"function hello() {", 99, "VRRM"},
		{"const alpha = 1", 12345, "SBST"},
	} {
		if got := ID(tc.line, tc.n); got != tc.want {
			t.Errorf("ID(%q, %d) = %s, want %s", tc.line, tc.n, got, tc.want)
		}
	}
}

// Leading whitespace counts; U+0085 is not trimmed (JavaScript's trimEnd
// keeps it).
func TestIDSensitivity(t *testing.T) {
	pairs := [][2]string{
		{"}", " }"},
		{"a", "A"},
		{"x", "x\u0085"},
		{"- [ ] a", "- [x] a"},
	}
	for _, p := range pairs {
		if ID(p[0], 1) == ID(p[1], 1) {
			t.Errorf("ID(%q) == ID(%q); want them to differ", p[0], p[1])
		}
	}
}

// The seed is 0 exactly when the normalized line has a Unicode letter or
// number.
func TestSeed(t *testing.T) {
	for _, tc := range []struct {
		line  string
		alnum bool
	}{
		{"", false}, {"}", false}, {"---", false}, {"  // ", false}, {"\xff\xfe", false},
		{"a", true}, {"9", true}, {"é", true}, {"日本", true}, {"٣", true}, {"Ⅻ", true}, {"½", true},
		{"—", false}, {"→", false}, {"🙂", false},
	} {
		if got := hasAlnum(tc.line); got != tc.alnum {
			t.Errorf("hasAlnum(%q) = %v, want %v", tc.line, got, tc.alnum)
		}
		same := ID(tc.line, 1) == ID(tc.line, 2)
		if same != tc.alnum {
			t.Errorf("ID(%q) same on lines 1 and 2 = %v, want %v", tc.line, same, tc.alnum)
		}
	}
}

// The XXH32 reference vectors pin the library: the sanity checks of xxHash's
// xxhsum (old r39 buffer: 101 bytes, byteGen squared; current buffer:
// byteGen times PRIME64) and well-known strings.
func TestXXH32Reference(t *testing.T) {
	const prime = 2654435761
	old := make([]byte, 101)
	gen32 := uint32(prime)
	for i := range old {
		old[i] = byte(gen32 >> 24)
		gen32 *= gen32
	}
	cur := make([]byte, 14)
	gen64 := uint64(prime)
	for i := range cur {
		cur[i] = byte(gen64 >> 56)
		gen64 *= 11400714785074694797
	}
	for _, tc := range []struct {
		name string
		in   []byte
		seed uint32
		want uint32
	}{
		{"empty", nil, 0, 0x02CC5D05},
		{"empty", nil, prime, 0x36B78AE7},
		{"r39[:1]", old[:1], 0, 0xB85CBEE5},
		{"r39[:1]", old[:1], prime, 0xD5845D64},
		{"r39[:14]", old[:14], 0, 0xE5AA0AB4},
		{"r39[:14]", old[:14], prime, 0x4481951D},
		{"r39[:101]", old, 0, 0x1F1AA412},
		{"r39[:101]", old, prime, 0x498EC8E2},
		{"xxhsum[:1]", cur[:1], 0, 0xCF65B03E},
		{"xxhsum[:1]", cur[:1], prime, 0xB4545AA4},
		{"xxhsum[:14]", cur, 0, 0x1208E7E2},
		{"xxhsum[:14]", cur, prime, 0x6AF1D1FE},
		{"a", []byte("a"), 0, 0x550D7456},
		{"abc", []byte("abc"), 0, 0x32D153FF},
		{"fox", []byte("The quick brown fox jumps over the lazy dog"), 0, 0xE85EA4DE},
	} {
		if got := xxh32(tc.in, tc.seed); got != tc.want {
			t.Errorf("XXH32(%s, seed %#x) = %#08x, want %#08x", tc.name, tc.seed, got, tc.want)
		}
	}
}

func TestValidIDAndMatches(t *testing.T) {
	for _, tc := range []struct {
		id string
		ok bool
	}{
		{"VRRM", true}, {"RM", true}, {"ZPMQ", true},
		{"", false}, {"V", false}, {"VRR", false}, {"VRRMV", false}, {"vrrm", false}, {"ABCD", false},
	} {
		if got := ValidID(tc.id); got != tc.ok {
			t.Errorf("ValidID(%q) = %v", tc.id, got)
		}
	}
	for _, tc := range []struct {
		want, have string
		ok         bool
	}{
		{"VRRM", "VRRM", true}, {"RM", "VRRM", true}, {"VR", "VRRM", false}, {"VRRZ", "VRRM", false},
	} {
		if got := Matches(tc.want, tc.have); got != tc.ok {
			t.Errorf("Matches(%q, %q) = %v", tc.want, tc.have, got)
		}
	}
}

func BenchmarkID(b *testing.B) {
	line := "1. [ ] Implement the session token refresh endpoint with tests"
	for b.Loop() {
		ID(line, 12)
	}
}
