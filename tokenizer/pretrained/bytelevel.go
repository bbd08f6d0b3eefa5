package pretrained

import "unicode/utf8"

// The byte-level alphabet of GPT-2 and its descendants: every byte is
// written as one printable character, so that a vocabulary of byte strings
// can be stored as text. Printable Latin-1 bytes stand for themselves; the
// others (controls, space, DEL, NBSP, soft hyphen) are moved, in byte
// order, to U+0100 and up. "Ġ" (U+0120) is therefore the space.
var (
	byteRune [256]rune
	runeByte [256 + 68]int16 // rune → byte, -1 where the rune is no byte's
)

func init() {
	for i := range runeByte {
		runeByte[i] = -1
	}
	next := rune(256)
	for b := range 256 {
		switch {
		case b >= '!' && b <= '~', b >= 0xA1 && b <= 0xAC, b >= 0xAE:
			byteRune[b] = rune(b)
		default:
			byteRune[b] = next
			next++
		}
		runeByte[byteRune[b]] = int16(b)
	}
}

// fromByteLevel returns the bytes that a byte-level string stands for;
// ok is false when s holds a character outside the alphabet.
func fromByteLevel(s string) (string, bool) {
	out := make([]byte, 0, len(s))
	for _, r := range s {
		if r < 0 || int(r) >= len(runeByte) || runeByte[r] < 0 {
			return "", false
		}
		out = append(out, byte(runeByte[r]))
	}
	return string(out), true
}

// toByteLevel writes the bytes of s in the byte-level alphabet.
func toByteLevel(s string) string {
	out := make([]byte, 0, 2*len(s))
	for i := 0; i < len(s); i++ {
		out = utf8.AppendRune(out, byteRune[s[i]])
	}
	return string(out)
}
