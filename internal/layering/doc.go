// Package layering holds the test that keeps the imports between strata packages to the table in
// docs/design.md ("Who may import whom"). It has no code of its own: the table is the one place the
// layering is written, and this package's test is the one place it is checked.
package layering
