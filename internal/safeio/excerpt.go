package safeio

import (
	"fmt"
	"strconv"
	"unicode/utf8"
)

// ExcerptBytes is the most of a file's content an error message quotes: a value that does not
// parse is shown by its first bytes, never whole (a stack.yaml path pointed at a private key must
// not print the key into a job's log).
const ExcerptBytes = 40

// Excerpt quotes s for an error message on one line (Go quoting: a newline or a control character
// is escaped), cut to its first ExcerptBytes bytes (on a character boundary) with the length it
// had when it was longer.
func Excerpt(s string) string {
	if len(s) <= ExcerptBytes {
		return strconv.Quote(s)
	}
	cut := ExcerptBytes
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… (%d bytes)", strconv.Quote(s[:cut]), len(s))
}

// Cap cuts a message to at most n bytes (on a character boundary), saying how much was left out:
// a message built from what a file holds (a cycle through thousands of nodes, a list of every
// name) stays one readable line.
func Cap(msg string, n int) string {
	if len(msg) <= n {
		return msg
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(msg[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… (%d more bytes left out)", msg[:cut], len(msg)-cut)
}
